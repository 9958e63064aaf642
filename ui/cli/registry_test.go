package cli

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mcpdeck/runtime/registry"
	"mcpdeck/runtime/registry/registrytest"
)

// registry search lists the registry's latest versions, in a table or as
// JSON, a page at a time; the registry is --registry, else
// $MCPDECK_REGISTRY.
func TestRegistrySearch(t *testing.T) {
	w := newConfigWorld(t)
	srv := registrytest.New(t)
	t.Setenv(registry.EnvURL, srv.URL)
	code, stdout, stderr := w.run(t, "registry", "search", "filesystem")
	if code != ExitOK || !strings.Contains(stdout, "io.github.modelcontextprotocol/server-filesystem  0.6.3    npm") || strings.Contains(stdout, "0.6.2") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = w.run(t, "registry", "search", "--limit", "3")
	if code != ExitOK || !strings.Contains(stderr, "more: mcpdeck registry search --cursor io.github.brave/brave-search-mcp-server:2.0.58") {
		t.Fatalf("a first page: %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = w.run(t, "registry", "search", "--limit", "3", "--cursor", "io.github.brave/brave-search-mcp-server:2.0.58", "--json")
	var page struct {
		Servers []registry.Entry `json:"servers"`
		Next    string           `json:"nextCursor"`
	}
	if err := json.Unmarshal([]byte(stdout), &page); err != nil || code != ExitOK {
		t.Fatalf("--json: %d %v\n%s", code, err, stdout)
	}
	if len(page.Servers) != 3 || page.Servers[0].Server.Name != "io.github.github/github-mcp-server" || page.Next == "" {
		t.Errorf("the second page: %+v", page)
	}
	if code, stdout, stderr = w.run(t, "registry", "search", "no-such-thing"); code != ExitOK || stdout != "" || !strings.Contains(stderr, "no server in") {
		t.Errorf("nothing found: %d %q %q", code, stdout, stderr)
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	down := "http://" + l.Addr().String()
	l.Close()
	if code, _, stderr = w.run(t, "registry", "search", "--registry", down); code != ExitConnection || !strings.Contains(stderr, down) {
		t.Errorf("a registry that is down: %d %s", code, stderr)
	}
}

// registry show prints what a server needs and the entry add would write.
func TestRegistryShow(t *testing.T) {
	w := newConfigWorld(t)
	srv := registrytest.New(t)
	code, stdout, stderr := w.run(t, "registry", "show", "io.github.brave/brave-search-mcp-server", "--registry", srv.URL)
	if code != ExitOK {
		t.Fatalf("exit %d %s", code, stderr)
	}
	for _, want := range []string{
		"package      npm @brave/brave-search-mcp-server 2.0.58 (stdio)",
		"env BRAVE_API_KEY * (secret) — Your API key for the service",
		`"BRAVE_API_KEY": "${env:BRAVE_API_KEY}"`,
		"status       active, published 2025-10-23",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("show lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = w.run(t, "registry", "show", "io.github.modelcontextprotocol/server-filesystem@0.6.2", "--registry", srv.URL, "--json")
	var e registry.Entry
	if err := json.Unmarshal([]byte(stdout), &e); err != nil || code != ExitOK || e.Server.Version != "0.6.2" {
		t.Errorf("--json of a version: %d %v %+v", code, err, e.Server)
	}
	if code, _, stderr = w.run(t, "registry", "show", "io.github.nobody/nothing", "--registry", srv.URL); code != ExitUsage || !strings.Contains(stderr, "is not in") {
		t.Errorf("a missing server: %d %s", code, stderr)
	}
}

// add --from-registry installs an npm package and a remote into
// configurations that validate, a secret typed as a value never written;
// a required argument comes from --input.
func TestAddFromRegistry(t *testing.T) {
	w := newConfigWorld(t)
	srv := registrytest.New(t)
	t.Setenv(registry.EnvURL, srv.URL)
	const key = "BSAsecretsecretsecret0123"
	code, stdout, stderr := w.run(t, "add", "brave", "--from-registry", "io.github.brave/brave-search-mcp-server", "--env", "BRAVE_API_KEY="+key)
	if code != ExitOK || strings.Contains(stdout+stderr, key) || !strings.Contains(stderr, "runs as npm @brave/brave-search-mcp-server@2.0.58") {
		t.Fatalf("npm: %d\n%s%s", code, stdout, stderr)
	}
	code, _, stderr = w.run(t, "add", "ads", "--from-registry", "ai.adadvisor/mcp-server@1.0.1")
	if code != ExitOK || !strings.Contains(stderr, "${env:ADS_AUTHORIZATION}") {
		t.Fatalf("remote: %d %s", code, stderr)
	}
	code, _, stderr = w.run(t, "add", "fs", "--from-registry", "io.github.modelcontextprotocol/server-filesystem", "--input", "allowed_directory="+w.project)
	if code != ExitOK {
		t.Fatalf("with an argument: %d %s", code, stderr)
	}
	code, _, stderr = w.run(t, "add", "everything", "--from-registry", "io.github.modelcontextprotocol/server-everything", "--scope", "project")
	if code != ExitOK || !strings.Contains(stderr, "installed the npm package") {
		t.Fatalf("into the project: %d %s", code, stderr)
	}
	data := readFile(t, w.userFile())
	if strings.Contains(string(data), key) {
		t.Errorf("the secret was written:\n%s", data)
	}
	t.Setenv("BRAVE_API_KEY", key)
	t.Setenv("ADS_AUTHORIZATION", "Bearer adv_sk_test")
	if code, stdout, stderr = w.run(t, "config", "validate", w.userFile(), filepath.Join(w.project, ".mcp.json")); code != ExitOK {
		t.Fatalf("the installed configuration does not validate: %d\n%s%s", code, stdout, stderr)
	}
	cfg := loadFile(t, w.userFile(), map[string]string{"BRAVE_API_KEY": key, "ADS_AUTHORIZATION": "Bearer adv_sk_test"})
	brave, _ := cfg.Server("brave")
	ads, _ := cfg.Server("ads")
	fs, _ := cfg.Server("fs")
	if !slices.Equal(brave.Args, []string{"-y", "@brave/brave-search-mcp-server@2.0.58"}) || brave.Env["BRAVE_API_KEY"] != key {
		t.Errorf("brave: %v %v", brave.Args, brave.Env)
	}
	if ads.URL != "https://api.adadvisor.ai/mcp" || ads.Headers["Authorization"] != "Bearer adv_sk_test" {
		t.Errorf("ads: %s %v", ads.URL, ads.Headers)
	}
	if !slices.Equal(fs.Args, []string{"-y", "@modelcontextprotocol/server-filesystem@0.6.3", w.project}) {
		t.Errorf("fs: %v", fs.Args)
	}
	if info, _ := os.Stat(filepath.Join(w.project, ".mcp.json")); info.Mode().Perm() != 0o644 {
		t.Errorf("a new project file is %v, not shared like the others' (0644)", info.Mode().Perm())
	}
	for _, args := range [][]string{
		{"add", "x", "--from-registry", "io.github.nobody/nothing"},
		{"add", "x", "--from-registry", "io.github.modelcontextprotocol/server-time", "--remote"},
		{"add", "x", "--from-registry", "io.github.modelcontextprotocol/server-time", "--", "cmd"},
		{"add", "x", "--from-registry", "io.github.modelcontextprotocol/server-time", "--input", "novalue"},
	} {
		if code, _, stderr := w.run(t, args...); code != ExitUsage || stderr == "" {
			t.Errorf("%v: %d %q", args, code, stderr)
		}
	}
}
