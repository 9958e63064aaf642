package runtime

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// TestStalledLosslessSubscriberNeverBlocksTheLoop: a lossless subscriber
// that stopped reading (watch under a paused pager) slows the flooding
// server's stream, and nothing else: the controller still switches the
// server off, which stops its process, and shuts down. Before, publication
// was synchronous and the loop waited on the subscriber forever.
func TestStalledLosslessSubscriberNeverBlocksTheLoop(t *testing.T) {
	t.Parallel()
	c := newController(t, fakeServer("f", jsonrpctest.Normal))
	_, stalled := c.Subscribe(SubscribeOptions{Lossless: true, Buffer: 8}) // never read
	t.Cleanup(stalled)
	enable(t, c)
	pid := serverOf(t, c, "f").PID

	// The flood's notifications wait behind the stalled subscriber: what
	// shows is the call being sent, which the call itself says (OnStarted).
	// A lossy subscriber watching for its RequestStarted could miss it: the
	// flood's traffic frames, published as they are read, pushed it out of
	// the ring before a test descheduled for 300ms got to it.
	started := make(chan struct{}, 1)
	callDone := make(chan error, 1)
	go func() {
		_, err := c.Call(context.Background(), CallRequest{Server: "f", Tool: "flood", Arguments: json.RawMessage(`{"count":100000}`), Timeout: time.Minute,
			OnStarted: func(uint64) {
				select {
				case started <- struct{}{}:
				default:
				}
			}})
		callDone <- err
	}()
	select {
	case <-started:
	case err := <-callDone:
		t.Fatalf("the flood call ended before it was sent: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the flood call was never sent")
	}

	if err := c.SetServerEnabled(ctxFor(t, 20*time.Second), "f", false); err != nil {
		t.Fatalf("switching the flooding server off while a lossless subscriber stalls: %v", err)
	}
	if !jsonrpctest.ProcessGone(pid) {
		t.Errorf("server process %d still runs after it was switched off", pid)
	}
	select {
	case err := <-callDone:
		if err == nil {
			t.Error("the flood call succeeded though its server was stopped under it")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the flood call never returned after its server was stopped")
	}
	if err := c.Shutdown(ctxFor(t, 20*time.Second)); err != nil {
		t.Fatalf("Shutdown with a stalled lossless subscriber: %v", err)
	}
}
