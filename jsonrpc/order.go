package jsonrpc

import (
	"context"
	"sync"
	"sync/atomic"
)

// The wire order is the truth: a notification read before a response is
// handled before that response reaches its caller. A server's last
// notifications/progress is often written just before its answer, and
// both arrive in one read; the read loop queues the notification for the
// dispatcher but hands the response straight to the waiting caller, so
// without this the caller could return, and forget its progress token,
// before the dispatcher got to the notification.
//
// The read loop numbers the notifications it reads (Conn.read) and gives
// every response the number read before it (response.after). The
// dispatcher records the number of each notification it has delivered
// (passed). A caller whose response came after notifications not yet
// delivered waits in awaitNotes, on its own goroutine: the read loop never
// waits, so responses to other callers and later notifications keep
// flowing. In the usual case, nothing pending, the cost is one atomic
// load.
type order struct {
	passed  atomic.Uint64 // the number of the last notification delivered
	waiting atomic.Int32  // callers in awaitNotes
	mu      sync.Mutex
	wake    chan struct{} // closed, and replaced, when passed moves while someone waits
}

// passed records that the dispatcher delivered notification seq, and wakes
// the callers waiting for it.
func (c *Conn) passed(seq uint64) {
	c.order.passed.Store(seq)
	if c.order.waiting.Load() == 0 {
		return
	}
	c.order.mu.Lock()
	close(c.order.wake)
	c.order.wake = make(chan struct{})
	c.order.mu.Unlock()
}

// awaitNotes waits until the dispatcher has delivered every notification
// read before the response the caller holds (after of them). A
// notification dropped from a full lossy queue is passed by the later ones
// that pushed it out. The wait ends too when the dispatcher has finished
// (the connection closed) or the caller's ctx ends: the answer has
// arrived, and is returned, whatever a stuck consumer of notifications
// does. OnNotification must therefore not wait for a Call on its own
// connection: that call would wait for it (until its ctx ends).
func (c *Conn) awaitNotes(ctx context.Context, after uint64) {
	if c.order.passed.Load() >= after {
		return
	}
	c.order.waiting.Add(1)
	defer c.order.waiting.Add(-1)
	for {
		c.order.mu.Lock()
		wake := c.order.wake
		c.order.mu.Unlock()
		if c.order.passed.Load() >= after {
			return
		}
		select {
		case <-wake:
		case <-c.dispatchDone:
			return
		case <-ctx.Done():
			return
		}
	}
}
