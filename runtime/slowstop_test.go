package runtime

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// A server that takes its time to stop holds up nothing else: while it
// goes through the whole stop sequence (stdin close, SIGTERM, SIGKILL, 2 s
// grace each), another server is switched on and becomes ready, and a
// snapshot answers at once.
func TestSlowStopBlocksNoOtherCommand(t *testing.T) {
	slow := fakeServer("slow", jsonrpctest.IgnoreTerm)
	other := fakeServer("other", jsonrpctest.Normal)
	other.Enabled = false
	c := New(Options{Config: &config.Config{Servers: []config.Server{slow, other}}, StopGrace: 2 * time.Second})
	t.Cleanup(func() { _ = c.Shutdown(ctxFor(t, 30*time.Second)) })
	enable(t, c)
	pid := serverOf(t, c, "slow").PID
	rec := record(t, c)

	stopped := make(chan error, 1)
	go func() { stopped <- c.SetServerEnabled(ctxFor(t, 30*time.Second), "slow", false) }()
	rec.waitFor(t, "slow stopping", stateIs("slow", StateStopping))

	began := time.Now()
	snap := c.Snapshot()
	snapTook := time.Since(began)
	if v, _ := snap.Server("slow"); v.State != StateStopping {
		t.Fatalf("snapshot shows slow %s", v.State)
	}
	began = time.Now()
	if err := c.SetServerEnabled(ctxFor(t, 20*time.Second), "other", true); err != nil {
		t.Fatal(err)
	}
	enableTook := time.Since(began)
	select {
	case err := <-stopped:
		t.Fatalf("slow's stop finished (%v) before other was ready: the enable waited for it", err)
	default:
	}
	if jsonrpctest.ProcessGone(pid) {
		t.Fatal("slow's process is already gone: this test proves nothing")
	}
	if v := serverOf(t, c, "other"); v.State != StateReady {
		t.Fatalf("other is %s", v.State)
	}
	if snapTook > 100*time.Millisecond {
		t.Errorf("a snapshot took %s during a stop", snapTook)
	}
	t.Logf("during slow's stop: snapshot %s, other's enable to ready %s", snapTook, enableTook)
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	if v := serverOf(t, c, "slow"); v.State != StateDisabled || v.LastStop.Step != StopSIGKILL || !jsonrpctest.ProcessGone(pid) {
		t.Fatalf("slow: %s, stopped by %s", v.State, v.LastStop.Step)
	}
}

// Servers that hang on start all end failed with the startup timeout as
// the cause; none is left "starting", and the failures show without
// waiting for the hung processes to be stopped.
func TestManyHangingStartsAllFailWithTheTimeout(t *testing.T) {
	const n = 60
	var servers []config.Server
	for i := range n {
		s := fakeServer(fmt.Sprintf("hang%02d", i), jsonrpctest.SlowInit, jsonrpctest.WithDelay(time.Hour))
		s.StartupTimeout = time.Second
		servers = append(servers, s)
	}
	c := New(Options{Config: &config.Config{Servers: servers}, StopGrace: 3 * time.Second})
	t.Cleanup(func() { _ = c.Shutdown(ctxFor(t, 60*time.Second)) })
	if err := c.SetEnabled(ctxFor(t, 60*time.Second), true); err != nil {
		t.Fatal(err)
	}
	// Enable returns once each server is ready or failed.
	for _, v := range c.Snapshot().Servers {
		if v.State != StateFailed || !errors.Is(v.LastError, ErrTimeout) || v.LastError.Kind != KindTimeout {
			t.Errorf("%s: %s, %v", v.Name, v.State, v.LastError)
		}
	}
}
