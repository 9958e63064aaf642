package check

import (
	"encoding/json"
	"strings"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// A server that never started has said nothing on stdout: the item is
// skipped with the reason, never passed.
func TestStdoutCleanSkipsWhenTheServerNeverStarted(t *testing.T) {
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
	c := &checker{tools: []runtime.Tool{{Server: "s", ServerTool: "read_file", Name: "s__read_file",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}}
	st, reason := c.cancellation()
	if st != Skip || !strings.Contains(reason, "mid-flight") || !strings.Contains(reason, "read_file") {
		t.Errorf("cancellation = %s %q, want SKIP naming the instant tool", st, reason)
	}
}

func TestCountsAgree(t *testing.T) {
	for n, want := range map[int]string{0: "0 tools", 1: "1 tool", 14: "14 tools"} {
		if got := count(n, "tool", "tools"); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}
