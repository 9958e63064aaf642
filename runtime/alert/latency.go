package alert

import (
	"slices"
	"sync"
	"time"
)

// maxSamples bounds the samples kept per server: at one request a
// millisecond for a whole five-minute window that would be 300,000, so
// past the bound the oldest go first and the p95 is taken over the most
// recent maxSamples, which is as good an estimate.
const maxSamples = 8192

// sample is one observed round trip.
type sample struct {
	at     time.Time
	d      time.Duration
	method string
	health bool
}

// Latencies keeps recent round trips per server for latency rules. It is
// safe for concurrent use: the monitor feeds it from its event goroutine
// while the Runner evaluates.
type Latencies struct {
	mu sync.Mutex
	// rings hold each server's samples, oldest first, bounded by maxSamples.
	rings map[string][]sample
}

// NewLatencies returns an empty store.
func NewLatencies() *Latencies { return &Latencies{rings: map[string][]sample{}} }

// Observe records one round trip of server: a request of method, or a
// health check (health set; method is the probe's method).
func (l *Latencies) Observe(server, method string, health bool, d time.Duration, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.rings[server]
	if len(r) == maxSamples {
		r = append(r[:0], r[1:]...)
	}
	l.rings[server] = append(r, sample{at: at, d: d, method: method, health: health})
}

// P95 is the 95th percentile (nearest rank) of server's round trips since
// now-window that match method ("" every one, HealthMethod the health
// checks, else that request method), and how many there were.
func (l *Latencies) P95(server, method string, window time.Duration, now time.Time) (time.Duration, int) {
	l.mu.Lock()
	r := l.rings[server]
	since := now.Add(-window)
	var ds []time.Duration
	for _, s := range r {
		if s.at.Before(since) || !matches(s, method) {
			continue
		}
		ds = append(ds, s.d)
	}
	l.mu.Unlock()
	if len(ds) == 0 {
		return 0, 0
	}
	slices.Sort(ds)
	rank := (len(ds)*95 + 99) / 100 // ceil(0.95 n), from 1
	return ds[rank-1], len(ds)
}

// Prune drops samples older than before (and so, in time, the servers
// that are gone).
func (l *Latencies) Prune(before time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for name, r := range l.rings {
		i := 0
		for i < len(r) && r[i].at.Before(before) {
			i++
		}
		switch {
		case i == len(r):
			delete(l.rings, name)
		case i > 0:
			l.rings[name] = append(r[:0], r[i:]...)
		}
	}
}

func matches(s sample, method string) bool {
	switch method {
	case "":
		return true
	case HealthMethod:
		return s.health
	}
	return s.method == method
}
