package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mcpdeck/config"
	"mcpdeck/runtime"
)

// project is a real project directory with a .mcp.json of demo servers
// (this test binary), a trust store of its own, and the loader the CLI
// wires into the TUI: only an approved file is read in full.
type project struct {
	t     *testing.T
	dir   string
	trust *config.TrustStore
}

func newProject(t *testing.T) *project {
	t.Helper()
	ts, err := config.OpenTrustStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &project{t: t, dir: t.TempDir(), trust: ts}
}

// write replaces the project's .mcp.json with servers (name → definition).
func (p *project) write(servers map[string]any) {
	p.t.Helper()
	data, err := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	if err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.dir, ".mcp.json"), data, 0o600); err != nil {
		p.t.Fatal(err)
	}
}

// load reads the project's configuration as the CLI does.
func (p *project) load() (*config.Config, error) {
	return config.Load(config.LoadOptions{ProjectDir: p.dir, UserConfigDir: filepath.Join(p.dir, "no-user-config"),
		KeepInvalid: true, Approved: p.trust.Trusted, LookupEnv: func(k string) (string, bool) {
			if k == "DEMO_SECRET" {
				return "from-the-environment-0123456789", true
			}
			return os.LookupEnv(k)
		}})
}

// options wires the project into the UI as the CLI does.
func (p *project) options(cfg *config.Config) func(*Options) {
	return func(o *Options) {
		o.Reload = p.load
		o.Config = cfg
		o.Untrusted = cfg.Untrusted(p.trust)
		o.Trust = p.trust.Trust
		o.Pending = func(c *config.Config) []config.File { return c.Untrusted(p.trust) }
	}
}

// start writes servers to the project file and runs the TUI on it, on
// the real runtime, with the approval the file asks for on screen.
func (p *project) start(servers map[string]any) (*harness, *runtime.Controller) {
	p.t.Helper()
	p.write(servers)
	cfg, err := p.load()
	if err != nil {
		p.t.Fatal(err)
	}
	hs, rt := startReal(p.t, runtime.Options{Config: cfg}, 140, 40, p.options(cfg))
	hs.waitText("Approve project configuration?")
	return hs, rt
}

// demoDef is a demo server's definition in a project file.
func demoDef(t *testing.T, env map[string]string) map[string]any {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]any{envDemo: "1", "GORACE": "atexit_sleep_ms=0"}
	for k, v := range env {
		e[k] = v
	}
	return map[string]any{"command": exe, "args": []string{"-test.run=^$"}, "env": e, "pingInterval": "1m"}
}

// Approving a changed project file on reload restarts only the server
// whose definition changed: the others keep their live connections (the
// same process), and none is left "not approved" waiting for a second r.
func TestReloadApprovalKeepsTheUnchangedServers(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	hs, rt := p.start(map[string]any{"one": demoDef(t, nil), "two": demoDef(t, nil)})
	// m on the approval shown at start asks for MCP: y switches it on.
	hs.keys("m")
	hs.waitText("MCP switches on once you approve")
	hs.keys("y")
	hs.waitText("servers 2/2 ready")
	before := pids(t, rt)

	// two's env gains a key and loses one, three is new, bad is invalid.
	p.write(map[string]any{"one": demoDef(t, nil), "two": demoDef(t, map[string]string{"LOG_LEVEL": "debug"}),
		"bad": map[string]any{"command": "x", "timeout": "5 s"}})
	hs.keys("r")
	v := hs.waitText("Approve the changed project configuration?", "new servers: bad",
		"two (stdio) changed", "diff  env: added LOG_LEVEL",
		"bad (invalid)", `server "bad": field "timeout": "5`, "is not a duration")
	if strings.Contains(v, "debug") || strings.Contains(v, "bad ()") {
		t.Fatalf("the dialog shows an env value or an invalid server without its reason:\n%s", v)
	}
	hs.keys("y")
	v = hs.waitText("Configuration reloaded", "restarted two", "kept      one")
	if strings.Contains(v, "restarted one") {
		t.Fatalf("the unchanged server was restarted:\n%s", v)
	}
	hs.keys("esc")
	hs.waitText("servers 2/3 ready")
	after := pids(t, rt)
	if after["one"] != before["one"] {
		t.Errorf("one's process changed from %d to %d: its live connection was not kept", before["one"], after["one"])
	}
	if after["two"] == before["two"] {
		t.Errorf("two still runs process %d: its changed definition was not applied", after["two"])
	}
	for _, s := range rt.Snapshot().Servers {
		if strings.Contains(s.Note, "not approved") {
			t.Errorf("%s is %q after the approval", s.Name, s.Note)
		}
	}
}

// pids is each live server's process id.
func pids(t *testing.T, rt *runtime.Controller) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, s := range rt.Snapshot().Servers {
		if s.State == runtime.StateInvalid {
			continue
		}
		if s.PID == 0 {
			t.Fatalf("%s has no process: %s %s", s.Name, s.State, s.Reason)
		}
		out[s.Name] = s.PID
	}
	return out
}

// A server the changed file no longer defines is named in the approval:
// approving stops it.
func TestReloadApprovalNamesRemovedServers(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	hs, _ := p.start(map[string]any{"one": demoDef(t, nil), "gone": demoDef(t, nil)})
	hs.keys("n")
	hs.waitText("MCP stays off")
	hs.keys("m")
	hs.waitText("Approve project configuration?")
	hs.keys("y")
	hs.waitText("servers 2/2 ready")

	p.write(map[string]any{"one": demoDef(t, nil)})
	hs.keys("r")
	hs.waitText("Approve the changed project configuration?", "removed: gone", "gone removed: it stops")
	hs.keys("y")
	hs.waitText("Configuration reloaded", "removed   gone", "kept      one")
}
