package runtime

import (
	"context"
	"errors"
	"sync"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
)

// health is the part of a session that probes the server: the ping loop
// (health.loop, a goroutine the session owns) records each probe
// here, and the snapshot overlay (live) reads the statistics; mu guards
// them.
type health struct {
	s    *session
	mu   sync.Mutex
	ping pingTracker
}

// record adds one probe and returns the consecutive misses.
func (h *health) record(d time.Duration, ok bool) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ping.record(d, ok)
}

// stats returns the probes' statistics.
func (h *health) stats() PingStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ping.stats()
}

// method is the health probe of the session's era: ping, which the
// 2026-07-28 revision removed, or server/discover, the cheapest request a
// modern server must answer.
func (h *health) method() string {
	s := h.s
	if s.modern() {
		return mcp.MethodDiscover
	}
	return mcp.MethodPing
}

// check sends one health probe.
func (h *health) check(ctx context.Context) error {
	s := h.s
	_, err := s.chain(ctx, &request{method: h.method()})
	return err
}

// loop probes health every interval; it reports misses to the
// controller (2 → degraded, 3 → failed) and recoveries.
func (h *health) loop(interval time.Duration) {
	s := h.s
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		timeout := min(interval, 10*time.Second)
		ctx, cancel := context.WithTimeout(s.ctx, timeout)
		start := time.Now()
		err := h.check(ctx)
		cancel()
		if s.ctx.Err() != nil {
			return
		}
		var closed *jsonrpc.ClosedError
		if errors.As(err, &closed) {
			return // the watcher reports the closure
		}
		took := time.Since(start)
		s.c.opts.Telemetry.RecordPing(s.name, took, err == nil)
		missed := h.record(took, err == nil)
		ev := HealthChecked{EventHeader: EventHeader{Time: time.Now(), Server: s.name}, Method: h.method(), Latency: took, OK: err == nil, Missed: missed}
		if err != nil {
			ev.Err = err.Error()
		}
		s.c.bus.publish(ev)
		s.c.send(s.ctx, msgPing{name: s.name, gen: s.gen, missed: missed})
	}
}

// nearestRank is the index of the p-th percentile of n sorted values
// (nearest-rank method: the smallest value with at least p% at or below it).
func nearestRank(n, p int) int { return max((n*p+99)/100-1, 0) }

// pingTracker keeps latency statistics over the last pingWindow pings.
type pingTracker struct {
	recent []time.Duration // ring, oldest first once full
	next   int
	last   time.Duration
	ewma   time.Duration
	missed int
	lastAt time.Time
}

const pingWindow = 100

// record adds one ping and returns the consecutive misses.
func (p *pingTracker) record(d time.Duration, ok bool) int {
	p.lastAt = time.Now()
	if !ok {
		p.missed++
		return p.missed
	}
	p.missed = 0
	p.last = d
	if p.ewma == 0 {
		p.ewma = d
	} else {
		p.ewma = (p.ewma*4 + d) / 5
	}
	if len(p.recent) < pingWindow {
		p.recent = append(p.recent, d)
	} else {
		p.recent[p.next] = d
		p.next = (p.next + 1) % pingWindow
	}
	return 0
}

func (p *pingTracker) stats() PingStats {
	st := PingStats{Last: p.last, EWMA: p.ewma, Missed: p.missed, LastAt: p.lastAt}
	st.Recent = append(append([]time.Duration(nil), p.recent[p.next:]...), p.recent[:p.next]...)
	if n := len(st.Recent); n > 0 {
		sorted := append([]time.Duration(nil), st.Recent...)
		sortDurations(sorted)
		st.P50 = sorted[nearestRank(n, 50)]
		st.P95 = sorted[nearestRank(n, 95)]
	}
	return st
}
