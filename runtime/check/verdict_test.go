package check

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// A server that never started has said nothing on stdout: the item is
// skipped with the reason, never passed.
func TestStdoutCleanSkipsWhenTheServerNeverStarted(t *testing.T) {
	t.Parallel()
	rep := runCheck(t, fake(jsonrpctest.ExitEarly), testOptions)
	it, _ := rep.Item(IDStdoutClean)
	if it.Status != Skip || !strings.Contains(it.Reason, "never exercised") {
		t.Errorf("stdout-clean = %s %q, want SKIP: the server never started", it.Status, it.Reason)
	}
}

// With only instant tools there is nothing to cancel mid-flight: the
// answer may cross the cancellation, which the spec allows, so the item
// is skipped with that reason rather than warned about.
func TestCancellationSkipsWithoutASlowTool(t *testing.T) {
	t.Parallel()
	c := &checker{tools: []runtime.Tool{{Server: "s", ServerTool: "read_file", Name: "s__read_file",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}}
	st, reason := c.cancellation()
	if st != Skip || !strings.Contains(reason, "mid-flight") || !strings.Contains(reason, "read_file") {
		t.Errorf("cancellation = %s %q, want SKIP naming the instant tool", st, reason)
	}
}

func TestCountsAgree(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0 tools", 1: "1 tool", 14: "14 tools"} {
		if got := count(n, "tool", "tools"); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}

// A tool that takes ten steps, with progress after each, longer in all than
// the call timeout: the call waits as long as progress comes (progress
// extends the wait), and the items that need a slow call use it, so no item
// calls it quick while another waited on it. Nothing in its name or
// description says it is slow; what it did in the call step says it.
func TestSlowToolWithProgressVerdictsAgree(t *testing.T) {
	t.Parallel()
	rep := runCheck(t, fake(jsonrpctest.SteadyProgress, jsonrpctest.WithDelay(300*time.Millisecond)),
		Options{CallTimeout: time.Second, StopGrace: time.Second})
	call, _ := rep.Item(IDCall)
	if call.Status != Pass || !strings.Contains(call.Reason, "process {} answered in") || !strings.Contains(call.Reason, "progress notifications") {
		t.Errorf("call = %s %q, want PASS after waiting on the tool's progress", call.Status, call.Reason)
	}
	for _, id := range []string{IDCancellation, IDReconnect} {
		it, _ := rep.Item(id)
		if strings.Contains(it.Reason, "at once") {
			t.Errorf("%s = %s %q calls the tool quick, while the call step waited %s on it", id, it.Status, it.Reason, call.Reason)
		}
	}
	if it, _ := rep.Item(IDCancellation); it.Status != Pass || !strings.Contains(it.Reason, "cancelled process {} mid-flight") {
		t.Errorf("cancellation = %s %q, want the slow tool cancelled mid-flight", it.Status, it.Reason)
	}
}

// Progress extends the wait up to a bound: a tool still reporting progress
// when the check's limit passes is not called unanswered; the item says it
// kept reporting progress past the limit.
func TestProgressExtendsTheWaitUpToTheLimit(t *testing.T) {
	t.Parallel()
	rep := runCheck(t, fake(jsonrpctest.SteadyProgress, jsonrpctest.WithDelay(300*time.Millisecond)),
		Options{CallTimeout: time.Second, MaxCallTime: 1500 * time.Millisecond, StopGrace: time.Second})
	it, _ := rep.Item(IDCall)
	if it.Status != Warn || !strings.Contains(it.Reason, "kept reporting progress") || !strings.Contains(it.Reason, "1.5s") || strings.Contains(it.Reason, "no response") {
		t.Errorf("call = %s %q, want WARN: progress past the check's limit of 1.5s", it.Status, it.Reason)
	}
	if it, _ := rep.Item(IDCancellation); it.Status != Pass {
		t.Errorf("cancellation = %s %q, want the tool the call step waited on cancelled mid-flight", it.Status, it.Reason)
	}
}

// A tool the runtime left out (a 2026-07-28 HTTP server's tool whose
// x-mcp-header annotations break the rules: every HTTP client must drop
// it) fails tools-list by name; the tool count stays the one tools shows.
func TestToolsListNamesDroppedTools(t *testing.T) {
	t.Parallel()
	c := &checker{obs: &observer{changed: make(chan struct{})},
		tools:   []runtime.Tool{{ServerTool: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		dropped: []runtime.DroppedTool{{Name: "lookup", Reason: "invalid x-mcp-header annotation: property q: x-mcp-header is only allowed on string, integer or boolean properties"}}}
	st, reason := c.toolsList()
	if st != Fail || !strings.Contains(reason, `tool "lookup" was listed but left out`) || !strings.Contains(reason, "x-mcp-header") {
		t.Errorf("tools-list = %s %q, want FAIL naming the dropped tool and why", st, reason)
	}
}

// A tool that answers a failure as ordinary text ("Error: fetch failed")
// without isError gets a warning naming it; the call step goes on to a
// tool that works.
func TestErrorTextWithoutIsErrorWarns(t *testing.T) {
	t.Parallel()
	rep := runCheck(t, fake(jsonrpctest.ErrorText), testOptions)
	it, _ := rep.Item(IDCall)
	if it.Status != Warn || !strings.Contains(it.Reason, `echo {"text":"test"} answered "Error: fetch failed" without isError`) || !strings.Contains(it.Reason, "set isError: true") {
		t.Errorf("call = %s %q, want WARN naming echo and its text", it.Status, it.Reason)
	}
}

func TestReadsLikeError(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		"Error: fetch failed":                       true,
		"error: no such file":                       true,
		"TypeError: fetch failed":                   true,
		"java.lang.IllegalStateException: closed":   true,
		"Traceback (most recent call last):\n  ...": true,
		"request to https://x failed, reason: connect ECONNREFUSED 127.0.0.1:443": true,
		"Upstream said: 500 Internal Server Error":                                true,
		"Failed to open the page":                                                 true,
		"hello":                                                                   false,
		"Errors found: none":                                                      false,
		"The error rate is 0.1% (last hour)":                                      false,
		"3 exceptions were logged yesterday":                                      false,
	} {
		_, got := readsLikeError(&runtime.Result{Content: []runtime.Content{{Type: "text", Text: text}}})
		if got != want {
			t.Errorf("readsLikeError(%q) = %v, want %v", text, got, want)
		}
	}
}

// A tool that reported progress and then went silent for a whole call
// timeout is told so, not "no response": it did say something.
func TestTimeoutAfterProgressSaysSo(t *testing.T) {
	t.Parallel()
	c := &checker{opts: Options{CallTimeout: time.Second}.withDefaults(),
		obs: &observer{changed: make(chan struct{}), events: []runtime.Event{runtime.Progress{RequestID: 7}, runtime.Progress{RequestID: 7}, runtime.Progress{RequestID: 8}}}}
	got := c.callFailure("process", json.RawMessage(`{}`), &runtime.CancelledError{ID: 7, Method: "tools/call", Timeout: true})
	if !strings.Contains(got, "process {} sent 2 progress notifications, then neither progress nor a response for 1.0s") {
		t.Errorf("callFailure = %q", got)
	}
	if got := c.callFailure("echo", json.RawMessage(`{}`), &runtime.CancelledError{ID: 9, Method: "tools/call", Timeout: true}); !strings.Contains(got, "got no response within 1.0s") {
		t.Errorf("callFailure without progress = %q", got)
	}
}

// What a server left running is named with pid and command line, the
// ones that left its process group apart: nothing stops those.
func TestLeftoverReason(t *testing.T) {
	t.Parallel()
	got := leftoverReason([]runtime.LeftoverProcess{{Pid: 41, Command: "node worker.js"}, {Pid: 42, Command: "chrome --headless", LeftGroup: true}})
	for _, want := range []string{"left 1 process of its process group running: pid 41 (node worker.js)", "left 1 process that moved out of its process group", "pid 42 (chrome --headless), still running", "stop every process you start"} {
		if !strings.Contains(got, want) {
			t.Errorf("leftoverReason = %q, want it to say %q", got, want)
		}
	}
}
