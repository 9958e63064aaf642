package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
)

// TestReplayEndsAsTheSessionDid records what a one-shot command such as
// `mcpdeck call` does to a real demo server, with a log level, roots and
// a subscription as the command line gives them: a successful call, a
// tool error, a call cancelled mid-way, then the shutdown. Replayed to
// its end, the recording shows every server exactly as the runtime's own
// Snapshot did after the shutdown, and the call history the runtime
// kept, call for call.
func TestReplayEndsAsTheSessionDid(t *testing.T) {
	t.Parallel()
	cfg := configOf(demoServer("demo"))
	c := runtime.New(runtime.Options{Config: cfg, StopGrace: 500 * time.Millisecond, LogLevel: "notice", Roots: []string{t.TempDir()}})
	t.Cleanup(func() { shutdown(t, c) })
	r, path := startRecorder(t, c, cfg)
	w, unwatch := watch(c)
	defer unwatch()
	ctx := ctxFor(t, 60*time.Second)
	if err := c.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	if err := c.SubscribeResource(ctx, "demo", "demo://status"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(ctx, runtime.CallRequest{Server: "demo", Tool: "echo", Arguments: json.RawMessage(`{"text": "the end state"}`)}); err != nil {
		t.Fatal(err)
	}
	if res, err := c.Call(ctx, runtime.CallRequest{Server: "demo", Tool: "fail"}); err != nil || !res.IsError {
		t.Fatalf("fail: %+v %v", res, err)
	}
	var id atomic.Uint64
	callErr := make(chan error, 1)
	go func() {
		_, err := c.Call(ctx, runtime.CallRequest{Server: "demo", Tool: "sleep", Arguments: json.RawMessage(`{"seconds":30}`),
			OnStarted: func(n uint64) { id.Store(n) }})
		callErr <- err
	}()
	w.waitFor(t, "progress of the sleep call", func(e runtime.Event) bool {
		p, ok := e.(runtime.Progress)
		return ok && p.RequestID != 0 && p.RequestID == id.Load()
	})
	c.Cancel("demo", id.Load(), "the person pressed x")
	if err := <-callErr; !errors.Is(err, jsonrpc.ErrCancelled) {
		t.Fatalf("the cancelled call: %v", err)
	}
	shutdown(t, c)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	want := c.Snapshot()
	history, _ := c.History()

	rec, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	end := len(rec.Entries) - 1
	got := rec.SnapshotAt(end)
	if len(got.Servers) != len(want.Servers) {
		t.Fatalf("%d servers replayed, %d in the session", len(got.Servers), len(want.Servers))
	}
	for i := range want.Servers {
		g, w := reflect.ValueOf(got.Servers[i]), reflect.ValueOf(want.Servers[i])
		for f := 0; f < g.NumField(); f++ {
			if !reflect.DeepEqual(g.Field(f).Interface(), w.Field(f).Interface()) {
				t.Errorf("%s's %s at the end: replayed %+v, the session %+v", want.Servers[i].Name, g.Type().Field(f).Name, g.Field(f).Interface(), w.Field(f).Interface())
			}
		}
	}
	if got.DroppedEvents != want.DroppedEvents {
		t.Errorf("dropped events: replayed %d, the session %d", got.DroppedEvents, want.DroppedEvents)
	}
	if v, _ := got.Server("demo"); v.LogLevel != "notice" || len(v.Roots) != 1 {
		t.Errorf("the level and roots in force: %q %v", v.LogLevel, v.Roots)
	}

	calls := rec.CallsAt(end)
	if len(calls) != len(history) || len(history) != 3 {
		t.Fatalf("replayed %d calls, the session's history has %d (want 3)", len(calls), len(history))
	}
	for i, h := range history[:2] {
		sameCall(t, calls[i], h)
	}
	// The cancelled call: cancelled, with the person's reason, in the
	// session and in the replay alike, although the server's progress
	// notifications arrived while it waited.
	cancelled, h := calls[2], history[2]
	if h.Status != runtime.CallCancelled || cancelled.Status != runtime.CallCancelled || cancelled.Err == nil || cancelled.Err.Kind != runtime.KindCancelled ||
		!strings.Contains(cancelled.Err.Message, "the person pressed x") {
		t.Errorf("the cancelled call replays as %+v (%+v); the session kept %+v (%+v)", cancelled, cancelled.Err, h, h.Err)
	}
	sameCall(t, cancelled, h)
	// Each call is in the history from the entry where it finished on.
	for i, e := range rec.Entries {
		n := 0
		for _, e := range rec.Entries[:i+1] {
			if isToolCall(e.Event) {
				n++
			}
		}
		if got := len(rec.CallsAt(i)); got != n {
			t.Fatalf("at entry %d (%s) the history has %d calls, %d had finished", i, e.Kind, got, n)
		}
	}
}

func isToolCall(e runtime.Event) bool {
	switch ev := e.(type) {
	case runtime.RequestFinished:
		return ev.Method == "tools/call" && ev.Continues == ""
	case runtime.RequestCancelled:
		return ev.Method == "tools/call"
	}
	return false
}

// sameCall compares a rebuilt call with the runtime's record of it; the
// durations are measured at different points and only have to be there.
func sameCall(t *testing.T, got, want runtime.CallRecord) {
	t.Helper()
	var ga, wa bytes.Buffer
	_ = json.Compact(&ga, got.Arguments)
	_ = json.Compact(&wa, want.Arguments)
	if got.Seq != want.Seq || got.Server != want.Server || got.Tool != want.Tool || ga.String() != wa.String() ||
		got.Status != want.Status || got.RequestID != want.RequestID || got.Started.Before(want.Started) {
		t.Errorf("call %d: replayed %+v\nthe session %+v", want.Seq, got, want)
	}
	if got.Duration <= 0 {
		t.Errorf("call %d has no duration", want.Seq)
	}
	switch {
	case (got.Result == nil) != (want.Result == nil):
		t.Errorf("call %d: replayed result %+v, the session's %+v", want.Seq, got.Result, want.Result)
	case want.Result != nil:
		g, w := *got.Result, *want.Result
		g.Duration, w.Duration = 0, 0
		if !reflect.DeepEqual(g, w) {
			t.Errorf("call %d's result: replayed %+v\nthe session %+v", want.Seq, g, w)
		}
	}
	switch {
	case (got.Err == nil) != (want.Err == nil):
		t.Errorf("call %d: replayed error %+v, the session's %+v", want.Seq, got.Err, want.Err)
	case want.Err != nil && (got.Err.Kind != want.Err.Kind || got.Err.Message != want.Err.Message || got.Err.Code != want.Err.Code):
		t.Errorf("call %d's error: replayed %+v\nthe session %+v", want.Seq, *got.Err, *want.Err)
	}
}
