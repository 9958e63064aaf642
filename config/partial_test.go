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
