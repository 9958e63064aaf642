package jsonrpc_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// TestCancelNoticeNeverHangsTheCaller: a server that stopped reading its
// stdin, with the pipe to it full and a write blocked on it: cancelling a
// call returns at once. The notice waits for its turn to write on its own
// goroutine, and Close ends it. Before, the notice was written on the
// caller's goroutine behind the connection's write lock, and the caller
// hung as long as the server did not read.
func TestCancelNoticeNeverHangsTheCaller(t *testing.T) {
	t.Parallel()
	s := startServer(t, jsonrpctest.StopReading, serverOpts{})
	initialize(t, s.conn)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	called := make(chan error, 1)
	go func() {
		_, err := s.conn.Call(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}})
		called <- err
	}()
	s.waitStderr(t, "stopped reading")

	// A message larger than the pipe: its write blocks for good, holding
	// the connection's turn to write.
	before := s.conn.Stats().FramesOut
	blocked := make(chan error, 1)
	go func() {
		blocked <- s.conn.Notify(context.Background(), "notifications/message", map[string]string{"pad": strings.Repeat("x", 4<<20)})
	}()
	waitFramesOut(t, s.conn, before+1)

	cancel()
	select {
	case err := <-called:
		var ce *jsonrpc.CancelledError
		if !errors.As(err, &ce) {
			t.Errorf("err = %v, want a CancelledError", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled call waited for its cancellation notice to be written to a server that does not read")
	}
	if got := s.conn.Stats().CancelNotificationSent; got != 0 {
		t.Errorf("CancelNotificationSent = %d, though the server's stdin is full", got)
	}

	closed := make(chan struct{})
	go func() {
		defer close(closed)
		_ = s.conn.Close()
	}()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hangs on the blocked write or the pending notice")
	}
	if err := <-blocked; err == nil {
		t.Error("the blocked write reported success after Close")
	}
}

// waitFramesOut waits until the connection has begun writing n frames.
func waitFramesOut(t *testing.T, c *jsonrpc.Conn, n uint64) {
	t.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for c.Stats().FramesOut < n {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("frames out = %d, want %d", c.Stats().FramesOut, n)
		}
	}
}
