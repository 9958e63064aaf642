package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

type outstandingCall struct {
	Outstanding
	cancel context.CancelCauseFunc
	resp   chan response // gets the response, taken off the stream
}

// response is a response as taken off the stream: a raw result, an
// error object, or a response that cannot be decoded; after is how many
// notifications had been read before it, which its caller waits for the
// dispatcher to deliver (see awaitNotes).
type response struct {
	result      json.RawMessage
	err         *Error
	undecodable *UndecodableError
	after       uint64
}

// take is what Call returns for the response.
func (r response) take(method string) (json.RawMessage, error) {
	switch {
	case r.undecodable != nil:
		r.undecodable.Method = method
		return nil, r.undecodable
	case r.err != nil:
		return nil, r.err
	}
	return r.result, nil
}

// cancelMemory bounds how many cancelled ids are remembered for counting
// late responses.
const cancelMemory = 4096

// Call sends a request and waits for its response, returning the raw
// result. Errors: *Error for an error response, *CancelledError when ctx
// ends first (a notifications/cancelled is sent), *ClosedError when the
// transport closes.
func (c *Conn) Call(ctx context.Context, method string, params any, opts ...CallOption) (json.RawMessage, error) {
	var o callOptions
	for _, opt := range opts {
		opt(&o)
	}
	id := c.nextID.Add(1)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	c.mu.Lock()
	if c.cause != nil {
		cause := c.cause
		c.mu.Unlock()
		return nil, &ClosedError{Method: method, Cause: cause}
	}
	oc := &outstandingCall{
		Outstanding: Outstanding{ID: id, Method: method, Label: o.label, Start: time.Now()},
		cancel:      cancel,
		resp:        make(chan response, 1),
	}
	c.outstanding[id] = oc
	c.mu.Unlock()
	start, notesBefore := time.Now(), c.recent.notes.Load()
	defer func() {
		c.mu.Lock()
		delete(c.outstanding, id)
		delete(c.undecodable, id)
		c.mu.Unlock()
	}()
	if o.onID != nil {
		o.onID(id)
	}

	frame, err := requestFrame(id, method, params)
	if err != nil {
		return nil, fmt.Errorf("encoding the %s request: %w", method, err)
	}
	unwritten := false
	if err := c.send(ctx, Message{Kind: KindRequest, ID: FormatID(id), Method: method, Frame: frame}); err != nil {
		if ctx.Err() == nil {
			return nil, c.sendError(method, err)
		}
		// ctx ended while the request waited for its turn or was being
		// written: it is cancelled as if it had been sent (what was
		// written of it still goes out, and its answer is then late),
		// and its error says it never got through.
		unwritten = true
	}
	select {
	case r := <-oc.resp:
		c.awaitNotes(ctx, r.after)
		return r.take(method)
	case <-c.closed:
		select {
		case r := <-oc.resp: // it came with the last frames read
			c.awaitNotes(ctx, r.after)
			return r.take(method)
		default:
		}
		return nil, &ClosedError{Method: method, Cause: c.Err()}
	case <-ctx.Done():
		cerr := c.cancelCall(ctx, id, method, o.noCancelNotify)
		cerr.Arrived, cerr.Unwritten = c.arrivedSince(start, notesBefore), unwritten
		return nil, cerr
	}
}

// cancelCall records id as cancelled, tells the peer, and builds the error.
func (c *Conn) cancelCall(ctx context.Context, id uint64, method string, quiet bool) *CancelledError {
	cause := context.Cause(ctx)
	timeout := errors.Is(cause, context.DeadlineExceeded) || errors.Is(cause, ErrTimeout)
	reason := cause.Error()
	var ur *userCancel
	if errors.As(cause, &ur) {
		reason = ur.reason
	}
	c.mu.Lock()
	c.cancelled[id] = struct{}{}
	c.cancelOrder = append(c.cancelOrder, id)
	if len(c.cancelOrder) > cancelMemory {
		delete(c.cancelled, c.cancelOrder[0])
		c.cancelOrder = c.cancelOrder[1:]
	}
	c.mu.Unlock()
	if !quiet {
		// The spec's cancellation notice; a failure to send it means the
		// transport is going away, which the caller learns elsewhere.
		c.sendCancelNotice(id, reason)
	}
	return &CancelledError{ID: id, Method: method, Reason: reason, Timeout: timeout, Cause: cause}
}

// sendError turns a failure to write a request into the error a caller
// should see: when the write failed because the transport is closing, the
// transport's close cause says more than "broken pipe".
func (c *Conn) sendError(method string, err error) error {
	if cause := c.Err(); cause != nil {
		return &ClosedError{Method: method, Cause: cause} // closed meanwhile: that is why the write failed
	}
	// A write that failed (a broken pipe) usually means the read loop is
	// about to end with the real cause (the server's exit): wait for it.
	select {
	case <-c.readDone:
		return &ClosedError{Method: method, Cause: c.Err()}
	case <-time.After(time.Second):
		return &ClosedError{Method: method, Cause: err}
	}
}

// Cancel cancels the outstanding request id with a reason (sent to the
// peer). It reports whether the request was outstanding.
func (c *Conn) Cancel(id uint64, reason string) bool {
	c.mu.Lock()
	call, ok := c.outstanding[id]
	c.mu.Unlock()
	if ok {
		call.cancel(&userCancel{reason: reason})
	}
	return ok
}

type userCancel struct{ reason string }

func (u *userCancel) Error() string { return "cancelled: " + u.reason }

func (u *userCancel) Unwrap() error { return ErrCancelled }

// CallOption adjusts one Call.
type CallOption func(*callOptions)

type callOptions struct {
	label          string
	noCancelNotify bool
	onID           func(uint64)
}

// WithLabel names the call in the outstanding table (e.g. the tool name).
func WithLabel(label string) CallOption { return func(o *callOptions) { o.label = label } }

// WithoutCancelNotification suppresses notifications/cancelled when the call
// is cancelled; MCP forbids cancelling initialize.
func WithoutCancelNotification() CallOption {
	return func(o *callOptions) { o.noCancelNotify = true }
}

// WithIDFunc reports the request id chosen for the call before it is sent.
func WithIDFunc(f func(id uint64)) CallOption { return func(o *callOptions) { o.onID = f } }

// FormatID renders a numeric request id as it appears on the wire.
func FormatID(id uint64) string { return strconv.FormatUint(id, 10) }
