package jsonrpc

import "sync"

// noteQueue carries notifications from the read loop to the dispatcher in
// arrival order. Lossy mode drops the oldest when full (and counts it), so a
// slow consumer never stalls the transport; lossless mode blocks the read
// loop instead, which slows the peer through pipe and TCP flow control.
type noteQueue struct {
	mu       sync.Mutex
	buf      []Notification // ring; grows on demand up to max, released when drained
	head, n  int
	max      int // capacity bound: beyond it the oldest is dropped (lossy) or the pusher waits (lossless)
	lossless bool
	closed   bool          // no more pushes; the dispatcher drains and exits
	dropped  uint64        // guarded by mu
	ready    chan struct{} // signalled (non-blocking) when items arrive or on close
	space    chan struct{} // signalled when the consumer takes items (lossless)
	done     chan struct{} // closed by close, wakes a blocked lossless pusher
}

// Ring sizes. The ring starts empty and doubles as a burst needs it, so an
// idle connection holds no slots (a 4,096-slot ring allocated up front was
// most of an idle server's memory); a ring larger than keepSlots is let go
// once drained, so memory returns after a flood.
const (
	minSlots  = 16
	keepSlots = 256
)

func newNoteQueue(size int, lossless bool) *noteQueue {
	return &noteQueue{
		max:      size,
		lossless: lossless,
		ready:    make(chan struct{}, 1),
		space:    make(chan struct{}, 1),
		done:     make(chan struct{}),
	}
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// push appends n. It reports false if the queue is closed.
func (q *noteQueue) push(n Notification) bool {
	q.mu.Lock()
	if q.n == len(q.buf) && len(q.buf) < q.max {
		q.grow()
	}
	for q.n == len(q.buf) && !q.closed {
		if !q.lossless {
			q.head = (q.head + 1) % len(q.buf)
			q.n--
			q.dropped++
			break
		}
		q.mu.Unlock()
		select {
		case <-q.space:
		case <-q.done:
		}
		q.mu.Lock()
		if q.n == len(q.buf) && len(q.buf) < q.max {
			q.grow() // the consumer let the ring go meanwhile
		}
	}
	if q.closed {
		q.mu.Unlock()
		return false
	}
	q.buf[(q.head+q.n)%len(q.buf)] = n
	q.n++
	q.mu.Unlock()
	signal(q.ready)
	return true
}

// grow doubles the ring (within max), keeping the items in order. The
// caller holds mu.
func (q *noteQueue) grow() {
	size := min(max(2*len(q.buf), minSlots), q.max)
	buf := make([]Notification, size)
	for i := range q.n {
		buf[i] = q.buf[(q.head+i)%len(q.buf)]
	}
	q.buf, q.head = buf, 0
}

// popAll moves every queued item into dst, blocking until there is one.
// It returns ok=false once the queue is closed and empty.
func (q *noteQueue) popAll(dst []Notification) ([]Notification, bool) {
	for {
		q.mu.Lock()
		if q.n > 0 {
			for q.n > 0 {
				dst = append(dst, q.buf[q.head])
				q.buf[q.head] = Notification{}
				q.head = (q.head + 1) % len(q.buf)
				q.n--
			}
			if len(q.buf) > keepSlots {
				q.buf, q.head = nil, 0
			}
			q.mu.Unlock()
			signal(q.space)
			return dst, true
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return dst, false
		}
		<-q.ready
	}
}

// close stops intake and wakes everyone; queued items are still delivered.
func (q *noteQueue) close() {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.closed = true
	q.mu.Unlock()
	signal(q.ready)
	close(q.done)
}

func (q *noteQueue) droppedCount() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.dropped
}
