package runtime

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// A sentence that names the server says the error after it once
// (ErrorAfterServer, AboutServer), as errorInfo says the method once:
// "server "c" has failed: c: …" named c twice. The wrapped error keeps its
// kind; a server's error said after another server's name keeps its own.
func TestErrorAfterItsServerNamesItOnce(t *testing.T) {
	t.Parallel()
	c := newController(t, fakeServer("c", jsonrpctest.CrashOnCall))
	enable(t, c)
	_, err := c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "c", Tool: "echo", Arguments: json.RawMessage(`{"text":"x"}`)})
	if err == nil || !strings.HasPrefix(err.Error(), "c: tools/call: ") {
		t.Fatalf("error = %v, want it to name c and tools/call", err)
	}
	if got := ErrorAfterServer("c", err); !strings.HasPrefix(got, "tools/call: connection closed") {
		t.Errorf("after c: %q, want it to start with the method", got)
	}
	about := AboutServer(`server "c" failed`, "c", err)
	if !strings.HasPrefix(about.Error(), `server "c" failed: tools/call: `) || KindOf(about) != KindExited || !errors.Is(about, ErrClosed) {
		t.Errorf("AboutServer: %q (kind %v)", about, KindOf(about))
	}
	if got := ErrorAfterServer("other", err); got != err.Error() {
		t.Errorf("after another server's name: %q, want c kept", got)
	}
	v, _ := c.Snapshot().Server("c")
	if v.LastError != nil && strings.HasPrefix(v.LastError.Detail(), "c: ") {
		t.Errorf("Detail names c: %q", v.LastError.Detail())
	}
}
