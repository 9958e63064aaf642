package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// countingElicitor answers every elicitation with a fixed name and counts.
type countingElicitor struct {
	name string
	n    atomic.Int32
	err  error
}

func (e *countingElicitor) Elicit(context.Context, ElicitRequest) (ElicitResponse, error) {
	e.n.Add(1)
	if e.err != nil {
		return ElicitResponse{}, e.err
	}
	return ElicitResponse{Action: "accept", Content: map[string]any{"name": e.name}}, nil
}

func (e *countingElicitor) Roots(context.Context, string) ([]Root, error) { return nil, ErrNotAnswered }

// The go-sdk peer's ask tool elicits a name: inside its answer
// (input_required) when spoken to in the 2026-07-28 era, with a
// server→client request in the legacy era. The question goes to the
// responder of the call it belongs to, else to the Controller's Elicitor.
func TestResponderRoutesElicitationToTheCaller(t *testing.T) {
	t.Parallel()
	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) { responderRoutes(t, era) })
	}
}

func responderRoutes(t *testing.T, era string) {
	global := &countingElicitor{name: "operator"}
	srv := fakeServer("peer", jsonrpctest.GoSDKModern)
	srv.Protocol = era
	c := New(Options{Config: configOf(srv), Elicitor: global, StopGrace: 500 * time.Millisecond})
	t.Cleanup(func() { c.Shutdown(context.Background()) })
	enable(t, c)
	ctx := ctxFor(t, 30*time.Second)
	ask := func(ctx context.Context) string {
		t.Helper()
		res, err := c.Call(ctx, CallRequest{Server: "peer", Tool: "ask"})
		if err != nil {
			t.Fatalf("ask: %v", err)
		}
		return res.Content[0].Text
	}

	caller := &countingElicitor{name: "octocat"}
	if got := ask(WithResponder(ctx, caller)); got != "Hello, octocat!" || caller.n.Load() != 1 || global.n.Load() != 0 {
		t.Fatalf("with a responder: %q (caller asked %d, global %d)", got, caller.n.Load(), global.n.Load())
	}
	if got := ask(ctx); got != "Hello, operator!" || global.n.Load() != 1 {
		t.Fatalf("without one: %q (global asked %d)", got, global.n.Load())
	}
	shy := &countingElicitor{err: ErrNotAnswered}
	if got := ask(WithResponder(ctx, shy)); got != "Hello, operator!" || shy.n.Load() != 1 || global.n.Load() != 2 {
		t.Fatalf("a responder that passes: %q (asked %d, global %d)", got, shy.n.Load(), global.n.Load())
	}

	// Another caller's request in flight: a modern server's question still
	// names its request; a legacy server's is ambiguous, and the
	// session-wide Elicitor answers it.
	want := "Hello, octocat!"
	if era == "legacy" {
		want = "Hello, operator!"
	}
	other := &countingElicitor{name: "mallory"}
	started := make(chan uint64, 1)
	var wg sync.WaitGroup
	wg.Go(func() {
		_, _ = c.Call(WithResponder(ctx, other), CallRequest{Server: "peer", Tool: "slow", Arguments: json.RawMessage(`{"seconds":30}`),
			OnStarted: func(id uint64) { started <- id }})
	})
	id := <-started
	if got := ask(WithResponder(ctx, caller)); got != want || other.n.Load() != 0 {
		t.Fatalf("two callers in flight: %q, want %q (other asked %d)", got, want, other.n.Load())
	}
	c.Cancel("peer", id, "test is done")
	wg.Wait()
}

func TestBridgeNames(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("p", 80)
	names := BridgeNames(map[string][]string{"a": {"greet", "x.y", long}, "a.": {"greet"}})
	if names[[2]string{"a", "greet"}] != "a__greet" || names[[2]string{"a", "x.y"}] != "a__x_y" {
		t.Errorf("plain names: %v", names)
	}
	if n := names[[2]string{"a", long}]; len(n) != 64 {
		t.Errorf("long name %q is not cut to 64", n)
	}
	// "a.__greet" sanitizes to a___greet, distinct from a__greet: both stay.
	if names[[2]string{"a.", "greet"}] == names[[2]string{"a", "greet"}] {
		t.Errorf("collision: %v", names)
	}
}
