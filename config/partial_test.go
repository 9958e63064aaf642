package config

import (
	"errors"
	"strings"
	"testing"
)

func TestKeepInvalidKeepsTheOtherServers(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	layout(t, w.project, map[string]string{".mcp.json": `{"mcpServers": {
  "memory": {"command": "npx", "args": ["-y", "server-memory"]},
  "broken": {"command": "x", "timeout": "5 s"}
}}`})
	if _, err := Load(w.opts()); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a strict load of a bad server: %v, want ErrInvalid", err)
	}
	opts := w.opts()
	opts.KeepInvalid = true
	cfg, err := Load(opts)
	if err != nil {
		t.Fatalf("KeepInvalid: %v", err)
	}
	memory, ok := cfg.Server("memory")
	if !ok || memory.Invalid != nil || memory.Command != "npx" {
		t.Fatalf("memory = %+v, %v", memory, ok)
	}
	broken, ok := cfg.Server("broken")
	if !ok || broken.Invalid == nil {
		t.Fatalf("broken = %+v, %v", broken, ok)
	}
	msg := broken.Invalid.Error()
	if !strings.Contains(msg, ".mcp.json:3:") || !strings.Contains(msg, `"timeout"`) || !errors.Is(broken.Invalid, ErrInvalid) {
		t.Errorf("broken.Invalid = %q", msg)
	}
	if got := cfg.InvalidServers(); len(got) != 1 || got[0].Name != "broken" {
		t.Errorf("InvalidServers = %v", names(got))
	}
}

func TestKeepInvalidStillFailsFileProblems(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	layout(t, w.project, map[string]string{".mcp.json": `{"mcpServers": {"a": {"command": "x"}`})
	opts := w.opts()
	opts.KeepInvalid = true
	if _, err := Load(opts); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a syntax error with KeepInvalid: %v, want ErrInvalid", err)
	}
}

// TestKeepInvalidKeepsTheOtherServersPastABadEnvFile: a bad line in one
// server's envFile makes that server invalid, not the whole configuration:
// its diagnostic names the envFile's line, another file than the server's
// definition, and is still the server's own.
func TestKeepInvalidKeepsTheOtherServersPastABadEnvFile(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	layout(t, w.project, map[string]string{
		".mcp.json": `{"mcpServers": {
  "memory": {"command": "npx", "args": ["-y", "server-memory"]},
  "local": {"command": "node", "envFile": ".env"}
}}`,
		".env": "GOOD=1\nBADLINE\n",
	})
	opts := w.opts()
	opts.Approved = func(File) bool { return true }
	if _, err := Load(opts); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a strict load of a bad envFile: %v, want ErrInvalid", err)
	}
	opts.KeepInvalid = true
	cfg, err := Load(opts)
	if err != nil {
		t.Fatalf("KeepInvalid with one server's envFile bad: %v", err)
	}
	if memory, ok := cfg.Server("memory"); !ok || memory.Invalid != nil {
		t.Errorf("memory = %+v, %v", memory, ok)
	}
	local, ok := cfg.Server("local")
	if !ok || local.Invalid == nil {
		t.Fatalf("local = %+v, %v", local, ok)
	}
	if msg := local.Invalid.Error(); !strings.Contains(msg, ".env:2:1") || !strings.Contains(msg, `"BADLINE"`) {
		t.Errorf("local.Invalid = %q", msg)
	}
}
