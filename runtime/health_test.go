//go:build unix

package runtime

import (
	"syscall"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
)

func TestPingsRecordLatencyAndMissesFailTheServer(t *testing.T) {
	t.Parallel()
	srv := fakeServer("p", jsonrpctest.Normal)
	srv.PingInterval = 30 * time.Millisecond
	c := newController(t, srv)
	rec := record(t, c)
	enable(t, c)

	// Latency statistics fill in.
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for len(serverOf(t, c, "p").Ping.Recent) < 3 {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("no ping statistics")
		}
	}
	hc := rec.waitFor(t, "a health check event", func(e Event) bool { h, ok := e.(HealthChecked); return ok && h.OK }).(HealthChecked)
	if hc.Server != "p" || hc.Method != "ping" || hc.Latency <= 0 || hc.Missed != 0 {
		t.Fatalf("health check: %+v", hc)
	}
	ping := serverOf(t, c, "p").Ping
	if ping.Last <= 0 || ping.EWMA <= 0 || ping.P50 <= 0 || ping.P95 < ping.P50 || ping.Missed != 0 {
		t.Fatalf("ping stats: %+v", ping)
	}

	// A frozen server stops answering: degraded after 2 misses, failed after 3.
	pid := serverOf(t, c, "p").PID
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(pid, syscall.SIGCONT)
	miss := rec.waitFor(t, "a missed health check", func(e Event) bool { h, ok := e.(HealthChecked); return ok && !h.OK }).(HealthChecked)
	if miss.Missed < 1 || miss.Err == "" {
		t.Fatalf("missed check: %+v", miss)
	}
	rec.waitFor(t, "degraded", stateIs("p", StateDegraded))
	e := rec.waitFor(t, "failed", stateIs("p", StateFailed)).(StateChanged)
	if v := serverOf(t, c, "p"); !v.Reconnectable || e.Reason == "" {
		t.Fatalf("failed server: reconnectable=%v reason=%q", v.Reconnectable, e.Reason)
	}
	syscall.Kill(pid, syscall.SIGCONT)
	jsonrpctest.WaitGone(t, pid, 10*time.Second)
}
