package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseRootsAndLogLevel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := []byte(`{
  "roots": ["~/notes", "shared"],
  "mcpServers": {
    "fs": {"command": "fs", "roots": ["file:///srv/data", "${workspaceFolder}/docs", "/srv/data"], "logLevel": "debug"},
    "plain": {"command": "plain"},
    "none": {"command": "none", "roots": []}
  }
}`)
	opts := LoadOptions{ProjectDir: dir, LookupEnv: fakeEnv(map[string]string{"HOME": "/home/ada"})}
	servers, warns, err := Parse(filepath.Join(dir, "mcp.json"), data, ScopeExplicit, opts)
	if err != nil || len(warns) > 0 {
		t.Fatalf("Parse: %v, warnings %v", err, warns)
	}
	byName := map[string]Server{}
	for _, s := range servers {
		byName[s.Name] = s
	}
	if got, want := byName["fs"].Roots, []string{"/srv/data", filepath.Join(dir, "docs"), "/srv/data"}; !slices.Equal(got, want) {
		t.Errorf("fs roots = %q, want %q", got, want)
	}
	if byName["fs"].LogLevel != "debug" || byName["plain"].LogLevel != "" {
		t.Errorf("log levels: fs %q, plain %q", byName["fs"].LogLevel, byName["plain"].LogLevel)
	}
	// The file's top-level roots are the roots of its servers without their own.
	if got, want := byName["plain"].Roots, []string{"/home/ada/notes", filepath.Join(dir, "shared")}; !slices.Equal(got, want) {
		t.Errorf("plain roots = %q, want the file's %q", got, want)
	}
	if len(byName["none"].Roots) != 0 {
		t.Errorf("an empty roots list must offer none, got %q", byName["none"].Roots)
	}
}

func TestParseRootsAndLogLevelErrors(t *testing.T) {
	t.Parallel()
	data := []byte(`{"mcpServers": {
  "a": {"command": "a", "logLevel": "loud"},
  "b": {"command": "b", "roots": "/tmp"},
  "c": {"command": "c", "roots": [""]}
}}`)
	_, _, err := Parse("/p/mcp.json", data, ScopeExplicit, LoadOptions{ProjectDir: "/p"})
	if err == nil {
		t.Fatal("no error for a bad log level and bad roots")
	}
	msg := err.Error()
	for _, want := range []string{`mcp.json:2:37: server "a": field "logLevel": "loud" is not a log level; use one of debug, info`,
		`server "b": field "roots": must be an array of strings`, `server "c": field "roots[0]": is empty`} {
		if !strings.Contains(msg, want) {
			t.Errorf("errors lack %q:\n%s", want, msg)
		}
	}
}
