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
