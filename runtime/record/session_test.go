package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// watcher is a lossless subscriber: what the runtime published, in order,
// for comparison with what the recording holds.
type watcher struct {
	ch   <-chan runtime.Event
	seen []runtime.Event
}

func watch(c *runtime.Controller) (*watcher, func()) {
	ch, cancel := c.Subscribe(runtime.SubscribeOptions{Lossless: true, Buffer: 1 << 16})
	return &watcher{ch: ch}, cancel
}

func (w *watcher) waitFor(t *testing.T, what string, match func(runtime.Event) bool) runtime.Event {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case e, ok := <-w.ch:
			if !ok {
				t.Fatalf("stream closed waiting for %s", what)
			}
			w.seen = append(w.seen, e)
			if match(e) {
				return e
			}
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// rest reads what is left once the runtime has shut down and unsubscribed.
func (w *watcher) rest() {
	for e := range w.ch {
		w.seen = append(w.seen, e)
	}
}

func readyAgain(server string) func(runtime.Event) bool {
	return func(e runtime.Event) bool {
		sc, ok := e.(runtime.StateChanged)
		return ok && sc.Server == server && sc.To == runtime.StateReady
	}
}

// TestRecordDemoSession records a session against the demo server with
// calls, progress, a cancellation, a reconnect, pings, logs and a reload,
// and reads it back: every event the runtime published is in the file, in
// order, and decodes to the same value.
func TestRecordDemoSession(t *testing.T) {
	t.Parallel()
	srv := demoServer("demo", "MCPDECK_RECORD_TEST_LOG_INTERVAL", "50ms")
	srv.PingInterval = 100 * time.Millisecond
	cfg := configOf(srv)
	c := newController(t, cfg)
	w, unwatch := watch(c)
	r, path := startRecorder(t, c, cfg, func(o *Options) { o.SampleEvery = 100 * time.Millisecond })
	ctx := ctxFor(t, 60*time.Second)
	if err := c.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(ctx, runtime.CallRequest{Server: "demo", Tool: "echo", Arguments: json.RawMessage(`{"text":"hello recording"}`)}); err != nil {
		t.Fatal(err)
	}
	if res, err := c.Call(ctx, runtime.CallRequest{Server: "demo", Tool: "add", Arguments: json.RawMessage(`{"a":2,"b":3}`)}); err != nil || res.Content[0].Text != "5" {
		t.Fatalf("add: %+v %v", res, err)
	}
	// A long call: wait for its progress, then cancel it.
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
	if !c.Cancel("demo", id.Load(), "the test cancels it") {
		t.Fatal("cancel found no request")
	}
	if err := <-callErr; !errors.Is(err, jsonrpc.ErrCancelled) {
		t.Fatalf("cancelled call: %v", err)
	}
	w.waitFor(t, "a ping answer", func(e runtime.Event) bool {
		tf, ok := e.(runtime.TrafficFrame)
		return ok && tf.Frame.Method == "ping" && tf.Frame.Dir == runtime.In
	})
	if err := c.Reconnect(ctx, "demo"); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "ready after the reconnect", readyAgain("demo"))
	if _, err := c.Reload(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	shutdown(t, c)
	unwatch()
	w.rest()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}

	rec, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Truncated {
		t.Error("a cleanly closed recording reads as truncated")
	}
	// Every event the lossless subscriber saw is in the file, and decodes
	// to the same value.
	var fromBus []Entry
	count := map[string]int{}
	for _, e := range rec.Entries {
		count[e.Kind]++
		if e.Seq > 2 && e.Kind != "Live" {
			fromBus = append(fromBus, e)
		}
	}
	sameEvents(t, w.seen, fromBus)
	for _, k := range []string{"StateChanged", "Published", "LogMessage", "Progress", "RequestStarted", "RequestFinished",
		"RequestCancelled", "TrafficFrame", "Live", "ReloadPlanned"} {
		if count[k] == 0 {
			t.Errorf("no %s in the recording (kinds %v)", k, count)
		}
	}
	// Frames carry the era, learned from the initialize result.
	eras := map[string]int{}
	pid := 0
	for _, e := range rec.Entries {
		if tf, ok := e.Event.(runtime.TrafficFrame); ok && tf.Frame.Method == "tools/call" {
			eras[e.Era]++
		}
		if l, ok := e.Event.(Live); ok && len(l.Servers) == 1 && l.Servers[0].PID != 0 {
			pid = l.Servers[0].PID
		}
	}
	if eras[EraLegacy] == 0 || len(eras) != 1 {
		t.Errorf("eras of tools/call frames: %v, want all legacy", eras)
	}
	if pid == 0 {
		t.Error("no live sample has the server's pid")
	}
	if rp := lastOf[ReloadPlanned](rec); rp == nil || len(rp.Plan.Keep) != 1 {
		t.Errorf("reload plan: %+v", rp)
	}
}

func lastOf[T runtime.Event](rec *Recording) *T {
	for i := len(rec.Entries) - 1; i >= 0; i-- {
		if v, ok := rec.Entries[i].Event.(T); ok {
			return &v
		}
	}
	return nil
}

// TestSecretsNeverReachTheFile records a server that puts its configured
// secret into a tool description, is called with that secret, and is
// called with a token only the recorder knows (as a logged-in OAuth token
// would be): neither appears in the file, the redaction mark does.
func TestSecretsNeverReachTheFile(t *testing.T) {
	t.Parallel()
	const secret = "sk-test-5ecret-value"
	const token = "oauth-access-token-77"
	srv := fakeServer("leaky", jsonrpctest.SecretLeak, jsonrpctest.WithSecret(secret))
	cfg := configOf(srv)
	c := newController(t, cfg)
	r, path := startRecorder(t, c, cfg, func(o *Options) { o.Secrets = []string{token} })
	ctx := ctxFor(t, 30*time.Second)
	if err := c.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{secret, token, `quote"` + token} {
		args, _ := json.Marshal(map[string]string{"text": text})
		if _, err := c.Call(ctx, runtime.CallRequest{Server: "leaky", Tool: "echo", Arguments: args}); err != nil {
			t.Fatal(err)
		}
	}
	shutdown(t, c)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{secret, token} {
		if bytes.Contains(b, []byte(s)) {
			t.Errorf("%q reached the recording", s)
		}
	}
	if n := bytes.Count(b, []byte(config.RedactedValue)); n < 4 {
		t.Errorf("the redaction mark appears %d times; the echoes were not recorded?", n)
	}
	if !bytes.Contains(b, []byte(`"text":"`+config.RedactedValue)) {
		t.Error("the echoed secret's frame is missing")
	}
}

// TestRotation keeps one previous file, and each file opens with a
// header and the latest state, so it replays on its own.
func TestRotation(t *testing.T) {
	t.Parallel()
	srv := demoServer("demo", "MCPDECK_RECORD_TEST_LOG_INTERVAL", "5ms")
	cfg := configOf(srv)
	c := newController(t, cfg)
	const max = 48 << 10
	r, path := startRecorder(t, c, cfg, func(o *Options) { o.MaxSize = max })
	w, unwatch := watch(c)
	defer unwatch()
	if err := c.SetEnabled(ctxFor(t, 30*time.Second), true); err != nil {
		t.Fatal(err)
	}
	// Enough log lines for several rotations.
	n := 0
	w.waitFor(t, "many log lines", func(e runtime.Event) bool {
		if _, ok := e.(runtime.LogMessage); ok {
			n++
		}
		return n >= 600
	})
	shutdown(t, c)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	st := r.Stats()
	if st.Rotations < 2 {
		t.Fatalf("%d rotations after %d bytes", st.Rotations, st.Total)
	}
	parts := []string{path + ".1", path}
	for i, p := range parts {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > max+8<<10 || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %d bytes, mode %v", p, fi.Size(), fi.Mode().Perm())
		}
		rec, err := ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Header.Part != st.Rotations+i {
			t.Errorf("%s is part %d, want %d", p, rec.Header.Part, st.Rotations+i)
		}
		if s := rec.SnapshotAt(0); s == nil || len(s.Servers) != 1 {
			t.Errorf("%s does not open with the session's state", p)
		}
	}
	if _, err := os.Stat(path + ".2"); !os.IsNotExist(err) {
		t.Errorf("a second old file exists: %v", err)
	}
}

// TestGapRecordsDroppedEvents blocks the recorder's disk writes while a
// server floods, so its buffer overflows: the file then says, at the
// place it happened, how many events are missing.
func TestGapRecordsDroppedEvents(t *testing.T) {
	srv := fakeServer("flood", jsonrpctest.Normal)
	cfg := configOf(srv)
	c := newController(t, cfg)
	release := make(chan struct{})
	var blocked atomic.Bool
	r, path := startRecorder(t, c, cfg, func(o *Options) { o.Buffer = 16; o.SampleEvery = -1 })
	hook := func() {
		if blocked.CompareAndSwap(false, true) {
			<-release
		}
	}
	testHookFlush.Store(&hook)
	t.Cleanup(func() { testHookFlush.Store(nil) })
	ctx := ctxFor(t, 30*time.Second)
	if err := c.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(ctx, runtime.CallRequest{Server: "flood", Tool: "flood", Arguments: json.RawMessage(`{"count":2000}`)}); err != nil {
		t.Fatal(err)
	}
	close(release)
	shutdown(t, c)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var gaps uint64
	logs := 0
	for _, e := range rec.Entries {
		switch ev := e.Event.(type) {
		case Gap:
			gaps += ev.Dropped
		case runtime.LogMessage:
			logs++
		}
	}
	if st := r.Stats(); gaps == 0 || gaps != st.Dropped {
		t.Fatalf("gap lines count %d dropped, the recorder %d", gaps, st.Dropped)
	}
	if logs >= 2000 {
		t.Errorf("all %d log messages recorded although the buffer overflowed", logs)
	}
	t.Logf("%d recorded, %d dropped", logs, gaps)
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"1024": 1024, "10KB": 10_000, "10KiB": 10 << 10, "5M": 5 << 20, "5mb": 5_000_000, "1GiB": 1 << 30, "1.5MiB": 3 << 19} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "ten", "5XB", "0"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}

// sameEvents checks that the recording holds exactly the events a
// lossless subscriber saw, each decoding to the same value, and in the
// same order within each server's kind. (Across kinds the order may
// differ: events published by different goroutines at the same moment
// reach two subscribers in either order.)
func sameEvents(t *testing.T, seen []runtime.Event, recorded []Entry) {
	t.Helper()
	if len(recorded) != len(seen) {
		t.Fatalf("the recording has %d runtime events, the runtime published %d", len(recorded), len(seen))
	}
	type key struct{ server, kind string }
	want := map[key][]string{}
	for _, e := range seen {
		b, _ := encodeEvent(nil, e)
		k, _ := registry().nameOf(e)
		want[key{e.Header().Server, k}] = append(want[key{e.Header().Server, k}], string(b))
	}
	got := map[key][]string{}
	for _, e := range recorded {
		b, _ := encodeEvent(nil, e.Event)
		got[key{e.Event.Header().Server, e.Kind}] = append(got[key{e.Event.Header().Server, e.Kind}], string(b))
	}
	for k, ws := range want {
		gs := got[k]
		if strings.HasPrefix(k.kind, "Request") || k.kind == "TrafficFrame" {
			// Requests start and end on their callers' goroutines, which
			// run concurrently, and so are the frames they write (the
			// lists are pipelined): two subscribers may take two events
			// published at once in either order. Compare them as sets.
			ws, gs = sorted(ws), sorted(gs)
		}
		if len(gs) != len(ws) {
			t.Fatalf("%s %s: recorded %d, published %d", k.server, k.kind, len(gs), len(ws))
		}
		for i := range ws {
			if gs[i] != ws[i] {
				t.Fatalf("%s %s #%d differs:\nrecorded  %s\npublished %s", k.server, k.kind, i, gs[i], ws[i])
			}
		}
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
