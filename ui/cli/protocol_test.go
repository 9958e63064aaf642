package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// The protocol eras on the built binary: --protocol, the era in servers,
// MRTR and tasks through call.

func TestServersShowTheEra(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{
		"modern": srvFake(jsonrpctest.Modern),
		"legacy": srvFake(jsonrpctest.Normal),
	})
	r := h.run(t, "", "servers", "--json")
	wantCode(t, r, ExitOK)
	out := decodeServers(t, r)
	byName := map[string]serverStatusJSON{}
	for _, s := range out.Servers {
		byName[s.Name] = s
	}
	m, l := byName["modern"], byName["legacy"]
	if m.Era != "modern" || m.ProtocolVersion != "2026-07-28" || m.PingMethod != "server/discover" || m.PingMs == nil || !strings.Contains(m.EraReason, "server/discover") {
		t.Errorf("modern: %+v", m)
	}
	if l.Era != "legacy" || l.ProtocolVersion != "2025-11-25" || l.PingMethod != "ping" || l.PingMs == nil {
		t.Errorf("legacy: %+v", l)
	}
	// The raw JSON carries the keys the help promises.
	for _, key := range []string{`"era": "modern"`, `"pingMethod": "server/discover"`, `"eraReason": `} {
		if !strings.Contains(r.stdout, key) {
			t.Errorf("servers --json lacks %s:\n%s", key, r.stdout)
		}
	}

	r = h.run(t, "", "servers")
	wantCode(t, r, ExitOK)
	if rows := r.stdout; !strings.Contains(rows, "PROTOCOL") || !strings.Contains(rows, "modern 2026-07-28") || !strings.Contains(rows, "legacy 2025-11-25") {
		t.Errorf("the table does not show the eras:\n%s", rows)
	}
}

func TestProtocolFlag(t *testing.T) {
	t.Parallel()
	modernOnly := srvFake(jsonrpctest.Modern)
	pinned := srvFake(jsonrpctest.Normal)
	pinned["protocol"] = "2025-06-18"
	h := newHeadless(t, map[string]map[string]any{"modern": modernOnly, "pinned": pinned})

	// --protocol legacy: a modern-only server cannot be initialized.
	r := h.run(t, "", "--protocol", "legacy", "servers", "modern", "--json")
	wantCode(t, r, ExitConnection)
	if s := decodeServers(t, r).Servers[0]; s.State != "failed" || !strings.Contains(s.Error, "-32022") && !strings.Contains(strings.ToLower(s.Error), "unsupported protocol version") {
		t.Errorf("--protocol legacy on a modern-only server: %+v", s)
	}
	// The server's own setting applies unless the flag is given.
	r = h.run(t, "", "servers", "pinned", "--json")
	wantCode(t, r, ExitOK)
	if s := decodeServers(t, r).Servers[0]; s.Era != "legacy" || s.ProtocolVersion != "2025-06-18" {
		t.Errorf("the server's protocol setting: %+v", s)
	}
	r = h.run(t, "", "--protocol", "auto", "servers", "pinned", "--json")
	wantCode(t, r, ExitOK)
	if s := decodeServers(t, r).Servers[0]; s.ProtocolVersion != "2025-11-25" {
		t.Errorf("--protocol auto over the server's pin: %+v", s)
	}
	// --protocol modern on a legacy server.
	r = h.run(t, "", "servers", "pinned", "--protocol", "modern", "--json")
	wantCode(t, r, ExitConnection)
	if s := decodeServers(t, r).Servers[0]; s.State != "failed" || !strings.Contains(s.Error, "only the legacy revisions") {
		t.Errorf("--protocol modern on a legacy server: %+v", s)
	}
	// A value mcpdeck does not know is a usage error, before anything starts.
	r = h.run(t, "", "--protocol", "1999-01-01", "tools")
	wantCode(t, r, ExitUsage)
	if !strings.Contains(r.stderr, "--protocol") || !strings.Contains(r.stderr, "use auto, legacy, modern") {
		t.Errorf("a bad --protocol: %s", r.stderr)
	}
}

func TestCallModernInputRequired(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"modern": srvFake(jsonrpctest.Modern)})
	r := h.run(t, "", "call", "modern", "ask", "--elicitation", "defaults", "--json")
	wantCode(t, r, ExitOK)
	var res struct {
		Content []struct{ Text string }
		Rounds  int
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || len(res.Content) == 0 || res.Content[0].Text != "Hello, octocat!" || res.Rounds != 2 {
		t.Fatalf("ask through MRTR: %+v %v\n%s", res, err, r.stdout)
	}
	// Declined, the server says so; no retry loop.
	r = h.run(t, "", "call", "modern", "ask")
	wantCode(t, r, ExitOK)
	if !strings.Contains(r.stdout, "No name given (decline)") {
		t.Errorf("declined ask: %s", r.stdout)
	}
}

// A server that asks again for what the CLI declined ends the call at once
// with what to do, not after eight rounds blamed on the server.
func TestCallDeclinedInputAskedAgain(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"m": srvFake(jsonrpctest.ModernEndlessInput)})
	r := h.run(t, "", "call", "m", "ask")
	wantCode(t, r, ExitToolError) // declined, as the README's exit code table says
	for _, want := range []string{"asked again for the input", "after it was declined", "--elicitation defaults"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "rounds") {
		t.Errorf("stderr still tells of the round limit:\n%s", r.stderr)
	}
}

func TestCallModernTaskAndInterrupt(t *testing.T) {
	t.Parallel()
	evidence := filepath.Join(t.TempDir(), "evidence")
	task := srvFake(jsonrpctest.Modern)
	task["env"].(map[string]string)[jsonrpctest.EnvEvidence] = evidence
	h := newHeadless(t, map[string]map[string]any{"m": task})
	r := h.run(t, "", "call", "m", "task", `{"input":true,"seconds":0.2}`, "--elicitation", "defaults")
	wantCode(t, r, ExitOK)
	if !strings.Contains(r.stdout, "task done: accept") || !strings.Contains(r.stderr, "task task-1: input_required") || !strings.Contains(r.stderr, "task task-1: completed") {
		t.Fatalf("a task with input:\nstdout %s\nstderr %s", r.stdout, r.stderr)
	}

	// ctrl+c cancels the task with tasks/cancel.
	p := h.start(t, "call", "m", "task", `{"seconds":60}`)
	p.waitLine(t, true, "the task working", func(l string) bool { return strings.Contains(l, "task task-1: working") })
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t); code != ExitTimeout {
		t.Fatalf("exit status %d after SIGINT, want %d; stderr:\n%s", code, ExitTimeout, strings.Join(p.seenErr, "\n"))
	}
	if !strings.Contains(strings.Join(p.seenErr, "\n"), "tasks/cancel") {
		t.Errorf("stderr does not say the task was cancelled: %s", strings.Join(p.seenErr, "\n"))
	}
	// tasks/cancel was answered before the call returned, and the fake
	// logs it before answering.
	if b, _ := os.ReadFile(evidence); !strings.Contains(string(b), "task cancelled task-1") {
		t.Fatalf("the server never got tasks/cancel; it logged: %q", b)
	}
}

func TestCallEverythingLegacyTask(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"everything": srvEverything(t)})
	r := h.run(t, "", "call", "everything", "simulate-research-query", `{"topic":"go"}`, "--json")
	wantCode(t, r, ExitOK)
	var res struct {
		Content []struct{ Text string }
		TaskID  string
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.TaskID == "" || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "Research Report: go") {
		t.Fatalf("simulate-research-query: %+v %v\n%s\n%s", res, err, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "task "+res.TaskID+": working") {
		t.Errorf("the task's states are not on stderr:\n%s", r.stderr)
	}
}

// call --timeout covers a call that runs as a task: when it passes, the
// task is cancelled (tasks/cancel) and the command exits 4, instead of
// following the task to its end (5 s of research) and exiting 0.
func TestCallTimeoutCoversTheTask(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"everything": srvEverything(t)})
	r := h.run(t, "", "call", "everything", "simulate-research-query", `{"topic":"go"}`, "--timeout", "1s")
	wantCode(t, r, ExitTimeout)
	if !strings.Contains(r.stderr, "timed out after 1s") || !strings.Contains(r.stderr, "tasks/cancel") {
		t.Errorf("stderr does not say the timeout passed and the task was cancelled:\n%s", r.stderr)
	}
	if strings.Contains(r.stdout, "Research Report") {
		t.Errorf("the task ran to its end:\n%s", r.stdout)
	}

	// The same for a task of the 2026-07-28 tasks extension.
	evidence := filepath.Join(t.TempDir(), "evidence")
	task := srvFake(jsonrpctest.Modern)
	task["env"].(map[string]string)[jsonrpctest.EnvEvidence] = evidence
	m := newHeadless(t, map[string]map[string]any{"m": task})
	r = m.run(t, "", "call", "m", "task", `{"seconds":60}`, "--timeout", "1s")
	wantCode(t, r, ExitTimeout)
	if b, _ := os.ReadFile(evidence); !strings.Contains(string(b), "task cancelled task-1") {
		t.Fatalf("the server never got tasks/cancel; it logged: %q\nstderr: %s", b, r.stderr)
	}
}
