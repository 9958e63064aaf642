package record

import (
	"encoding/json"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// TestRecordEverythingSession records a session with the reference server
// @modelcontextprotocol/server-everything (its list changes, a call, a
// call with progress) and reads it back event for event.
func TestRecordEverythingSession(t *testing.T) {
	t.Parallel()
	node, script := jsonrpctest.Everything(t)
	srv := config.Server{Name: "everything", Transport: config.TransportStdio, Command: node, Args: []string{script, "stdio"},
		Enabled: true, StartupTimeout: 30 * time.Second, CallTimeout: 30 * time.Second}
	cfg := configOf(srv)
	c := newController(t, cfg)
	w, unwatch := watch(c)
	r, path := startRecorder(t, c, cfg)
	ctx := ctxFor(t, 60*time.Second)
	if err := c.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	if res, err := c.Call(ctx, runtime.CallRequest{Server: "everything", Tool: "echo", Arguments: json.RawMessage(`{"message":"hello recording"}`)}); err != nil || res.IsError {
		t.Fatalf("echo: %+v %v", res, err)
	}
	// A long-running operation reports progress.
	if _, err := c.Call(ctx, runtime.CallRequest{Server: "everything", Tool: "trigger-long-running-operation",
		Arguments: json.RawMessage(`{"duration":0.3,"steps":3}`)}); err != nil {
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
	var fromBus []Entry
	count := map[string]int{}
	for _, e := range rec.Entries {
		count[e.Kind]++
		if e.Seq > 2 && e.Kind != "Live" {
			fromBus = append(fromBus, e)
		}
	}
	sameEvents(t, w.seen, fromBus)
	for _, k := range []string{"ListChanged", "Progress", "RequestFinished", "TrafficFrame", "StateChanged"} {
		if count[k] == 0 {
			t.Errorf("no %s recorded (%v)", k, count)
		}
	}
	if s := rec.SnapshotAt(len(rec.Entries) - 1); s == nil || len(s.Servers) != 1 {
		t.Error("no final state")
	}
}

// TestReplayedHistoryOfEverything records calls to the reference server,
// one of them a 2025-11-25 task (simulate-research-query: created,
// followed with tasks/get, its result fetched with tasks/result), and
// rebuilds the call history from the file: the calls the runtime's own
// history has, with the same outcomes and results.
func TestReplayedHistoryOfEverything(t *testing.T) {
	t.Parallel()
	node, script := jsonrpctest.Everything(t)
	srv := config.Server{Name: "everything", Transport: config.TransportStdio, Command: node, Args: []string{script, "stdio"},
		Enabled: true, StartupTimeout: 30 * time.Second, CallTimeout: 30 * time.Second}
	cfg := configOf(srv)
	c := newController(t, cfg)
	w, unwatch := watch(c)
	defer unwatch()
	r, path := startRecorder(t, c, cfg)
	ctx := ctxFor(t, 60*time.Second)
	if err := c.SetEnabled(ctx, true); err != nil {
		t.Fatal(err)
	}
	// The task tool is listed with its taskSupport once the server's
	// list has changed.
	w.waitFor(t, "simulate-research-query with its taskSupport", func(runtime.Event) bool {
		v, _ := c.Snapshot().Server("everything")
		for _, tl := range v.Tools {
			if tl.ServerTool == "simulate-research-query" && tl.TaskSupport != "" {
				return true
			}
		}
		return false
	})
	if res, err := c.Call(ctx, runtime.CallRequest{Server: "everything", Tool: "get-sum", Arguments: json.RawMessage(`{"a":1,"b":2}`)}); err != nil || res.IsError {
		t.Fatalf("get-sum: %+v %v", res, err)
	}
	res, err := c.Call(ctx, runtime.CallRequest{Server: "everything", Tool: "simulate-research-query", Arguments: json.RawMessage(`{"topic":"go"}`)})
	if err != nil || res.IsError || res.TaskID == "" {
		t.Fatalf("the research task: %+v %v", res, err)
	}
	shutdown(t, c)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	history, _ := c.History()
	rec, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	calls := rec.CallsAt(len(rec.Entries) - 1)
	if len(calls) != len(history) || len(history) != 2 {
		t.Fatalf("replayed %d calls, the session's history has %d (want 2)", len(calls), len(history))
	}
	for i := range history {
		sameCall(t, calls[i], history[i])
	}
	if calls[1].Result == nil || calls[1].Result.TaskID != res.TaskID {
		t.Errorf("the task's call replays as %+v", calls[1].Result)
	}
}
