package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mcpdeck/config"
)

// --trust-project --enable in a new directory approves through the store
// the TUI then asks, so the TUI shows no dialog and switches MCP on.
func TestTrustProjectReachesTheTUIStore(t *testing.T) {
	w := richWorld(t)
	t.Chdir(w.project)
	cfg, err := loadRunnable(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Unapproved()) == 0 {
		t.Fatal("the project files should start unapproved")
	}
	if err := approveProject(cfg, true); err != nil {
		t.Fatal(err)
	}
	// runTUI opens its store after --trust-project approved, and reads the
	// configuration again: nothing is left to ask about.
	ts, err := config.OpenTrustStore("")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err = loadRunnable(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Untrusted(ts); len(got) != 0 || len(cfg.Unapproved()) != 0 {
		t.Fatalf("after --trust-project the TUI would still ask about %v", got)
	}
}

// One server with an invalid field does not stop the others: it is shown
// as invalid with its file:line:col error and never started, every other
// server works, and config validate still fails.
func TestOneInvalidServerDoesNotBlockTheRest(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})
	data, err := os.ReadFile(h.cfg)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["mcpServers"]["broken"] = map[string]any{"command": "no-such-command", "timeout": "5 s"}
	data, _ = json.MarshalIndent(doc, "", "  ")
	if err := os.WriteFile(h.cfg, data, 0o600); err != nil {
		t.Fatal(err)
	}
	where := filepath.Base(h.cfg) + ":"

	r := h.run(t, "", "call", "demo", "echo", `{"text":"hi"}`)
	wantCode(t, r, ExitOK)
	if !strings.Contains(r.stdout, "hi") {
		t.Errorf("call demo echo printed %q", r.stdout)
	}

	// servers lists every server, and exits 2: one configuration is
	// invalid (the README's exit code table).
	r = h.run(t, "", "servers")
	wantCode(t, r, ExitUsage)
	var brokenRow string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "broken ") {
			brokenRow = l
		}
	}
	if !strings.Contains(brokenRow, "invalid") || !strings.Contains(r.stdout+r.stderr, where) || !strings.Contains(r.stdout, "demo") {
		t.Errorf("servers does not show broken as invalid with its position:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}

	r = h.run(t, "", "call", "broken", "anything")
	wantCode(t, r, ExitUsage)
	if !strings.Contains(r.stderr, `"timeout"`) || !strings.Contains(r.stderr, where) {
		t.Errorf("call broken says %q, want its file:line:col error", r.stderr)
	}

	r = h.run(t, "", "config", "validate")
	wantCode(t, r, ExitUsage)
}
