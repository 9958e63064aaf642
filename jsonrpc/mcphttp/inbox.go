package mcphttp

import "sync"

// inboxSize bounds the frames waiting for Read. When it is full the
// goroutines reading response streams block, which stops reading their
// HTTP bodies and so slows the server through TCP flow control instead of
// growing memory.
const inboxSize = 64

// inbox is the Read queue: frames from every response stream, the
// standalone stream and synthesized errors, plus the fatal error that ends
// the stream. Many goroutines push; one (the connection's read loop) pops.
type inbox struct {
	frames chan []byte
	closed chan struct{} // closed by Close: Read and pushers return

	failOnce sync.Once
	failed   chan struct{} // closed by fail, after err is set
	err      error
}

func newInbox() *inbox {
	return &inbox{
		frames: make(chan []byte, inboxSize),
		closed: make(chan struct{}),
		failed: make(chan struct{}),
	}
}

// push queues a frame; it reports false when the stream closed first.
func (q *inbox) push(frame []byte) bool {
	select {
	case q.frames <- frame:
		return true
	case <-q.closed:
		return false
	}
}

// fail records the error that ends the stream; the first one wins, since
// later ones are usually consequences of it.
func (q *inbox) fail(err error) {
	q.failOnce.Do(func() {
		q.err = err
		close(q.failed)
	})
}

// failure returns the fatal error, or nil.
func (q *inbox) failure() error {
	select {
	case <-q.failed:
		return q.err
	default:
		return nil
	}
}

// pop returns the next frame, or the fatal error once every frame queued
// before it was taken (a response that arrived just before the session
// expired still completes its call).
func (q *inbox) pop() ([]byte, error) {
	select {
	case f := <-q.frames:
		return f, nil
	case <-q.failed:
		select {
		case f := <-q.frames:
			return f, nil
		default:
			return nil, q.err
		}
	case <-q.closed:
		return nil, ErrClosed
	}
}
