package jsonrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
)

func TestCallRoundTrip(t *testing.T) {
	t.Parallel()
	s := startServer(t, jsonrpctest.Mode("normal"), serverOpts{})
	initialize(t, s.conn)
	ctx := ctxTimeout(t, 10*time.Second)

	raw, err := callTool(ctx, s.conn, "echo", map[string]any{"text": "hello"})
	if err != nil {
		t.Fatalf("echo: %v", err)
	}
	var res struct {
		Content []struct{ Type, Text string }
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].Text != "hello" {
		t.Fatalf("echo result = %s", raw)
	}
	if out := s.conn.Outstanding(); len(out) != 0 {
		t.Fatalf("outstanding after completion: %+v", out)
	}
	if st := s.conn.Stats(); st.FramesIn < 2 || st.FramesOut < 3 {
		t.Fatalf("frame counters: %+v", st)
	}
}

func TestErrorResponseIsTyped(t *testing.T) {
	t.Parallel()
	s := startServer(t, "normal", serverOpts{})
	initialize(t, s.conn)
	_, err := callTool(ctxTimeout(t, 10*time.Second), s.conn, "no-such-tool", map[string]any{})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("err = %v, want a -32602 *jsonrpc.Error", err)
	}
	if !strings.Contains(rpcErr.Message, "no-such-tool") {
		t.Fatalf("message %q does not name the tool", rpcErr.Message)
	}
	_, err = s.conn.Call(ctxTimeout(t, 10*time.Second), "no/such/method", nil)
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeMethodNotFound {
		t.Fatalf("unknown method err = %v, want -32601", err)
	}
}

func TestCrashDuringCallRejectsOutstandingWithExitStatus(t *testing.T) {
	t.Parallel()
	s := startServer(t, "crash-on-call", serverOpts{})
	initialize(t, s.conn)
	_, err := callTool(ctxTimeout(t, 10*time.Second), s.conn, "echo", map[string]any{"text": "x"})
	var closed *jsonrpc.ClosedError
	if !errors.As(err, &closed) || !errors.Is(err, jsonrpc.ErrClosed) {
		t.Fatalf("err = %v, want *ClosedError", err)
	}
	if !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("error %q does not carry the exit status", err)
	}
	select {
	case <-s.conn.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("connection not done after the server exited")
	}
	// Later calls fail at once with the same cause.
	_, err = s.conn.Call(context.Background(), "ping", nil)
	if !errors.Is(err, jsonrpc.ErrClosed) || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("call after close: %v", err)
	}
}

func TestNoiseOnStdoutIsSkippedAndReported(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var anomalies []jsonrpc.Anomaly
	s := startServer(t, "noise", serverOpts{conn: jsonrpc.Options{OnAnomaly: func(a jsonrpc.Anomaly) {
		mu.Lock()
		anomalies = append(anomalies, a)
		mu.Unlock()
	}}})
	initialize(t, s.conn)
	raw, err := callTool(ctxTimeout(t, 10*time.Second), s.conn, "echo", map[string]any{"text": "through the noise"})
	if err != nil || !strings.Contains(string(raw), "through the noise") {
		t.Fatalf("echo through noise: %s, %v", raw, err)
	}
	if n := s.conn.Stats().NoiseLines; n == 0 {
		t.Fatal("no noise lines counted")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(anomalies) == 0 || (anomalies[0].Kind != jsonrpc.AnomalyNoise && anomalies[0].Kind != jsonrpc.AnomalyInvalid) || len(anomalies[0].Raw) == 0 {
		t.Fatalf("anomalies = %+v, want noise with a copy of the line", anomalies)
	}
}

func TestOversizedMessageFailsTheStream(t *testing.T) {
	t.Parallel()
	s := startServer(t, "oversized", serverOpts{
		std: jsonrpc.StdioOptions{MaxMessageSize: 1 << 20},
		env: []jsonrpctest.Option{jsonrpctest.WithEnv("MCPDECK_FAKE_SIZE", "3000000")},
	})
	initialize(t, s.conn)
	_, err := callTool(ctxTimeout(t, 20*time.Second), s.conn, "echo", map[string]any{"text": "x"})
	if !errors.Is(err, jsonrpc.ErrClosed) || !errors.Is(err, jsonrpc.ErrMessageTooLarge) {
		t.Fatalf("err = %v, want closed with ErrMessageTooLarge", err)
	}
	if !strings.Contains(err.Error(), "1048576-byte limit") {
		t.Fatalf("error %q does not state the limit", err)
	}
}

func TestTimeoutSendsCancelled(t *testing.T) {
	t.Parallel()
	s := startServer(t, "hang", serverOpts{})
	initialize(t, s.conn)
	var id uint64
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := s.conn.Call(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}},
		jsonrpc.WithIDFunc(func(i uint64) { id = i }))
	var ce *jsonrpc.CancelledError
	if !errors.As(err, &ce) || !errors.Is(err, jsonrpc.ErrTimeout) || !errors.Is(err, jsonrpc.ErrCancelled) {
		t.Fatalf("err = %v, want a timeout CancelledError", err)
	}
	if ce.ID != id {
		t.Fatalf("cancelled id %d, sent id %d", ce.ID, id)
	}
	s.waitStderr(t, "cancelled "+jsonrpc.FormatID(id))
	// The server still answers afterwards.
	if _, err := s.conn.Call(ctxTimeout(t, 5*time.Second), "ping", nil); err != nil {
		t.Fatalf("ping after cancel: %v", err)
	}
	if got := s.conn.Stats().CancelNotificationSent; got != 1 {
		t.Fatalf("cancel notifications sent = %d, want 1", got)
	}
}

func TestCancelByID(t *testing.T) {
	t.Parallel()
	s := startServer(t, "hang", serverOpts{})
	initialize(t, s.conn)
	ids := make(chan uint64, 1)
	errc := make(chan error, 1)
	go func() {
		_, err := s.conn.Call(context.Background(), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}},
			jsonrpc.WithLabel("echo"), jsonrpc.WithIDFunc(func(i uint64) { ids <- i }))
		errc <- err
	}()
	id := <-ids
	out := waitOutstanding(t, s.conn, 1)
	if out[0].ID != id || out[0].Method != "tools/call" || out[0].Label != "echo" {
		t.Fatalf("outstanding = %+v", out)
	}
	if !s.conn.Cancel(id, "user pressed x") {
		t.Fatal("Cancel reported the request not outstanding")
	}
	select {
	case err := <-errc:
		var ce *jsonrpc.CancelledError
		if !errors.As(err, &ce) || ce.Reason != "user pressed x" || errors.Is(err, jsonrpc.ErrTimeout) {
			t.Fatalf("err = %v, want a user CancelledError", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelled call did not return")
	}
	s.waitStderr(t, "user pressed x")
	if s.conn.Cancel(id, "again") {
		t.Fatal("Cancel of a finished request reported true")
	}
}

func waitOutstanding(t *testing.T, c *jsonrpc.Conn, n int) []jsonrpc.Outstanding {
	t.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	deadline := time.After(5 * time.Second)
	for {
		if out := c.Outstanding(); len(out) == n {
			return out
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("outstanding never reached %d: %+v", n, c.Outstanding())
		}
	}
}

func TestWrongIDIsNeverMatched(t *testing.T) {
	t.Parallel()
	anomalies := make(chan jsonrpc.Anomaly, 8)
	s := startServer(t, "wrong-id", serverOpts{conn: jsonrpc.Options{OnAnomaly: func(a jsonrpc.Anomaly) { anomalies <- a }}})
	initialize(t, s.conn)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	var id uint64
	_, err := s.conn.Call(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}},
		jsonrpc.WithIDFunc(func(i uint64) { id = i }))
	if !errors.Is(err, jsonrpc.ErrTimeout) {
		t.Fatalf("err = %v, want a timeout: a wrong id must not complete the call", err)
	}
	select {
	case a := <-anomalies:
		if a.Kind != jsonrpc.AnomalyUnknownResponse || a.ID != jsonrpc.FormatID(id+1000) {
			t.Fatalf("anomaly = %+v, want unknown response id %d", a, id+1000)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("unknown response not reported")
	}
	if got := s.conn.Stats().UnknownResponses; got != 1 {
		t.Fatalf("unknown responses = %d, want 1", got)
	}
}

func TestNotificationNeverCompletesARequest(t *testing.T) {
	t.Parallel()
	notes := make(chan jsonrpc.Notification, 8)
	s := startServer(t, "notify-instead", serverOpts{conn: jsonrpc.Options{OnNotification: func(n jsonrpc.Notification) { notes <- n }}})
	initialize(t, s.conn)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err := callTool(ctx, s.conn, "echo", map[string]any{"text": "x"})
	if !errors.Is(err, jsonrpc.ErrTimeout) {
		t.Fatalf("err = %v, want a timeout: a notification must not complete the call", err)
	}
	select {
	case n := <-notes:
		if n.Method != "notifications/message" {
			t.Fatalf("notification = %+v", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the notification sent instead of a response was not delivered")
	}
}

func TestCloseRejectsOutstanding(t *testing.T) {
	t.Parallel()
	s := startServer(t, "hang", serverOpts{})
	initialize(t, s.conn)
	errc := make(chan error, 1)
	go func() {
		_, err := callTool(context.Background(), s.conn, "echo", map[string]any{"text": "x"})
		errc <- err
	}()
	waitOutstanding(t, s.conn, 1)
	if err := s.conn.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, jsonrpc.ErrClosed) || !errors.Is(err, jsonrpc.ErrClosedByClient) {
			t.Fatalf("err = %v, want closed by client", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("outstanding call not rejected by Close")
	}
	if !errors.Is(s.conn.Err(), jsonrpc.ErrClosedByClient) {
		t.Fatalf("Err() = %v", s.conn.Err())
	}
}

func TestTraceSeesEveryFrame(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var frames []jsonrpc.Frame
	s := startServer(t, "normal", serverOpts{conn: jsonrpc.Options{Trace: func(f jsonrpc.Frame) {
		mu.Lock()
		frames = append(frames, f)
		mu.Unlock()
	}}})
	initialize(t, s.conn)
	if _, err := callTool(ctxTimeout(t, 5*time.Second), s.conn, "echo", map[string]any{"text": "traced"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var sawReq, sawResp, sawNotif bool
	for _, f := range frames {
		switch {
		case f.Dir == jsonrpc.Out && f.Kind == jsonrpc.KindRequest && f.Method == "tools/call":
			sawReq = strings.Contains(string(f.Raw), "traced") && f.Size == len(f.Raw) && f.ID != ""
		case f.Dir == jsonrpc.In && f.Kind == jsonrpc.KindResult && f.Method == "tools/call":
			sawResp = f.ID != "" && f.Size > 0
		case f.Dir == jsonrpc.Out && f.Kind == jsonrpc.KindNotification && f.Method == "notifications/initialized":
			sawNotif = f.ID == ""
		}
	}
	if !sawReq || !sawResp || !sawNotif {
		t.Fatalf("trace missing frames (request %v, response %v, notification %v): %+v", sawReq, sawResp, sawNotif, frames)
	}
}

func TestNotificationsInOrderLossless(t *testing.T) {
	t.Parallel()
	const count = 20000
	var got []float64
	done := make(chan struct{})
	s := startServer(t, "normal", serverOpts{conn: jsonrpc.Options{
		Lossless:           true,
		NotificationBuffer: 64,
		OnNotification: func(n jsonrpc.Notification) {
			if n.Method != "notifications/message" {
				return
			}
			var p struct{ Data struct{ Seq float64 } }
			_ = json.Unmarshal(n.Params, &p)
			got = append(got, p.Data.Seq)
			if len(got) == count {
				close(done)
			}
		},
	}})
	initialize(t, s.conn)
	if _, err := callTool(ctxTimeout(t, 30*time.Second), s.conn, "flood", map[string]any{"count": count}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("delivered %d of %d", len(got), count)
	}
	for i, seq := range got {
		if int(seq) != i {
			t.Fatalf("notification %d has seq %v: out of order or lost", i, seq)
		}
	}
	if d := s.conn.Stats().DroppedNotifications; d != 0 {
		t.Fatalf("lossless mode dropped %d", d)
	}
}

func TestSlowConsumerDropsOldestAndCounts(t *testing.T) {
	t.Parallel()
	const count = 5000
	release := make(chan struct{})
	var mu sync.Mutex
	var got []float64
	s := startServer(t, "normal", serverOpts{conn: jsonrpc.Options{
		NotificationBuffer: 16,
		OnNotification: func(n jsonrpc.Notification) {
			<-release // a consumer that has stalled
			var p struct{ Data struct{ Seq float64 } }
			_ = json.Unmarshal(n.Params, &p)
			mu.Lock()
			got = append(got, p.Data.Seq)
			mu.Unlock()
		},
	}})
	initialize(t, s.conn)
	// The call completes although the consumer is stalled: the read loop never blocks.
	if _, err := callTool(ctxTimeout(t, 30*time.Second), s.conn, "flood", map[string]any{"count": count}); err != nil {
		t.Fatalf("flood with a stalled consumer: %v", err)
	}
	close(release)
	s.conn.Close()
	dropped := s.conn.Stats().DroppedNotifications
	mu.Lock()
	defer mu.Unlock()
	if dropped == 0 || uint64(len(got))+dropped != count {
		t.Fatalf("delivered %d + dropped %d != %d", len(got), dropped, count)
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("out of order at %d: %v after %v", i, got[i], got[i-1])
		}
	}
	if got[len(got)-1] != count-1 {
		t.Fatalf("newest notification %v not kept", got[len(got)-1])
	}
}
