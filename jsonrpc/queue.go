package jsonrpc

import "sync"

// noteQueue carries notifications from the read loop to the dispatcher in
// arrival order. Lossy mode drops the oldest when full (and counts it), so a
// slow consumer never stalls the transport; lossless mode blocks the read
// loop instead, which slows the peer through pipe and TCP flow control.
type noteQueue struct {
	mu       sync.Mutex
	buf      []Notification // ring
	head, n  int
	lossless bool
	closed   bool          // no more pushes; the dispatcher drains and exits
	dropped  uint64        // guarded by mu
	ready    chan struct{} // signalled (non-blocking) when items arrive or on close
	space    chan struct{} // signalled when the consumer takes items (lossless)
	done     chan struct{} // closed by close, wakes a blocked lossless pusher
}

func newNoteQueue(size int, lossless bool) *noteQueue {
	return &noteQueue{
		buf:      make([]Notification, size),
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
