package record

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime"
)

// loadWithInvalid loads a real configuration file in which two servers are
// broken (one has neither command nor url, one a bad field) and the demo
// server is fine: the broken ones are kept, marked Invalid.
func loadWithInvalid(t *testing.T) *config.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp.json")
	demo := demoServer("demo")
	body := `{"mcpServers": {
  "demo": {"command": ` + quote(demo.Command) + `, "args": ["-test.run=^$"], "env": {"` + envDemo + `": "1", "GORACE": "atexit_sleep_ms=0"}},
  "broken": {"env": {"A": "b"}},
  "badfield": {"command": "x", "startupTimeout": "soon"}
}}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{Files: []string{path}, KeepInvalid: true})
	if cfg == nil {
		t.Fatalf("load: %v", err)
	}
	if n := len(cfg.InvalidServers()); n != 2 {
		t.Fatalf("%d invalid servers, want 2 (err %v)", n, err)
	}
	return cfg
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }

// TestInvalidServerReplays records a real session whose configuration has
// invalid servers next to a working one. The recording reads back: the
// header keeps each invalid server's diagnostics, and the state at every
// position shows it invalid with its file:line:col message, as the
// session did.
func TestInvalidServerReplays(t *testing.T) {
	t.Parallel()
	cfg := loadWithInvalid(t)
	c := newController(t, cfg)
	r, path := startRecorder(t, c, cfg)
	w, unwatch := watch(c)
	defer unwatch()
	ctx := ctxFor(t, 30*time.Second)
	if err := c.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "demo ready", readyAgain("demo"))
	live := c.Snapshot()
	shutdown(t, c)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}

	rec, err := ReadFile(path)
	if err != nil {
		t.Fatalf("a recording with invalid servers does not read: %v", err)
	}
	for _, want := range cfg.InvalidServers() {
		var got *config.Server
		for i := range rec.Header.Servers {
			if rec.Header.Servers[i].Name == want.Name {
				got = &rec.Header.Servers[i]
			}
		}
		if got == nil || got.Invalid == nil {
			t.Fatalf("header server %s: %+v, want it invalid", want.Name, got)
		}
		if got.Invalid.Error() != want.Invalid.Error() || !errors.Is(got.Invalid, config.ErrInvalid) {
			t.Errorf("%s's problem reads back as %q, want %q", want.Name, got.Invalid, want.Invalid)
		}
		for _, at := range []int{0, len(rec.Entries) - 1} {
			v, ok := rec.SnapshotAt(at).Server(want.Name)
			lv, _ := live.Server(want.Name)
			if !ok || v.State != runtime.StateInvalid || v.Note != lv.Note || !strings.Contains(v.Note, want.Invalid.Error()) {
				t.Errorf("%s at entry %d: state %s, note %q; want invalid, %q", want.Name, at, v.State, v.Note, lv.Note)
			}
		}
	}
	if v, _ := rec.SnapshotAt(len(rec.Entries) - 1).Server("demo"); v.State == runtime.StateInvalid {
		t.Errorf("the working server reads as invalid")
	}
}

// TestReadsOldInvalidHeaders: recordings of format 1.0 that hold an
// invalid server, as mcpdeck wrote them before 1.1 (diagnostics, which it
// could not read back; testdata/invalid-server-1.0.jsonl was written by
// such a build), and with an error it wrote as {} or a string, replay.
func TestReadsOldInvalidHeaders(t *testing.T) {
	t.Parallel()
	rec, err := ReadFile("testdata/invalid-server-1.0.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Header.Version != "1.0" {
		t.Fatalf("the fixture is version %s, want 1.0", rec.Header.Version)
	}
	invalid := map[string]string{}
	for _, s := range rec.Header.Servers {
		if s.Invalid != nil {
			invalid[s.Name] = s.Invalid.Error()
		}
	}
	if !strings.Contains(invalid["broken"], `neither "command" nor "url" is set`) ||
		!strings.Contains(invalid["badfield"], `field "startupTimeout": "soon" is not a duration`) || len(invalid) != 2 {
		t.Errorf("invalid servers read from the 1.0 file: %q", invalid)
	}
	if v, _ := rec.SnapshotAt(len(rec.Entries) - 1).Server("broken"); v.State != runtime.StateInvalid || !strings.Contains(v.Note, "neither") {
		t.Errorf("broken at the end: %s %q", v.State, v.Note)
	}

	for shape, want := range map[string]string{
		`{}`:                   invalidUnknown,
		`"startupTimeout: no"`: "startupTimeout: no",
		`{"Message":"bad"}`:    "bad",
	} {
		line := `{"kind":"header","format":"mcpdeck-recording","version":"1.0","started":"2026-12-01T03:16:35Z","part":1,` +
			`"servers":[{"Name":"x","Enabled":true,"Invalid":` + shape + `}]}` + "\n"
		rec, err := Read(strings.NewReader(line))
		if err != nil {
			t.Errorf("Invalid %s: %v", shape, err)
			continue
		}
		if got := rec.Header.Servers[0].Invalid; got == nil || got.Error() != want {
			t.Errorf("Invalid %s reads as %v, want %q", shape, got, want)
		}
	}
}

// TestInvalidOfAnyErrorRoundTrips: an Invalid that is not config.Errors
// (a Server built in code) is written as one diagnostic with its text.
func TestInvalidOfAnyErrorRoundTrips(t *testing.T) {
	t.Parallel()
	h := Header{Kind: "header", Format: Format, Version: FormatVersion, Part: 1,
		Servers: []config.Server{{Name: "x", Invalid: errors.New(`mcp.json:3:17: "timeout": "5 s" is not a duration`)}, {Name: "ok"}}}
	b, err := marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := Read(strings.NewReader(string(b) + "\n"))
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if got := rec.Header.Servers[0].Invalid; got == nil || got.Error() != h.Servers[0].Invalid.Error() {
		t.Errorf("read back %v", got)
	}
	if rec.Header.Servers[1].Invalid != nil {
		t.Errorf("a valid server reads back invalid: %v", rec.Header.Servers[1].Invalid)
	}
}
