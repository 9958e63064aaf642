package gateway

import (
	"context"
	"sync"
	"sync/atomic"
)

// outbox runs one client's asynchronous sends (progress, logs, list
// changes, listen notifications) in order on the client's own goroutine,
// so a client that reads slowly, or not at all, stalls only itself: the
// gateway's event pump never writes to a client. When the queue is full the
// oldest send is dropped and counted.
type outbox struct {
	mu      sync.Mutex
	q       []func()
	max     int
	busy    bool // a send is running
	stopped bool
	wake    chan struct{}
	idle    chan struct{} // signalled when the queue empties
	exited  chan struct{}
	dropped atomic.Uint64
}

// outboxSize bounds a client's queued sends.
const outboxSize = 1024

func newOutbox(max int) *outbox {
	o := &outbox{max: max, wake: make(chan struct{}, 1), idle: make(chan struct{}, 1), exited: make(chan struct{})}
	go o.run()
	return o
}

// push queues a send; it reports false when the outbox has stopped.
func (o *outbox) push(f func()) bool {
	o.mu.Lock()
	if o.stopped {
		o.mu.Unlock()
		return false
	}
	if len(o.q) >= o.max {
		o.q[0] = nil
		o.q = o.q[1:]
		o.dropped.Add(1)
	}
	o.q = append(o.q, f)
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
	return true
}

func (o *outbox) run() {
	defer close(o.exited)
	for {
		o.mu.Lock()
		if len(o.q) == 0 {
			o.busy = false
			stopped := o.stopped
			o.mu.Unlock()
			select {
			case o.idle <- struct{}{}:
			default:
			}
			if stopped {
				return
			}
			<-o.wake
			continue
		}
		f := o.q[0]
		o.q[0] = nil
		o.q = o.q[1:]
		o.busy = true
		o.mu.Unlock()
		f()
	}
}

// flush waits until everything queued so far was sent, or ctx ends.
func (o *outbox) flush(ctx context.Context) {
	for {
		o.mu.Lock()
		empty := len(o.q) == 0 && !o.busy
		stopped := o.stopped
		o.mu.Unlock()
		if empty || stopped {
			return
		}
		select {
		case <-o.idle:
		case <-o.exited:
			return
		case <-ctx.Done():
			return
		}
	}
}

// stop drops what is still queued and waits for the running send, which
// the caller must have unblocked (by closing the client's stream).
func (o *outbox) stop() {
	o.mu.Lock()
	o.stopped = true
	o.dropped.Add(uint64(len(o.q)))
	o.q = nil
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
	<-o.exited
}
