package jsonrpctest

import (
	"sync"
	"sync/atomic"
	"time"
)

// DualLateDiscover is a dual-era server that answers out of order, as a
// server that handles requests concurrently may: the first of initialize
// or a modern request pins the process to its era (as the TypeScript SDK's
// serveStdio does), and server/discover, a discovery result, is answered
// late: once the legacy session's tools/list arrives (which is answered
// only after it), or after MCPDECK_FAKE_DELAY when no session asks. A
// client that sent initialize alongside its probe thus sees initialize
// answered first and the discovery result before its legacy session is
// ready.
const DualLateDiscover Mode = "dual-late-discover"

// dualState is what DualLateDiscover remembers.
type dualState struct {
	legacy   atomic.Bool // initialize pinned the process to the legacy era
	modern   atomic.Bool // a modern request pinned it to the modern era
	probed   atomic.Bool // a server/discover arrived
	once     sync.Once
	release  chan struct{} // closed by the legacy tools/list: answer server/discover now
	answered chan struct{} // closed once server/discover was answered
	relOnce  sync.Once
	ansOnce  sync.Once
}

func (d *dualState) setup() {
	d.once.Do(func() { d.release, d.answered = make(chan struct{}), make(chan struct{}) })
}

// dualRoute handles c in DualLateDiscover mode when the modern era does,
// and reports whether it did; legacy requests fall through to the Normal
// server's handlers.
func (s *server) dualRoute(c *call) bool {
	d := &s.dual
	d.setup()
	switch {
	case c.method == "server/discover":
		d.probed.Store(true)
		t := time.NewTimer(s.cfg.delay)
		defer t.Stop()
		select {
		case <-d.release:
		case <-t.C:
		case <-c.ctx.Done():
			return true
		}
		s.handleModern(c)
		d.ansOnce.Do(func() { close(d.answered) })
		return true
	case c.method == "initialize" && !d.modern.Load():
		d.legacy.Store(true)
		return false
	case d.legacy.Load():
		if c.method == "tools/list" && d.probed.Load() {
			d.relOnce.Do(func() { close(d.release) })
			select {
			case <-d.answered:
			case <-c.ctx.Done():
				return true
			}
		}
		return false
	}
	d.modern.Store(true)
	s.handleModern(c)
	return true
}
