package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"mcpdeck/config"
	"mcpdeck/runtime/registry"
	"mcpdeck/runtime/registry/registrytest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func client(t *testing.T, url string) *registry.Client {
	t.Helper()
	c, err := registry.New(url, &http.Client{Transport: &http.Transport{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdle)
	return c
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

func names(p registry.Page) []string {
	var out []string
	for _, e := range p.Servers {
		out = append(out, e.Server.Name+"@"+e.Server.Version)
	}
	return out
}

// Search lists the latest versions, matches names and descriptions, and
// pages by cursor until the registry says there is no more.
func TestSearch(t *testing.T) {
	srv := registrytest.New(t)
	c := client(t, srv.URL)
	all, err := c.Search(ctx(t), "", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ai.adadvisor/mcp-server@1.0.1", "com.stripe/mcp@0.2.4", "io.github.brave/brave-search-mcp-server@2.0.58",
		"io.github.github/github-mcp-server@0.20.1", "io.github.modelcontextprotocol/server-everything@2.0.0",
		"io.github.modelcontextprotocol/server-filesystem@0.6.3", "io.github.modelcontextprotocol/server-time@0.6.2"}
	if !slices.Equal(names(all), want) || all.NextCursor != "" {
		t.Fatalf("every latest server: %v (next %q)", names(all), all.NextCursor)
	}
	for q, want := range map[string][]string{
		"filesystem": {"io.github.modelcontextprotocol/server-filesystem@0.6.3"},
		"TIMEZONE":   {"io.github.modelcontextprotocol/server-time@0.6.2"},
		"nothing":    nil,
	} {
		p, err := c.Search(ctx(t), q, "", 0)
		if err != nil || !slices.Equal(names(p), want) {
			t.Errorf("search %q: %v %v", q, err, names(p))
		}
	}
	var paged []string
	cursor := ""
	for range 10 {
		p, err := c.Search(ctx(t), "", cursor, 3)
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, names(p)...)
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	if !slices.Equal(paged, want) {
		t.Errorf("paging by 3: %v", paged)
	}
	reqs := srv.Requests()
	if !slices.ContainsFunc(reqs, func(r string) bool {
		return strings.Contains(r, "cursor=io.github.brave%2Fbrave-search-mcp-server%3A2.0.58") && strings.Contains(r, "limit=3") && strings.Contains(r, "version=latest")
	}) {
		t.Errorf("the second page was not asked for with the cursor: %v", reqs)
	}
}

// Get fetches one version, the latest by default, by the URL-encoded name.
func TestGet(t *testing.T) {
	srv := registrytest.New(t)
	c := client(t, srv.URL)
	e, raw, err := c.Get(ctx(t), "io.github.modelcontextprotocol/server-filesystem", "")
	if err != nil || e.Server.Version != "0.6.3" || e.Meta.Official == nil || !e.Meta.Official.IsLatest || !json.Valid(raw) {
		t.Fatalf("latest: %v %+v", err, e)
	}
	e, _, err = c.Get(ctx(t), "io.github.modelcontextprotocol/server-filesystem", "0.6.2")
	if err != nil || e.Server.Version != "0.6.2" || e.Meta.Official.IsLatest {
		t.Fatalf("0.6.2: %v %+v", err, e)
	}
	if !slices.Contains(srv.Requests(), "/v0.1/servers/io.github.modelcontextprotocol%2Fserver-filesystem/versions/0.6.2") {
		t.Errorf("the name was not escaped as one path segment: %v", srv.Requests())
	}
	_, _, err = c.Get(ctx(t), "io.github.nobody/nothing", "1.0.0")
	if !errors.Is(err, registry.ErrNotFound) || !strings.Contains(err.Error(), `"io.github.nobody/nothing" version "1.0.0" is not in `+srv.URL) {
		t.Errorf("a missing server: %v", err)
	}
}

// A registry that fails says so with its status and message; something
// that is not a registry, or nothing at all, says that.
func TestRegistryErrors(t *testing.T) {
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.RawQuery, "search=html") {
			w.Write([]byte("<html>hello</html>"))
			return
		}
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"title":"Service Unavailable","status":503,"detail":"database is down"}`))
	}))
	defer broken.Close()
	c := client(t, broken.URL)
	_, err := c.Search(ctx(t), "x", "", 0)
	if !errors.Is(err, registry.ErrRegistry) || !strings.Contains(err.Error(), "503 Service Unavailable: database is down") {
		t.Errorf("a failing registry: %v", err)
	}
	_, err = c.Search(ctx(t), "html", "", 0)
	if !errors.Is(err, registry.ErrRegistry) || !strings.Contains(err.Error(), "is not the registry API") {
		t.Errorf("a web page: %v", err)
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	_, err = client(t, "http://"+addr).Search(ctx(t), "", "", 0)
	if !errors.Is(err, registry.ErrRegistry) || !strings.Contains(err.Error(), "MCPDECK_REGISTRY") {
		t.Errorf("nothing listening: %v", err)
	}
	if _, err := registry.New("ftp://x", nil); err == nil {
		t.Error("an ftp registry was accepted")
	}
}

func get(t *testing.T, srv *registrytest.Server, name string) registry.ServerJSON {
	t.Helper()
	e, _, err := client(t, srv.URL).Get(ctx(t), name, "")
	if err != nil {
		t.Fatal(err)
	}
	return e.Server
}

func entryJSON(t *testing.T, e config.Entry) string {
	t.Helper()
	b, _ := json.Marshal(e)
	return string(b)
}

// Each real server.json becomes the command its package runs with, or
// its remote; what it needs is filled from what was given, else its
// default, else a reference to set.
func TestInstall(t *testing.T) {
	srv := registrytest.New(t)
	for _, tc := range []struct {
		server string
		o      registry.Options
		entry  string
		via    string
		notes  []string
	}{
		{"io.github.modelcontextprotocol/server-everything", registry.Options{},
			`{"command":"npx","args":["-y","@modelcontextprotocol/server-everything@2.0.0","stdio"]}`,
			"npm @modelcontextprotocol/server-everything@2.0.0", []string{"installed the npm package"}},
		{"io.github.modelcontextprotocol/server-filesystem", registry.Options{Values: map[string]string{"allowed_directory": "/home/me/notes"}},
			`{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem@0.6.3","/home/me/notes"]}`, "", nil},
		{"io.github.modelcontextprotocol/server-filesystem", registry.Options{Name: "fs"},
			`{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem@0.6.3","${env:FS_ALLOWED_DIRECTORY}"]}`, "",
			[]string{"argument allowed_directory (An absolute path the server is allowed to access. Pass one or more.) is ${env:FS_ALLOWED_DIRECTORY}: set FS_ALLOWED_DIRECTORY"}},
		{"io.github.modelcontextprotocol/server-time", registry.Options{},
			`{"command":"uvx","args":["mcp-server-time==0.6.2"]}`, "pypi mcp-server-time==0.6.2", nil},
		{"io.github.brave/brave-search-mcp-server", registry.Options{Values: map[string]string{"BRAVE_API_KEY": "BSA-secret-typed"}},
			`{"command":"npx","args":["-y","@brave/brave-search-mcp-server@2.0.58"],"env":{"BRAVE_API_KEY":"${env:BRAVE_API_KEY}"}}`, "",
			[]string{"set BRAVE_API_KEY"}},
		{"io.github.brave/brave-search-mcp-server", registry.Options{Values: map[string]string{"BRAVE_API_KEY": "BSA-secret-typed"}, Secrets: config.SecretAsValue},
			`{"command":"npx","args":["-y","@brave/brave-search-mcp-server@2.0.58"],"env":{"BRAVE_API_KEY":"BSA-secret-typed"}}`, "",
			[]string{"stored in plain text"}},
		{"io.github.brave/brave-search-mcp-server", registry.Options{Name: "brave", Secrets: config.SecretAsInput},
			`{"command":"npx","args":["-y","@brave/brave-search-mcp-server@2.0.58"],"env":{"BRAVE_API_KEY":"${input:brave-api-key}"}}`, "", nil},
		{"com.stripe/mcp", registry.Options{},
			`{"type":"http","url":"https://mcp.stripe.com"}`, "remote streamable-http https://mcp.stripe.com", nil},
		{"ai.adadvisor/mcp-server", registry.Options{Name: "adadvisor"},
			`{"type":"http","url":"https://api.adadvisor.ai/mcp","headers":{"Authorization":"${env:ADADVISOR_AUTHORIZATION}"}}`, "",
			[]string{"header Authorization (Bearer token (adv_sk_...)) is ${env:ADADVISOR_AUTHORIZATION}"}},
		{"io.github.github/github-mcp-server", registry.Options{Name: "github"},
			`{"command":"docker","args":["run","-i","--rm","-e","GITHUB_PERSONAL_ACCESS_TOKEN=${env:GITHUB_TOKEN}","ghcr.io/github/github-mcp-server:0.20.1"]}`,
			"oci ghcr.io/github/github-mcp-server:0.20.1", []string{"set GITHUB_TOKEN"}},
	} {
		s := get(t, srv, tc.server)
		inst, err := registry.Install(s, tc.o)
		if err != nil {
			t.Fatalf("%s: %v", tc.server, err)
		}
		if got := entryJSON(t, inst.Entry); got != tc.entry {
			t.Errorf("%s %+v:\n got %s\nwant %s", tc.server, tc.o, got, tc.entry)
		}
		if tc.via != "" && inst.Via != tc.via {
			t.Errorf("%s: via %q, want %q", tc.server, inst.Via, tc.via)
		}
		var all []string
		for _, n := range inst.Notices {
			all = append(all, n.Message)
		}
		for _, want := range tc.notes {
			if !strings.Contains(strings.Join(all, "\n"), want) {
				t.Errorf("%s: notices %q lack %q", tc.server, all, want)
			}
		}
		if strings.Contains(strings.Join(all, "\n"), "BSA-secret-typed") {
			t.Errorf("a notice shows the secret: %q", all)
		}
		if tc.o.Secrets == config.SecretAsInput && (len(inst.Inputs) != 1 || inst.Inputs[0].ID != "brave-api-key" || !inst.Inputs[0].Password) {
			t.Errorf("inputs: %+v", inst.Inputs)
		}
	}
}

// Asking: a required value nobody gave is asked for; a secret is not
// (its reference is written) unless it is to be stored as a value.
func TestInstallAsks(t *testing.T) {
	srv := registrytest.New(t)
	var asked []string
	ask := func(n registry.Need) (string, bool) {
		asked = append(asked, n.Kind+" "+n.Key)
		return "/srv/data", true
	}
	inst, err := registry.Install(get(t, srv, "io.github.modelcontextprotocol/server-filesystem"), registry.Options{Ask: ask})
	if err != nil || !strings.Contains(entryJSON(t, inst.Entry), `"/srv/data"`) || !slices.Equal(asked, []string{"argument allowed_directory"}) {
		t.Fatalf("%v %s %v", err, entryJSON(t, inst.Entry), asked)
	}
	if len(inst.Needs) != 1 || inst.Needs[0].How != "asked" || !inst.Needs[0].IsRequired {
		t.Errorf("needs: %+v", inst.Needs)
	}
	asked = nil
	if _, err := registry.Install(get(t, srv, "io.github.brave/brave-search-mcp-server"), registry.Options{Ask: ask}); err != nil || len(asked) != 0 {
		t.Errorf("a secret to store as a reference was asked for: %v %v", err, asked)
	}
}

// Ways mcpdeck cannot run a server are refused with what to do instead.
func TestInstallRefuses(t *testing.T) {
	srv := registrytest.New(t)
	every := get(t, srv, "io.github.modelcontextprotocol/server-everything")
	if _, err := registry.Install(every, registry.Options{Remote: true}); err == nil || !strings.Contains(err.Error(), "has no remote; install one of its packages (npm, npm)") {
		t.Errorf("a remote of a package-only server: %v", err)
	}
	if _, err := registry.Install(every, registry.Options{Package: "oci"}); err == nil || !strings.Contains(err.Error(), "has no oci package (it has: npm, npm)") {
		t.Errorf("a package type it does not have: %v", err)
	}
	bundle := registry.ServerJSON{Name: "io.example/bundle", Packages: []registry.Package{{RegistryType: "mcpb", Identifier: "https://github.com/x/y/releases/download/v1/y.mcpb", Transport: registry.Transport{Type: "stdio"}}}}
	if _, err := registry.Install(bundle, registry.Options{}); !errors.Is(err, registry.ErrUnsupported) || !strings.Contains(err.Error(), "MCP bundle") {
		t.Errorf("an mcpb: %v", err)
	}
	httpOnly := registry.ServerJSON{Name: "io.example/h", Packages: []registry.Package{every.Packages[1]}}
	if _, err := registry.Install(httpOnly, registry.Options{}); !errors.Is(err, registry.ErrUnsupported) || !strings.Contains(err.Error(), "add it with --url") {
		t.Errorf("a package serving HTTP: %v", err)
	}
	tmpl := registry.ServerJSON{Name: "io.example/t", Remotes: []registry.Transport{{Type: "streamable-http", URL: "https://{tenant}.example.com/mcp"}}}
	if _, err := registry.Install(tmpl, registry.Options{}); err == nil || !strings.Contains(err.Error(), "--input tenant=VALUE") {
		t.Errorf("a URL template nobody filled: %v", err)
	}
	inst, err := registry.Install(tmpl, registry.Options{Values: map[string]string{"tenant": "acme"}})
	if err != nil || entryJSON(t, inst.Entry) != `{"type":"http","url":"https://acme.example.com/mcp"}` {
		t.Errorf("a filled URL template: %v %s", err, entryJSON(t, inst.Entry))
	}
}

// The entries of an npm package and of a remote, written to a file, are a
// configuration mcpdeck loads and validates, with each reference set.
func TestInstalledEntriesValidate(t *testing.T) {
	srv := registrytest.New(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	path := filepath.Join(t.TempDir(), "mcp.json")
	d, err := config.OpenDocument(path, config.DocOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, server := range map[string]string{"brave": "io.github.brave/brave-search-mcp-server", "adadvisor": "ai.adadvisor/mcp-server"} {
		inst, err := registry.Install(get(t, srv, server), registry.Options{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Add(name, inst.Entry); err != nil {
			t.Fatal(err)
		}
	}
	saved, err := d.Save()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(saved.Unset, []string{"ADADVISOR_AUTHORIZATION", "BRAVE_API_KEY"}) {
		t.Errorf("unset: %v", saved.Unset)
	}
	env := map[string]string{"BRAVE_API_KEY": "BSA-1", "ADADVISOR_AUTHORIZATION": "Bearer adv_sk_1"}
	cfg, err := config.Load(config.LoadOptions{Files: []string{path}, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if err != nil {
		t.Fatalf("the installed configuration does not validate: %v", err)
	}
	b, _ := cfg.Server("brave")
	a, _ := cfg.Server("adadvisor")
	if b.Command != "npx" || b.Env["BRAVE_API_KEY"] != "BSA-1" || a.Transport != config.TransportHTTP || a.Headers["Authorization"] != "Bearer adv_sk_1" {
		t.Errorf("loaded: %+v\n%+v", b, a)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "BSA-1") || strings.Contains(string(data), "adv_sk_1") {
		t.Errorf("a secret is in the file:\n%s", data)
	}
}
