package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tailscale/hujson"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// clientFixture reads a real-shaped client file of config's testdata.
func clientFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "config", "testdata", "clients", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// keptOutside fails unless after is before with only the object at ptr
// changed: every byte before and after that object is the same.
func keptOutside(t *testing.T, before, after []byte, ptr string) {
	t.Helper()
	root, err := hujson.Parse(before)
	if err != nil {
		t.Fatal(err)
	}
	v := root.Find(ptr)
	if v == nil {
		t.Fatalf("no %s in\n%s", ptr, before)
	}
	if !bytes.HasPrefix(after, before[:v.StartOffset]) || !bytes.HasSuffix(after, before[v.EndOffset:]) {
		t.Errorf("bytes outside %s changed:\n--- before\n%s\n--- after\n%s", ptr, before, after)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// loadFile loads path as mcpdeck does, with env standing in for the
// environment.
func loadFile(t *testing.T, path string, env map[string]string) *config.Config {
	t.Helper()
	cfg, err := config.Load(config.LoadOptions{Files: []string{path}, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if err != nil {
		t.Fatalf("%s does not load: %v\n%s", path, err, readFile(t, path))
	}
	return cfg
}

// add, disable, enable and remove on copies of each client's real-shaped
// file: the server lands in the file's own format, the bytes outside the
// servers object stay, and removing it again gives the original back.
func TestManageClientFiles(t *testing.T) {
	for _, tc := range []struct {
		fixture, file, ptr string
		typed              bool // the client writes "type": "stdio"
	}{
		{"claude-code.mcp.json", ".mcp.json", "/mcpServers", true},
		{"vscode-mcp.json", filepath.Join(".vscode", "mcp.json"), "/servers", true},
		{"cursor-mcp.json", filepath.Join(".cursor", "mcp.json"), "/mcpServers", false},
		{"claude_desktop_config.json", "claude_desktop_config.json", "/mcpServers", false},
		{"windsurf-mcp_config.json", "mcp_config.json", "/mcpServers", false},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			w := newConfigWorld(t)
			original := clientFixture(t, tc.fixture)
			path := w.write(t, filepath.Join(w.project, tc.file), string(original))
			code, stdout, stderr := w.run(t, "add", "demo", "--scope", path, "--env", "LOG=debug", "--", "mcpdeck", "demo-server", "--name", "x y")
			if code != ExitOK || !strings.Contains(stdout, `added "demo" to `+path) {
				t.Fatalf("add: exit %d\n%s%s", code, stdout, stderr)
			}
			added := readFile(t, path)
			keptOutside(t, original, added, tc.ptr)
			e, ok := docEntry(t, path, "demo")
			if !ok {
				t.Fatalf("no demo in\n%s", added)
			}
			typ, _ := e.String("type")
			if tc.typed != (typ == "stdio") {
				t.Errorf("%s: type %q (its client writes it: %v)", tc.file, typ, tc.typed)
			}
			if args, _ := e.Strings("args"); !slices.Equal(args, []string{"demo-server", "--name", "x y"}) {
				t.Errorf("args %v", args)
			}
			for _, step := range [][]string{{"disable", "demo", "--scope", path}, {"enable", "demo", "--scope", path}} {
				if code, stdout, stderr := w.run(t, step...); code != ExitOK {
					t.Fatalf("%v: exit %d\n%s%s", step, code, stdout, stderr)
				}
			}
			if got := readFile(t, path); !bytes.Equal(got, added) {
				t.Errorf("disable then enable changed the file:\n--- before\n%s\n--- after\n%s", added, got)
			}
			if code, stdout, stderr := w.run(t, "remove", "demo", "--scope", path); code != ExitOK {
				t.Fatalf("remove: exit %d\n%s%s", code, stdout, stderr)
			}
			if got := readFile(t, path); !bytes.Equal(got, original) {
				t.Errorf("add then remove changed the file:\n--- before\n%s\n--- after\n%s", original, got)
			}
		})
	}
}

// docEntry reads server name of the file at path.
func docEntry(t *testing.T, path, name string) (config.Entry, bool) {
	t.Helper()
	d, err := config.OpenDocument(path, config.DocOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d.Entry(name)
}

// Without --scope, add writes the user's file (created 0600), remove
// finds the file that defines the server, and a name that is already
// there is refused unless --replace, which keeps the server's other
// settings.
func TestAddRemoveDefaults(t *testing.T) {
	w := newConfigWorld(t)
	user := filepath.Join(w.userDir, "mcp.json")
	code, _, stderr := w.run(t, "add", "demo", "--", "mcpdeck", "demo-server")
	if code != ExitOK {
		t.Fatalf("add: %d %s", code, stderr)
	}
	if info, err := os.Stat(user); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the user file: %v %v", err, info)
	}
	code, _, stderr = w.run(t, "add", "demo", "--", "other")
	if code != ExitUsage || !strings.Contains(stderr, `"demo" is already in `+user) || !strings.Contains(stderr, "--replace") {
		t.Fatalf("adding it twice: %d %s", code, stderr)
	}
	// A setting added by hand survives --replace.
	d, _ := config.OpenDocument(user, config.DocOptions{})
	e, _ := d.Entry("demo")
	e.Set("timeout", 5000)
	_ = d.Update("demo", e, nil)
	if _, err := d.Save(); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = w.run(t, "add", "demo", "--replace", "--", "mcpdeck", "demo-server", "--name", "second")
	if code != ExitOK {
		t.Fatalf("--replace: %d %s", code, stderr)
	}
	s, _ := loadFile(t, user, nil).Server("demo")
	if !slices.Equal(s.Args, []string{"demo-server", "--name", "second"}) || s.CallTimeout.Milliseconds() != 5000 {
		t.Errorf("after --replace: args %v, timeout %v", s.Args, s.CallTimeout)
	}
	code, _, stderr = w.run(t, "remove", "nope")
	if code != ExitUsage || !strings.Contains(stderr, `no server "nope"`) {
		t.Errorf("removing a missing server: %d %s", code, stderr)
	}
	if code, _, stderr = w.run(t, "remove", "demo"); code != ExitOK {
		t.Fatalf("remove: %d %s", code, stderr)
	}
	if got := string(readFile(t, user)); got != "{\n  \"mcpServers\": {}\n}\n" {
		t.Errorf("after removing the only server:\n%s", got)
	}
	for _, args := range [][]string{
		{"add", "x"},
		{"add", "x", "--url", "https://e.example/mcp", "--", "cmd"},
		{"add", "x", "--header", "A: b", "--", "cmd"},
		{"add", "x", "--url", "https://e.example/mcp", "--env", "A=b"},
		{"add", "x", "--env", "novalue", "--", "cmd"},
		{"add", "x", "--url", "ftp://e.example/mcp"},
		{"add", "bad name!", "--", "cmd"},
		{"add", "x", "--scope", "elsewhere", "--", "cmd"},
	} {
		if code, _, stderr := w.run(t, args...); code != ExitUsage || stderr == "" {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
}

// A secret typed on the command line is written as the person chose; by
// default an ${env:…} reference, its variable named, the value printed
// nowhere.
func TestAddStoresSecrets(t *testing.T) {
	w := newConfigWorld(t)
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	user := filepath.Join(w.userDir, "mcp.json")
	code, stdout, stderr := w.run(t, "add", "gh", "--env", "GITHUB_TOKEN="+token, "--env", "LOG_LEVEL=debug", "--", "github-mcp-server", "stdio")
	if code != ExitOK || strings.Contains(stdout+stderr, token) {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	data := readFile(t, user)
	if bytes.Contains(data, []byte(token)) || !bytes.Contains(data, []byte(`"GITHUB_TOKEN": "${env:GITHUB_TOKEN}"`)) || !bytes.Contains(data, []byte(`"LOG_LEVEL": "debug"`)) {
		t.Errorf("the file:\n%s", data)
	}
	if !strings.Contains(stderr, "GITHUB_TOKEN is not set in this environment") {
		t.Errorf("the variable to set is not named:\n%s", stderr)
	}
	s, _ := loadFile(t, user, map[string]string{"GITHUB_TOKEN": token}).Server("gh")
	if s.Env["GITHUB_TOKEN"] != token {
		t.Errorf("the reference does not resolve: %v", s.Env)
	}

	code, _, stderr = w.run(t, "add", "sentry", "--url", "https://mcp.sentry.dev/mcp", "--header", "Authorization: Bearer sntrys_abcdefghijklmnop", "--secret-as", "value")
	if code != ExitOK || !strings.Contains(stderr, "plain text") {
		t.Fatalf("--secret-as value: %d %s", code, stderr)
	}
	if !bytes.Contains(readFile(t, user), []byte(`"Authorization": "Bearer sntrys_abcdefghijklmnop"`)) {
		t.Errorf("the value was not written as chosen:\n%s", readFile(t, user))
	}

	vscode := w.write(t, filepath.Join(w.project, ".vscode", "mcp.json"), string(clientFixture(t, "vscode-mcp.json")))
	code, _, stderr = w.run(t, "add", "brave", "--scope", vscode, "--env", "BRAVE_API_KEY=BSAabcdefghijklmnopqrstuv", "--secret-as", "input", "--", "npx", "-y", "@brave/brave-search-mcp-server")
	if code != ExitOK {
		t.Fatalf("--secret-as input: %d %s", code, stderr)
	}
	d, _ := config.OpenDocument(vscode, config.DocOptions{})
	e, _ := d.Entry("brave")
	env, _ := e.Map("env")
	if v, _ := env.Get("BRAVE_API_KEY"); v != "${input:brave-api-key}" || !slices.Equal(d.InputIDs(), []string{"perplexity-key", "brave-api-key"}) {
		t.Errorf("VS Code input: %q %v\n%s", v, d.InputIDs(), readFile(t, vscode))
	}
	if code, _, _ := w.run(t, "add", "x", "--secret-as", "vault", "--env", "K=v", "--", "cmd"); code != ExitUsage {
		t.Errorf("an unknown --secret-as: exit %d", code)
	}
}

// add-json takes an entry as the other clients' documentation prints it.
func TestAddJSON(t *testing.T) {
	w := newConfigWorld(t)
	user := filepath.Join(w.userDir, "mcp.json")
	for _, tc := range []struct {
		args []string
		name string
		want string
	}{
		{[]string{"a", `{"command": "npx", "args": ["-y", "pkg"]}`}, "a", `{"command":"npx","args":["-y","pkg"]}`},
		{[]string{`{"mcpServers": {"b": {"type": "http", "url": "https://b.example/mcp"}}}`}, "b", `{"type":"http","url":"https://b.example/mcp"}`},
		{[]string{`{"servers": {"c": {"type": "stdio", "command": "uvx", "args": ["c"], "dev": {}}}}`}, "c", `{"type":"stdio","command":"uvx","args":["c"]}`},
		{[]string{`{"name": "d", "command": "node", "args": ["d.js"]}`}, "d", `{"command":"node","args":["d.js"]}`},
		{[]string{"e", `{"serverUrl": "https://e.example/mcp"}`}, "e", `{"url":"https://e.example/mcp"}`},
		// One server keyed by its name, and the member as a README prints it
		// inside its "mcpServers" block.
		{[]string{`{"f": {"command": "node", "args": ["f.js"]}}`}, "f", `{"command":"node","args":["f.js"]}`},
		{[]string{`"g": {"type": "http", "url": "https://g.example/mcp"},`}, "g", `{"type":"http","url":"https://g.example/mcp"}`},
	} {
		code, _, stderr := w.run(t, append([]string{"add-json"}, tc.args...)...)
		if code != ExitOK {
			t.Fatalf("%v: %d %s", tc.args, code, stderr)
		}
		e, _ := docEntry(t, user, tc.name)
		if got := mustJSON(t, e); got != tc.want {
			t.Errorf("%v:\n got %s\nwant %s", tc.args, got, tc.want)
		}
	}
	loadFile(t, user, nil)
	for _, args := range [][]string{
		{"add-json", `{"command": "x"}`},
		{"add-json", "f", `{"args": []}`},
		{"add-json", "f", `not json`},
		{"add-json", `{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}`},
	} {
		if code, _, stderr := w.run(t, args...); code != ExitUsage || stderr == "" {
			t.Errorf("%v: exit %d %q", args, code, stderr)
		}
	}
}

// A project file approved at the content it had stays approved when the
// person changes it with mcpdeck: its servers start without asking again.
func TestAddKeepsTheProjectApproval(t *testing.T) {
	w := newConfigWorld(t)
	project := w.write(t, filepath.Join(w.project, ".mcp.json"), string(clientFixture(t, "claude-code.mcp.json")))
	ts, err := config.OpenTrustStore("")
	if err != nil {
		t.Fatal(err)
	}
	hash := func() string { return configFileHash(t, project) }
	if err := ts.Trust(config.File{Path: project, Scope: config.ScopeProject, Hash: hash()}); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := w.run(t, "add", "demo", "--scope", "project", "--", "mcpdeck", "demo-server")
	if code != ExitOK || !strings.Contains(stderr, "stays approved") {
		t.Fatalf("exit %d %s", code, stderr)
	}
	ts, _ = config.OpenTrustStore("")
	if !ts.Trusted(config.File{Path: project, Scope: config.ScopeProject, Hash: hash()}) {
		t.Error("the changed project file is no longer approved")
	}
	// A file nobody approved is not approved by editing it.
	other := w.write(t, filepath.Join(w.project, ".cursor", "mcp.json"), `{"mcpServers": {}}`)
	if code, _, stderr := w.run(t, "add", "x", "--scope", other, "--", "cmd"); code != ExitOK || strings.Contains(stderr, "stays approved") {
		t.Fatalf("exit %d %s", code, stderr)
	}
	if ts, _ = config.OpenTrustStore(""); ts.Trusted(config.File{Path: other, Scope: config.ScopeProject, Hash: configFileHash(t, other)}) {
		t.Error("an unapproved project file became approved")
	}
}

func configFileHash(t *testing.T, path string) string {
	t.Helper()
	sum := sha256.Sum256(readFile(t, path))
	return hex.EncodeToString(sum[:])
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The TUI takes an ad-hoc server as the headless commands do: --stdio
// runs it alone, and the user's file is not read. (What a, e and D say
// then is the ui package's test.)
func TestTUIAdHocServer(t *testing.T) {
	w := newConfigWorld(t)
	w.write(t, w.userFile(), `{"mcpServers": {"other": {"command": "false"}}}`)
	for k, v := range jsonrpctest.ServerEnv(jsonrpctest.Normal) {
		t.Setenv(k, v) // an ad-hoc command inherits mcpdeck's environment
	}
	path, args, _ := jsonrpctest.Command(jsonrpctest.Normal)
	line := config.ShellQuote(path) + " " + strings.Join(args, " ")
	logFile := filepath.Join(w.root, "events.jsonl")
	in, keys := io.Pipe()
	var out, errOut lockedBuffer
	done := make(chan int, 1)
	go func() { done <- run([]string{"--stdio", line, "--enable", "--log", logFile}, in, &out, &errOut) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile(logFile)
		if bytes.Contains(data, []byte(`"Server":"adhoc"`)) && bytes.Contains(data, []byte(`"To":"ready"`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ad-hoc server never became ready:\n%s\n%s", data, errOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	keys.Write([]byte("q"))
	select {
	case code := <-done:
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the TUI did not quit on q")
	}
	keys.Close()
	if data, _ := os.ReadFile(logFile); bytes.Contains(data, []byte(`"Server":"other"`)) {
		t.Errorf("the user's file was read although an ad-hoc server was given:\n%s", data)
	}
}
