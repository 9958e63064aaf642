package jsonrpc

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// ctxWriter writes frames so that a write blocked on a peer that stopped
// reading ends when the writer's ctx ends. Over a file Go polls (the pipe
// to a server's stdin, a socket) the bytes are written at once where the
// file takes them, and only once it is full is ctx watched, by a write
// deadline set when ctx ends: a write that does not block pays nothing
// for it (no goroutine, no allocation). Any other writer is written to
// as it is, and ctx ends the wait for it only before the write begins.
type ctxWriter struct {
	w   io.Writer
	raw syscall.RawConn // nil when w cannot be interrupted
	dl  deadliner

	// The write in progress, for try and expire: method values built once
	// (tryFn, expireFn), so that a write allocates nothing. The stream's
	// turn to write orders the writes; mu orders the end of one against
	// expire, which runs on ctx's goroutine.
	ctx      context.Context
	buf      []byte
	n        int
	err      error
	stop     func() bool // ends the watch of ctx; nil while none runs
	tryFn    func(uintptr) bool
	expireFn func()

	mu      sync.Mutex
	waiting bool // a write is blocked and watching ctx
}

type deadliner interface {
	SetWriteDeadline(time.Time) error
}

// newCtxWriter wraps w; a file Go polls can be interrupted.
func newCtxWriter(w io.Writer) *ctxWriter {
	cw := &ctxWriter{w: w}
	if f, ok := w.(interface {
		deadliner
		SyscallConn() (syscall.RawConn, error)
	}); ok && canInterrupt {
		if raw, err := f.SyscallConn(); err == nil {
			cw.raw, cw.dl = raw, f
		}
	}
	cw.tryFn, cw.expireFn = cw.try, cw.expire
	return cw
}

// write writes b and reports how much of it was written: all of it, or
// less with an error. When ctx ended first the error is ctx's cause.
func (w *ctxWriter) write(ctx context.Context, b []byte) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, context.Cause(ctx)
	}
	if w.raw == nil {
		return w.w.Write(b)
	}
	w.ctx, w.buf, w.n, w.err = ctx, b, 0, nil
	err := w.raw.Write(w.tryFn)
	if w.stop != nil {
		w.stop()
		w.stop = nil
		w.mu.Lock()
		w.waiting = false
		w.mu.Unlock()
		_ = w.dl.SetWriteDeadline(time.Time{}) // expire may have set one
	}
	n := w.n
	if err == nil {
		err = w.err
	}
	w.ctx, w.buf = nil, nil
	if errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	return n, err
}

// try is the raw write: as much of the buffer as the file takes now. It
// reports false when the file is full, and the poller then waits until it
// takes more or the deadline that expire sets passes.
func (w *ctxWriter) try(fd uintptr) bool {
	for w.n < len(w.buf) {
		m, err := rawWrite(fd, w.buf[w.n:])
		if m > 0 {
			w.n += m
		}
		switch {
		case err == nil && m == 0:
			w.err = io.ErrShortWrite
			return true
		case err == nil:
		case wouldBlock(err):
			if w.stop == nil && w.ctx.Done() != nil {
				w.mu.Lock()
				w.waiting = true
				w.mu.Unlock()
				w.stop = context.AfterFunc(w.ctx, w.expireFn)
			}
			return false
		case interrupted(err):
		default:
			w.err = err
			return true
		}
	}
	return true
}

// expire ends a blocked write whose ctx ended.
func (w *ctxWriter) expire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.waiting {
		_ = w.dl.SetWriteDeadline(time.Unix(1, 0))
	}
}
