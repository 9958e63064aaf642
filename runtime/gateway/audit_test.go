package gateway

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/config"
)

func readAudit(t *testing.T, path string) []AuditRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []AuditRecord
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r AuditRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("audit line is not JSON: %v\n%s", err, sc.Text())
		}
		out = append(out, r)
	}
	return out
}

// TestAuditLog: every call through the gateway is a line: who, what, the
// arguments as configured (scrubbed here: a password and a token-looking
// value replaced, the rest kept), the outcome (ok, tool_error, refused,
// rate_limited) and the duration; with the digest, equal arguments in
// any key order give equal digests and nothing of them is written.
func TestAuditLog(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "logs", "audit.jsonl")
	audit, err := NewAudit(AuditOptions{File: path, Arguments: config.AuditScrubbed,
		Scrub: func(server string, b []byte) []byte {
			return []byte(strings.ReplaceAll(string(b), "hunter2", config.RedactedValue))
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer audit.Close()
	gw := &config.Gateway{Policy: config.GatewayPolicy{
		Tools:          &config.GatewayRules{Deny: []config.GatewayPattern{{Glob: "demo__sleep", Field: "gateway.tools.deny[0]"}}},
		ToolRateLimits: []config.GatewayToolRate{{Tools: "demo__add", GatewayRate: config.GatewayRate{PerSecond: 0.01, Burst: 1, Field: "gateway.toolRateLimits[0]"}}},
	}}
	g := newGateway(t, newRuntime(t, demoServer("demo")), Options{Config: gw, Audit: audit})
	cs := connect(t, goClient("auditor", newClientEvents()), pipeTransport(t, g), "legacy")
	ctx := ctxFor(t, 30*time.Second)
	call := func(name string, args map[string]any) {
		_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	}
	call("demo__echo", map[string]any{"text": "hunter2 is the password", "password": "letmein", "apiKey": "ghp_0123456789abcdefghijklmnopqrstuvwxyz"})
	call("demo__fail", map[string]any{})
	call("demo__sleep", map[string]any{"ms": 1})
	call("demo__add", map[string]any{"a": 1, "b": 2})
	call("demo__add", map[string]any{"a": 1, "b": 2})

	recs := readAudit(t, path)
	if len(recs) != 5 {
		t.Fatalf("%d audit lines, want 5: %+v", len(recs), recs)
	}
	want := []struct{ tool, outcome string }{{"demo__echo", "ok"}, {"demo__fail", "tool_error"}, {"demo__sleep", "refused"}, {"demo__add", "ok"}, {"demo__add", "rate_limited"}}
	for i, w := range want {
		r := recs[i]
		if r.Tool != w.tool || r.Outcome != w.outcome || r.Method != "tools/call" || r.Client.Name != "auditor" || r.Client.ID == "" ||
			r.RequestID == "" || r.DurationMs < 0 || r.Time.IsZero() || time.Since(r.Time) > time.Minute {
			t.Errorf("line %d: %+v, want %s %s", i, r, w.tool, w.outcome)
		}
	}
	if recs[0].Server != "demo" || recs[2].Code != CodeRefused || !strings.Contains(recs[2].Error, "gateway.tools.deny[0]") || recs[4].Code != CodeRateLimited {
		t.Errorf("server, codes and errors: %+v", recs)
	}
	args := string(recs[0].Arguments)
	if strings.Contains(args, "hunter2") || strings.Contains(args, "letmein") || strings.Contains(args, "ghp_") ||
		!strings.Contains(args, "is the password") || recs[0].ArgumentsSHA256 != "" {
		t.Errorf("scrubbed arguments: %s", args)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("audit file mode: %v %v", st.Mode(), err)
	}

	// The digest: equal for equal arguments, whatever the order; and the
	// arguments themselves never written.
	dpath := filepath.Join(dir, "digest.jsonl")
	da, err := NewAudit(AuditOptions{File: dpath})
	if err != nil {
		t.Fatal(err)
	}
	defer da.Close()
	g2 := newGateway(t, newRuntime(t, demoServer("demo")), Options{Audit: da})
	cs2 := connect(t, goClient("digester", newClientEvents()), pipeTransport(t, g2), "modern")
	for _, raw := range []string{`{"text":"secret plan","n":1}`, `{"n":1,"text":"secret plan"}`, `{"text":"other"}`} {
		var a map[string]any
		_ = json.Unmarshal([]byte(raw), &a)
		_, _ = cs2.CallTool(ctx, &mcp.CallToolParams{Name: "demo__echo", Arguments: a})
	}
	drecs := readAudit(t, dpath)
	if len(drecs) != 3 || drecs[0].ArgumentsSHA256 == "" || drecs[0].ArgumentsSHA256 != drecs[1].ArgumentsSHA256 || drecs[2].ArgumentsSHA256 == drecs[0].ArgumentsSHA256 {
		t.Fatalf("digests: %+v", drecs)
	}
	raw, _ := os.ReadFile(dpath)
	if strings.Contains(string(raw), "secret plan") {
		t.Errorf("the digest log holds the arguments:\n%s", raw)
	}
}

// TestAuditRotation: the log rotates by size into FILE.1, FILE.2, …,
// keeps at most MaxFiles of them, and never splits a line.
func TestAuditRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	r, err := openRotating(path, 1000, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	line := func(i int) []byte { return []byte(fmt.Sprintf(`{"n":%d,"pad":"%s"}`+"\n", i, strings.Repeat("x", 80))) }
	for i := range 100 {
		if _, err := r.write(line(i)); err != nil {
			t.Fatal(err)
		}
	}
	var total int
	for _, name := range []string{path, path + ".1", path + ".2", path + ".3"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(data) > 1000 {
			t.Errorf("%s has %d bytes, over the 1000 bound", name, len(data))
		}
		for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			var v map[string]any
			if json.Unmarshal([]byte(l), &v) != nil {
				t.Errorf("%s: a split line %q", name, l)
			}
			total++
		}
	}
	if _, err := os.Stat(path + ".4"); !os.IsNotExist(err) {
		t.Errorf("a fourth rotated file is kept: %v", err)
	}
	// The newest lines are in the live file, the oldest kept in .3.
	last, _ := os.ReadFile(path)
	if !strings.Contains(string(last), `"n":99,`) || total >= 100 {
		t.Errorf("live file ends %q; %d lines kept", last[max(len(last)-60, 0):], total)
	}
}

// TestAuditUnwritable: a file that cannot be created is an error at once.
func TestAuditUnwritable(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := NewAudit(AuditOptions{File: filepath.Join(blocker, "audit.jsonl")}); err == nil || !strings.Contains(err.Error(), "opening the audit log") {
		t.Errorf("a file under a file: %v", err)
	}
}
