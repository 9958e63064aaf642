package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/record"
)

// TestReplayShowsInvalidServers records a real session whose
// configuration file has a server with neither command nor url next to
// the demo server, and replays it: the broken server is invalid, with its
// file:line:col problem, at the end, at the start, and before the first
// publication (from the header alone), as the live TUI showed it.
func TestReplayShowsInvalidServers(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "mcp.json")
	body := `{"mcpServers": {
  "demo": {"command": "` + exe + `", "args": ["-test.run=^$"], "env": {"` + envDemo + `": "1", "GORACE": "atexit_sleep_ms=0"}},
  "broken": {"env": {"A": "b"}}
}}`
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{Files: []string{file}, KeepInvalid: true})
	if cfg == nil || len(cfg.InvalidServers()) != 1 {
		t.Fatalf("load: %v", err)
	}
	problem := cfg.InvalidServers()[0].Invalid.Error()
	rt := runtime.New(runtime.Options{Config: cfg, StopGrace: time.Second})
	path := filepath.Join(dir, "session.jsonl")
	rec, err := record.Start(rt, record.Options{Path: path, Config: cfg, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, done := context.WithTimeout(context.Background(), time.Minute)
	defer done()
	if err := rt.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	if err := rt.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}

	recording, err := record.ReadFile(path)
	if err != nil {
		t.Fatalf("the recording does not read: %v", err)
	}
	rp := NewReplay(recording)
	m := modelAt(Options{Runtime: rp, Replay: rp}, 200, 40)
	// The end, the start (the snapshot when recording began), and one
	// step before it, where only the header's configuration is known.
	for _, at := range []string{"$", "^", ","} {
		m.Update(keyMsg(at))
		if at == "," && rp.Pos() != -1 {
			t.Fatalf(", went to entry %d, not before the first", rp.Pos())
		}
		srv, ok := rp.Snapshot().Server("broken")
		if !ok || srv.State != runtime.StateInvalid || srv.Note != problem {
			t.Errorf("at %s the broken server is %s, %q; want invalid, %q", at, srv.State, srv.Note, problem)
		}
		row := ""
		for _, l := range strings.Split(m.render(), "\n") {
			if strings.Contains(l, "broken") {
				row = l
				break
			}
		}
		if !strings.Contains(row, "invalid") || !strings.Contains(row, "neither") {
			t.Errorf("at %s the broken server's row does not say invalid and why: %q", at, row)
		}
	}
}

// TestReplayHistoryFollowsThePosition: the call history shown is the
// calls finished by the position, going forward and back.
func TestReplayHistoryFollowsThePosition(t *testing.T) {
	t.Parallel()
	rec, err := record.ReadFile(replayFixture)
	if err != nil {
		t.Fatal(err)
	}
	rp := NewReplay(rec)
	m := modelAt(Options{Runtime: rp, Replay: rp}, 140, 40)
	finished := 0
	want := make([]int, len(rec.Entries))
	for i, e := range rec.Entries {
		switch ev := e.Event.(type) {
		case runtime.RequestFinished:
			if ev.Method == "tools/call" && ev.Continues == "" {
				finished++
			}
		case runtime.RequestCancelled:
			if ev.Method == "tools/call" {
				finished++
			}
		}
		want[i] = finished
	}
	if finished != 3 {
		t.Fatalf("the fixture has %d finished calls, want 3", finished)
	}
	for _, i := range []int{len(rec.Entries) - 1, 0, len(rec.Entries) / 2, len(rec.Entries) - 1, 3} {
		m.replayTo(i)
		if len(m.c.history) != want[i] {
			t.Errorf("at entry %d the history has %d calls, %d had finished", i, len(m.c.history), want[i])
		}
	}
}

// TestReplayShowsRequestsInFlight: between a request's start and its end
// the replayed Requests tab lists it, at every position, going forward and
// back; before its start and after its end it does not. (A publication or
// the position's own snapshot used to drop it at once.)
func TestReplayShowsRequestsInFlight(t *testing.T) {
	t.Parallel()
	rec, err := record.ReadFile(replayFixture)
	if err != nil {
		t.Fatal(err)
	}
	type span struct{ from, to int }
	spans := map[uint64]*span{} // by the request's row id
	for i, e := range rec.Entries {
		switch ev := e.Event.(type) {
		case runtime.RequestStarted:
			if id := rowID(ev.FirstID, ev.ID); spans[id] == nil {
				spans[id] = &span{from: i, to: len(rec.Entries)}
			}
		case runtime.RequestFinished:
			if s := spans[rowID(ev.FirstID, ev.ID)]; s != nil && ev.Continues == "" {
				s.to = i
			}
		case runtime.RequestCancelled:
			if s := spans[rowID(ev.FirstID, ev.ID)]; s != nil {
				s.to = i
			}
		}
	}
	var long *span // the sleep the fixture cancels: in flight over many entries
	for _, s := range spans {
		if long == nil || s.to-s.from > long.to-long.from {
			long = s
		}
	}
	if long == nil || long.to-long.from < 5 {
		t.Fatalf("the fixture has no request in flight over several entries: %+v", long)
	}
	rp := NewReplay(rec)
	m := modelAt(Options{Runtime: rp, Replay: rp}, 140, 40)
	for _, i := range []int{long.to - 1, long.from, (long.from + long.to) / 2, long.from - 1, long.to, long.from + 1, len(rec.Entries) - 1, long.to - 2} {
		m.replayTo(i)
		want := 0
		for _, s := range spans {
			if s.from <= i && i < s.to {
				want++
			}
		}
		if got := len(m.c.reqs); got != want {
			t.Errorf("at entry %d (%s) the Requests tab lists %d requests in flight, want %d", i, rec.Entries[i].Kind, got, want)
		}
	}
}
