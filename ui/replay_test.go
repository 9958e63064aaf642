package ui

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
	"mcpdeck/runtime/record"
	"mcpdeck/ui/uitest"
)

// replayFixture is a recorded demo-server session the replay goldens are
// rendered from; -replay-fixture rewrites it from a fresh recording.
const replayFixture = "testdata/replay-demo.jsonl"

var writeFixture = flag.Bool("replay-fixture", false, "rewrite "+replayFixture+" from a fresh recording")

// recordDemoSession records a real session against the demo server: two
// calls, a call with progress that is cancelled, and a reconnect. It
// returns the file and the runtime's call history at the end.
func recordDemoSession(t *testing.T) (string, []runtime.CallRecord) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	demo := config.Server{
		Name: "demo", Transport: config.TransportStdio, Command: exe, Args: []string{"-test.run=^$"},
		Env: map[string]string{envDemo: "1", "GORACE": "atexit_sleep_ms=0"}, Enabled: true,
		StartupTimeout: 20 * time.Second, CallTimeout: 10 * time.Second,
	}
	cfg := &config.Config{Servers: []config.Server{demo}}
	rt := runtime.New(runtime.Options{Config: cfg, StopGrace: time.Second})
	t.Cleanup(func() { rt.Shutdown(context.Background()) })
	path := t.TempDir() + "/demo.jsonl"
	rec, err := record.Start(rt, record.Options{Path: path, Config: cfg, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	events, cancel := rt.Subscribe(runtime.SubscribeOptions{Lossless: true, Buffer: 1 << 16})
	defer cancel()
	ctx, done := context.WithTimeout(context.Background(), time.Minute)
	defer done()
	if err := rt.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{`{"text":"hello replay"}`} {
		if _, err := rt.Call(ctx, runtime.CallRequest{Server: "demo", Tool: "echo", Arguments: json.RawMessage(args)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := rt.Call(ctx, runtime.CallRequest{Server: "demo", Tool: "add", Arguments: json.RawMessage(`{"a":20,"b":22}`)}); err != nil {
		t.Fatal(err)
	}
	var id atomic.Uint64
	callErr := make(chan error, 1)
	go func() {
		_, err := rt.Call(ctx, runtime.CallRequest{Server: "demo", Tool: "sleep", Arguments: json.RawMessage(`{"seconds":20}`),
			OnStarted: func(n uint64) { id.Store(n) }})
		callErr <- err
	}()
	waitEvent(t, events, func(e runtime.Event) bool {
		p, ok := e.(runtime.Progress)
		return ok && p.RequestID != 0 && p.RequestID == id.Load() && p.Progress >= 0.2
	})
	rt.Cancel("demo", id.Load(), "cancelled by the test")
	if err := <-callErr; !errors.Is(err, jsonrpc.ErrCancelled) {
		t.Fatalf("the cancelled call: %v", err)
	}
	if err := rt.Reconnect(ctx, "demo"); err != nil {
		t.Fatal(err)
	}
	// A heartbeat of the new connection, read after the reconnect: the
	// events still queued hold the first connection's heartbeats (one each
	// 200 ms), and stopping at one of those closed the recording before the
	// new connection had logged anything; the Traffic tab then ended with
	// its listing.
	reconnected := time.Now()
	waitEvent(t, events, func(e runtime.Event) bool {
		f, ok := e.(runtime.TrafficFrame)
		return ok && f.Frame.Method == "notifications/message" && f.Time.After(reconnected)
	})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if *writeFixture {
		b, _ := os.ReadFile(path)
		// The test binary's path says nothing and changes every build.
		b = []byte(strings.ReplaceAll(string(b), exe, "/opt/demo/mcpdeck"))
		if err := os.WriteFile(replayFixture, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	history, _ := rt.History()
	return path, history
}

func waitEvent(t *testing.T, ch <-chan runtime.Event, match func(runtime.Event) bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case e := <-ch:
			if match(e) {
				return
			}
		case <-deadline:
			t.Fatal("timed out waiting for an event")
		}
	}
}

// modelAt is a model at w×h, driven synchronously by the test.
func modelAt(opts Options, w, h int) *Model {
	m := newModel(opts.withDefaults())
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// body is a frame without its header, status line and help bar: the
// panes, which must be the same live and replayed.
func body(frame string) string {
	lines := strings.Split(frame, "\n")
	if len(lines) < 4 {
		return frame
	}
	return strings.Join(lines[1:len(lines)-2], "\n")
}

// runtimeEvents are the recorded events the runtime published.
func runtimeEvents(rec *record.Recording) []runtime.Event {
	var events []runtime.Event
	for _, e := range rec.Entries {
		switch e.Event.(type) {
		case record.Live, record.Gap, record.ReloadPlanned, record.Unknown:
			continue
		}
		events = append(events, e.Event)
	}
	return events
}

// TestReplayRendersLikeLive records a real demo-server session, feeds its
// events to a model the way the live forwarder does (batches, with the
// runtime's snapshot after the last publication, and the runtime's call
// history), and opens the same recording as a replay: every tab shows
// the same rows, the Requests tab the same calls with the same outcomes.
func TestReplayRendersLikeLive(t *testing.T) {
	t.Parallel()
	path, history := recordDemoSession(t)
	rec, err := record.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	last := len(rec.Entries) - 1
	clock := rec.Entries[last].Event.Header().Time
	now := func() time.Time { return clock }

	live := modelAt(Options{Runtime: uitest.New(rec.SnapshotAt(0)), Now: now}, 140, 40)
	events := runtimeEvents(rec)
	for len(events) > 0 {
		n := min(len(events), forwardBatch)
		live.Update(eventsMsg{events: events[:n]})
		events = events[n:]
	}
	live.Update(eventsMsg{snap: rec.SnapshotAt(last)})
	if len(history) != 3 {
		t.Fatalf("the session's history has %d calls, want 3", len(history))
	}
	// The runtime files the call the test cancelled as failed (a protocol
	// error) because the server's progress notifications arrived while it
	// waited (runtime.KindOf); the replay says what was done: cancelled.
	if h := &history[2]; h.Status == runtime.CallFailed && h.Err != nil && strings.Contains(h.Err.Message, "cancelled by the test") {
		h.Status = runtime.CallCancelled
	}
	// Durations differ by microseconds: the runtime times the whole call,
	// the recording the round trip on the wire.
	rebuilt, _ := NewReplay(rec).History()
	for i := range min(len(history), len(rebuilt)) {
		history[i].Duration = rebuilt[i].Duration
	}
	live.Update(historyMsg{calls: history})

	rp := NewReplay(rec)
	replayed := modelAt(Options{Runtime: rp, Replay: rp}, 140, 40)
	if !strings.Contains(replayed.render(), "▶ REPLAY") {
		t.Fatalf("the replay's header has no position:\n%s", replayed.render())
	}
	for _, tab := range []string{"1", "3", "4", "5", "6"} {
		live.Update(keyMsg(tab))
		replayed.Update(keyMsg(tab))
		want, got := body(live.render()), body(replayed.render())
		// By design the empty Requests tab invites no call in a replay.
		got = strings.Replace(got, noRequestsReplay+strings.Repeat(" ", len(noRequests)-len(noRequestsReplay)), noRequests, 1)
		if got != want {
			t.Fatalf("tab %s differs:\nlive:\n%s\nreplay:\n%s", tab, want, got)
		}
	}
	if v := live.render(); !strings.Contains(v, "notifications/message") && !strings.Contains(v, "tools/call") {
		t.Fatalf("the traffic tab shows nothing recorded:\n%s", v)
	}
}

// TestGoldenReplay renders the checked-in recording at 140×40: the
// overview, the requests, the traffic, and the state a milestone back.
func TestGoldenReplay(t *testing.T) {
	t.Parallel()
	rec, err := record.ReadFile(replayFixture)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		name string
		keys []string
	}{
		{"overview", []string{"1"}},
		{"requests", []string{"3"}},
		{"traffic", []string{"6"}},
		{"logs-two-milestones-back", []string{"5", "{", "{"}},
		{"start", []string{"1", "^"}},
	} {
		t.Run(step.name, func(t *testing.T) {
			rp := NewReplay(rec)
			m := modelAt(Options{Runtime: rp, Replay: rp}, 140, 40)
			for _, k := range step.keys {
				m.Update(keyMsg(k))
			}
			golden.RequireEqual(t, []byte(m.render()))
		})
	}
}

// TestReplayIsReadOnly: a replay starts nothing and says why.
func TestReplayIsReadOnly(t *testing.T) {
	t.Parallel()
	rec, err := record.ReadFile(replayFixture)
	if err != nil {
		t.Fatal(err)
	}
	rp := NewReplay(rec)
	for _, err := range []error{rp.SetEnabled(context.Background(), true), rp.Reconnect(context.Background(), "demo")} {
		if !errors.Is(err, ErrReadOnlyReplay) {
			t.Errorf("err = %v", err)
		}
	}
	hs, _ := startReplay(t, rec, 140, 40)
	hs.keys("m")
	hs.waitText("read-only replay")
}

// startReplay runs the UI program on a replay of rec at w×h.
func startReplay(t *testing.T, rec *record.Recording, w, h int) (*harness, *Replay) {
	t.Helper()
	rp := NewReplay(rec)
	p := &probe{m: newModel(Options{Runtime: rp, Replay: rp}.withDefaults()), signal: make(chan struct{}, 1)}
	tm := teatest.NewTestModel(t, p, teatest.WithInitialTermSize(w, h))
	hs := &harness{t: t, tm: tm, p: p}
	hs.detach = Attach(rp, tm.Send)
	t.Cleanup(hs.stop)
	hs.waitView("first frame", func(string) bool { return true })
	return hs, rp
}

// Where the recorded MCP was off (a replay's start; the end of a session
// that switched it off), the overview says so as the recording's fact,
// not "it starts when MCP is switched on with m", which a read-only
// replay cannot do (found by qa).
func TestReplayMCPOffIsNoInvitationToPressM(t *testing.T) {
	t.Parallel()
	rec, err := record.ReadFile(replayFixture)
	if err != nil {
		t.Fatal(err)
	}
	hs, _ := startReplay(t, rec, 140, 40)
	hs.keys("^")
	v := hs.waitText("MCP off", "MCP was off at this point of the recording")
	if strings.Contains(v, "with m") || strings.Contains(v, "press m") {
		t.Errorf("the replay invites pressing m:\n%s", v)
	}
}
