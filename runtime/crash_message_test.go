package runtime

import (
	"encoding/json"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// A call that meets a crash names its server and method once: every face
// prints this message ("adhoc: tools/call: connection closed: …"), and the
// transport's own "tools/call: connection closed" must not repeat the method.
func TestCrashedCallNamesItsMethodOnce(t *testing.T) {
	t.Parallel()
	c := newController(t, fakeServer("c", jsonrpctest.CrashOnCall))
	enable(t, c)
	_, err := c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "c", Tool: "echo", Arguments: json.RawMessage(`{"text":"x"}`)})
	const want = "c: tools/call: connection closed: server process exited with status 3; last stderr line: "
	if err == nil || len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
		t.Fatalf("error = %v, want it to start %q", err, want)
	}
}
