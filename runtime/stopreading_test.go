package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// TestCallToAServerThatStoppedReading: a server that stopped reading its
// stdin (a real child process, its pipe full) is called with arguments
// larger than the pipe: the call times out with a message that says the
// server stopped reading, not that it did not answer, and it is still a
// timeout. The call before it, written in full and never answered, is a
// plain timeout.
func TestCallToAServerThatStoppedReading(t *testing.T) {
	t.Parallel()
	c := newController(t, fakeServer("f", jsonrpctest.StopReading))
	enable(t, c)
	call := func(text string) error {
		_, err := c.Call(context.Background(), CallRequest{Server: "f", Tool: "echo",
			Arguments: json.RawMessage(`{"text":"` + text + `"}`), Timeout: 500 * time.Millisecond})
		return err
	}
	err := call("x") // the server reads it, then stops reading
	if KindOf(err) != KindTimeout || strings.Contains(err.Error(), StoppedReading) {
		t.Fatalf("the call the server read and never answered: %v (kind %s)", err, KindOf(err))
	}
	err = call(strings.Repeat("x", 4<<20))
	var ce *CallError
	if !errors.As(err, &ce) || ce.Info.Kind != KindTimeout || !errors.Is(err, ErrTimeout) {
		t.Fatalf("the call whose write blocked: %v, want a timeout", err)
	}
	if !strings.Contains(ce.Info.Message, StoppedReading) {
		t.Errorf("the call whose write was still blocked when time ran out reads %q, want it to say %q", ce.Info.Message, StoppedReading)
	}
}
