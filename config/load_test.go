package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layout writes files (path → content) under root.
func layout(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// world is a project directory and a home directory, with the
// environment pointing at them.
type world struct {
	project, home, userDir string
	env                    map[string]string
}

func newWorld(t *testing.T) world {
	t.Helper()
	root := t.TempDir()
	w := world{project: filepath.Join(root, "proj"), home: filepath.Join(root, "home")}
	w.userDir = filepath.Join(w.home, ".config", "mcpdeck")
	w.env = map[string]string{"HOME": w.home}
	for _, d := range []string{w.project, w.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w world) opts() LoadOptions {
	return LoadOptions{
		ProjectDir: w.project, LookupEnv: fakeEnv(w.env),
		Default: []byte(`{"mcpServers": {"demo": {"command": "${mcpdeck}", "args": ["demo-server"]}}}`), DefaultName: "<embedded>",
		Vars: map[string]string{"mcpdeck": "/opt/mcpdeck"},
	}
}

func names(servers []Server) []string {
	var out []string
	for _, s := range servers {
		out = append(out, s.Name+"@"+string(s.Scope))
	}
	return out
}

func TestLoadDefaultWhenNothingFound(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	cfg, err := Load(w.opts())
	if err != nil {
		t.Fatal(err)
	}
	if got := names(cfg.Servers); !slices.Equal(got, []string{"demo@default"}) {
		t.Fatalf("servers = %q", got)
	}
	s := cfg.Servers[0]
	if s.Command != "/opt/mcpdeck" || s.Source != "<embedded>" {
		t.Errorf("demo = %q from %q, want /opt/mcpdeck from <embedded>", s.Command, s.Source)
	}
	if len(cfg.Files) != 1 || cfg.Files[0].Scope != ScopeDefault || len(cfg.Files[0].Hash) != 64 {
		t.Errorf("files = %+v", cfg.Files)
	}
}

func TestLoadMergesScopesNearestWins(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	layout(t, w.project, map[string]string{
		".mcp.json":        `{"mcpServers": {"shared": {"command": "from-dot-mcp"}, "a": {"command": "a"}}}`,
		".vscode/mcp.json": `{"servers": {"shared": {"command": "from-vscode"}, "b": {"url": "https://b.example/mcp"}}}`,
		".cursor/mcp.json": `{"mcpServers": {"c": {"command": "c"}}}`,
	})
	layout(t, w.userDir, map[string]string{
		"mcp.json": `{"mcpServers": {"shared": {"command": "from-user"}, "mine": {"command": "mine"}}}`,
	})
	cfg, err := Load(w.opts())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a@project", "b@project", "c@project", "mine@user", "shared@project"}
	if got := names(cfg.Servers); !slices.Equal(got, want) {
		t.Fatalf("servers = %q, want %q", got, want)
	}
	shared, ok := cfg.Server("shared")
	if !ok || shared.Command != "from-dot-mcp" || shared.Source != filepath.Join(w.project, ".mcp.json") {
		t.Errorf("shared = %+v, want the .mcp.json definition", shared)
	}
	var losers []string
	for _, sh := range cfg.Shadowed {
		losers = append(losers, sh.Server.Command)
		if sh.Winner != shared.Source || sh.WinnerScope != ScopeProject || sh.Name != "shared" {
			t.Errorf("shadowed = %+v", sh)
		}
	}
	if !slices.Equal(losers, []string{"from-vscode", "from-user"}) {
		t.Errorf("shadowed = %q, want vscode then user", losers)
	}
	var scopes []string
	for _, f := range cfg.Files {
		scopes = append(scopes, string(f.Scope)+":"+strings.TrimPrefix(f.Path, filepath.Dir(w.project)))
	}
	wantFiles := []string{"project:/proj/.mcp.json", "project:/proj/.vscode/mcp.json", "project:/proj/.cursor/mcp.json", "user:/home/.config/mcpdeck/mcp.json"}
	if !slices.Equal(scopes, wantFiles) {
		t.Errorf("files = %q, want %q", scopes, wantFiles)
	}
	if _, ok := cfg.Server("nope"); ok {
		t.Error("Server(nope) found something")
	}
}

func TestLoadExplicitExcludesDiscovery(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	layout(t, w.project, map[string]string{".mcp.json": `{"mcpServers": {"p": {"command": "p"}}}`})
	layout(t, w.userDir, map[string]string{"mcp.json": `{"mcpServers": {"u": {"command": "u"}}}`})
	dir := t.TempDir()
	layout(t, dir, map[string]string{
		"one.json": `{"mcpServers": {"x": {"command": "one"}}}`,
		"two.json": `{"mcpServers": {"x": {"command": "two"}, "y": {"command": "y"}}}`,
	})
	opts := w.opts()
	opts.Files = []string{filepath.Join(dir, "one.json"), filepath.Join(dir, "two.json"), filepath.Join(dir, "one.json")}
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(cfg.Servers); !slices.Equal(got, []string{"x@explicit", "y@explicit"}) {
		t.Fatalf("servers = %q", got)
	}
	if x, _ := cfg.Server("x"); x.Command != "one" {
		t.Errorf("x = %q, want the first --config file to win", x.Command)
	}
	if len(cfg.Files) != 2 {
		t.Errorf("files = %+v, want the repeated file read once", cfg.Files)
	}
}

func TestLoadUserConfigFromXDG(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	xdg := t.TempDir()
	w.env["XDG_CONFIG_HOME"] = xdg
	layout(t, filepath.Join(xdg, "mcpdeck"), map[string]string{"mcp.json": `{"mcpServers": {"x": {"command": "x"}}}`})
	cfg, err := Load(w.opts())
	if err != nil {
		t.Fatal(err)
	}
	if got := names(cfg.Servers); !slices.Equal(got, []string{"x@user"}) {
		t.Fatalf("servers = %q", got)
	}
}

func TestLoadReportsEveryErrorAcrossFiles(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	layout(t, w.project, map[string]string{
		".mcp.json": `{"mcpServers": {"a": {"command": 1}, "b": {}}}`,
		"mcp.json":  `{"mcpServers": {"c": {"url": "ftp://x"}, "ok": {"command": "x", "extra": 1}}}`,
	})
	opts := w.opts()
	opts.Files = nil
	cfg, err := Load(opts)
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("error = %v, want Errors", err)
	}
	if len(errs) != 3 {
		t.Fatalf("got %d errors, want 3:\n%v", len(errs), err)
	}
	if errs[0].Server != "a" || errs[1].Server != "b" || errs[2].Server != "c" {
		t.Errorf("errors not in file order: %v", err)
	}
	if cfg == nil || len(cfg.Servers) != 0 || len(cfg.Files) != 2 || len(cfg.Warnings) != 1 {
		t.Errorf("an invalid load must return files and warnings but no servers: %+v", cfg)
	}
}

func TestLoadMissingExplicitFile(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	opts := w.opts()
	missing := filepath.Join(t.TempDir(), "nope.json")
	opts.Files = []string{missing}
	_, err := Load(opts)
	want := missing + ": cannot read: no such file or directory; check the --config path"
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v\nwant %s", err, want)
	}
}

func TestLoadUnreadableProjectEntry(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	// A directory where a file is expected must be reported, not skipped.
	if err := os.MkdirAll(filepath.Join(w.project, "mcp.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Load(w.opts())
	if err == nil || !strings.Contains(err.Error(), "mcp.json: cannot read: not a regular file") {
		t.Fatalf("error = %v, want a report about the directory", err)
	}
}

func TestLoadSecretsIncludeShadowed(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	layout(t, w.project, map[string]string{".mcp.json": `{"mcpServers": {"s": {"command": "x", "env": {"API_KEY": "project-secret"}}}}`})
	layout(t, w.userDir, map[string]string{"mcp.json": `{"mcpServers": {"s": {"command": "x", "env": {"API_KEY": "user-secret"}}}}`})
	cfg, err := Load(w.opts())
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Secrets(); !slices.Equal(got, []string{"project-secret", "user-secret"}) {
		t.Fatalf("Secrets() = %q", got)
	}
}
