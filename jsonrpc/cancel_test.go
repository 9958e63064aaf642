package jsonrpc_test

import (
	"bufio"
	"context"
	"errors"
	"os"
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

// TestBlockedWriteEndsWithItsContext: a server that stopped reading its
// stdin, and a frame larger than the pipe to it: the write blocks, and
// ends when its ctx ends, with the ctx's cause. Before, Stream.Write took
// no ctx and the call waited for the server for as long as it did not
// read (only Close ended it).
func TestBlockedWriteEndsWithItsContext(t *testing.T) {
	s := startServer(t, jsonrpctest.StopReading, serverOpts{})
	initialize(t, s.conn)

	called := make(chan error, 1)
	go func() {
		_, err := s.conn.Call(context.Background(), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}})
		called <- err
	}()
	s.waitStderr(t, "stopped reading")

	stalled := errors.New("the server stopped reading")
	ctx, cancel := context.WithCancelCause(context.Background())
	before := s.conn.Stats().FramesOut
	notified := make(chan error, 1)
	go func() {
		notified <- s.conn.Notify(ctx, "notifications/message", map[string]string{"pad": strings.Repeat("x", 4<<20)})
	}()
	waitFramesOut(t, s.conn, before+1) // the write has begun
	cancel(stalled)
	select {
	case err := <-notified:
		if !errors.Is(err, stalled) {
			t.Errorf("err = %v, want the ctx's cause", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a write blocked on a server that does not read outlived its ctx")
	}

	// A call sent now waits behind what is left of the interrupted frame,
	// and its own ctx ends that wait too.
	cctx, ccancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer ccancel()
	_, err := s.conn.Call(cctx, "ping", nil)
	var ce *jsonrpc.CancelledError
	if !errors.As(err, &ce) || !ce.Timeout {
		t.Errorf("call behind the interrupted frame: err = %v, want a timed-out CancelledError", err)
	}
	_ = s.conn.Close()
	if err := <-called; err == nil {
		t.Error("the unanswered call succeeded")
	}
}

// TestInterruptedWriteKeepsFraming: a write the ctx ended midway leaves
// the rest of its frame to go out first, so the peer, once it reads
// again, reads whole lines: the interrupted frame, then the next one.
func TestInterruptedWriteKeepsFraming(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	st := jsonrpc.NewStdioStream(strings.NewReader(""), w, w, jsonrpc.StdioOptions{})
	defer st.Close()

	big := `{"jsonrpc":"2.0","method":"big","params":{"pad":"` + strings.Repeat("x", 1<<20) + `"}}`
	ctx, cancel := context.WithCancel(context.Background())
	wrote := make(chan error, 1)
	go func() {
		wrote <- st.Write(ctx, jsonrpc.Message{Kind: jsonrpc.KindNotification, Method: "big", Frame: []byte(big)})
	}()
	// The pipe holds far less than the frame: once its first byte can be
	// read the write has begun, and it blocks; then its ctx ends. (A timer
	// could end the ctx before a loaded machine ran the write at all.)
	lines := bufio.NewReaderSize(r, 2<<20)
	first, err := lines.ReadByte()
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-wrote:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the blocked write did not end with its ctx")
	}

	small := `{"jsonrpc":"2.0","method":"small"}`
	go func() {
		wrote <- st.Write(context.Background(), jsonrpc.Message{Kind: jsonrpc.KindNotification, Method: "small", Frame: []byte(small)})
	}()
	for i, want := range []string{big, small} {
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			line = string(first) + line
		}
		if got := strings.TrimSuffix(line, "\n"); got != want {
			t.Fatalf("read a line of %d bytes, want %d (%.40q…)", len(got), len(want), want)
		}
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
}

// TestTimeoutOfAnUnwrittenRequestSaysTheServerStoppedReading: a server
// that stopped reading its stdin, and a request larger than the pipe to
// it: its write is still blocked when its time runs out. The timeout
// says the server stopped reading, not that it did not answer: raising
// the timeout would not help. A request that was written and then not
// answered still says only that it timed out.
func TestTimeoutOfAnUnwrittenRequestSaysTheServerStoppedReading(t *testing.T) {
	t.Parallel()
	s := startServer(t, jsonrpctest.StopReading, serverOpts{})
	initialize(t, s.conn)
	t.Cleanup(func() { _ = s.conn.Close() })

	// Written in full, never answered: the server stops reading after it.
	ctx, cancel := context.WithTimeoutCause(context.Background(), 300*time.Millisecond, jsonrpc.ErrTimeout)
	defer cancel()
	_, err := s.conn.Call(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}})
	var ce *jsonrpc.CancelledError
	if !errors.As(err, &ce) || !ce.Timeout || ce.Unwritten || strings.Contains(err.Error(), jsonrpc.StoppedReading) {
		t.Fatalf("a written, unanswered call: %v (%+v)", err, ce)
	}
	s.waitStderr(t, "stopped reading")

	// Larger than the pipe: the write blocks until the time runs out.
	ctx, cancel = context.WithTimeoutCause(context.Background(), 300*time.Millisecond, jsonrpc.ErrTimeout)
	defer cancel()
	_, err = s.conn.Call(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": strings.Repeat("x", 4<<20)}})
	if !errors.As(err, &ce) || !ce.Timeout || !ce.Unwritten || !errors.Is(err, jsonrpc.ErrTimeout) {
		t.Fatalf("a call whose write was still blocked: %v (%+v)", err, ce)
	}
	if msg := err.Error(); !strings.Contains(msg, jsonrpc.StoppedReading) || !strings.Contains(msg, "still blocked when time ran out") {
		t.Errorf("the timeout of an unwritten request reads %q, want it to say the server stopped reading", msg)
	}
}
