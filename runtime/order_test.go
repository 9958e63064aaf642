package runtime

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// progressOf runs one call and returns the progress events published
// between its start and its end, in the order published, failing on a
// progress with the call's token that came after the end or untagged.
func progressOf(t *testing.T, c *Controller, rec *recorder, req CallRequest) []Progress {
	t.Helper()
	ids := make(chan uint64, 8)
	req.OnStarted = func(id uint64) { ids <- id }
	if _, err := c.Call(ctxFor(t, 30*time.Second), req); err != nil {
		t.Fatal(err)
	}
	id := <-ids
	var got []Progress
	rec.waitFor(t, fmt.Sprintf("the end of request %d", id), func(e Event) bool {
		switch e := e.(type) {
		case Progress:
			if e.Server == req.Server {
				got = append(got, e)
			}
		case RequestFinished:
			return e.Server == req.Server && e.ID == id
		}
		return false
	})
	for _, p := range got {
		if p.RequestID != id {
			t.Fatalf("progress %g of %g published with request id %d, want %d: handled after its request had ended", p.Progress, p.Total, p.RequestID, id)
		}
	}
	return got
}

// A server's progress notifications written just before its answer (here
// in the same write) are all handled before the call returns: each is
// published tagged with its request, in order, before the request's end.
func TestProgressBeforeTheAnswerReachesItsRequest(t *testing.T) {
	c := newController(t, fakeServer("s", jsonrpctest.ProgressBurst))
	rec := record(t, c)
	enable(t, c)
	const steps = 25
	for round := range 10 {
		got := progressOf(t, c, rec, CallRequest{Server: "s", Tool: "burst", Arguments: json.RawMessage(fmt.Sprintf(`{"steps":%d}`, steps))})
		if len(got) != steps {
			t.Fatalf("round %d: %d of %d progress notifications published before the call ended", round, len(got), steps)
		}
		for i, p := range got {
			if p.Progress != float64(i+1) || p.Total != steps {
				t.Fatalf("round %d: progress %d is %g/%g, want %d/%d: out of order", round, i, p.Progress, p.Total, i+1, steps)
			}
		}
	}
}

// The same with the reference server: server-everything's long-running
// operation sends its last progress right before its answer.
func TestEverythingProgressAllTagged(t *testing.T) {
	node, script := jsonrpctest.Everything(t)
	srv := config.Server{Name: "everything", Transport: config.TransportStdio, Command: node, Args: []string{script, "stdio"},
		Enabled: true, StartupTimeout: 30 * time.Second, CallTimeout: 30 * time.Second}
	c := newController(t, srv)
	rec := record(t, c)
	enable(t, c)
	for round := range 3 {
		got := progressOf(t, c, rec, CallRequest{Server: "everything", Tool: "trigger-long-running-operation",
			Arguments: json.RawMessage(`{"duration":0.3,"steps":3}`)})
		if len(got) != 3 || got[0].Progress != 1 || got[2].Progress != 3 {
			t.Fatalf("round %d: progress published before the call ended: %+v, want 1, 2, 3 of 3", round, got)
		}
	}
}
