package check

import (
	"strings"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// A tool named with --tool that crashes the server fails the call step, and
// that one only: the steps after it run on a fresh connection and judge the
// server's own answers, never blaming the earlier crash on the arguments
// they send.
func TestCrashInNamedCallIsThatStepsFinding(t *testing.T) {
	t.Parallel()
	opts := testOptions
	opts.Tool = "crash"
	rep := runCheck(t, fake(jsonrpctest.Normal), opts)
	if it, _ := rep.Item(IDCall); it.Status != Fail || !strings.Contains(it.Reason, "closed the connection during crash") {
		t.Errorf("call = %s %q, want FAIL for the crash", it.Status, it.Reason)
	}
	for _, id := range []string{IDInvalidInput, IDActionableErrors} {
		if it, _ := rep.Item(id); it.Status != Pass {
			t.Errorf("%s = %s %q, want PASS: the server answers it on a fresh connection", id, it.Status, it.Reason)
		}
	}
}
