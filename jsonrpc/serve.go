package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// rpcHandler is the connection's jsonrpc2.Handler: the library calls it
// on its read loop for each message its decoder read, and the intake
// hands it the ones it took itself (see takeMessage), so a peer's message
// has one way in whichever decoded it. A notification is queued for the
// dispatcher, in arrival order; a request is served off the read loop, in
// the manner of the library's AsyncHandler (see serve). Handle never
// blocks the read loop, except on a full lossless queue, by design.
type rpcHandler Conn

func (h *rpcHandler) Handle(ctx context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) {
	c := (*Conn)(h)
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	if req.Notif {
		if req.Method == "notifications/cancelled" {
			c.cancelIncoming(params)
		}
		c.recent.noted(&req.Method)
		c.read++
		c.notes.push(Notification{Method: req.Method, Params: params, Received: time.Now(), seq: c.read})
		return
	}
	c.serve(ctx, req.ID, req.Method, params)
}

// incomingCall is a peer request being served: its method, for the trace
// of the answer, and how to cancel it.
type incomingCall struct {
	method string
	cancel context.CancelFunc
}

// serve answers one request of the peer on a worker goroutine (work) and
// writes the answer itself. Unlike AsyncHandler's bare go statement, the
// goroutines are counted before they start, so Close waits for every one,
// and are kept for the next request.
func (c *Conn) serve(ctx context.Context, id jsonrpc2.ID, method string, params json.RawMessage) {
	key := id.String()
	ctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.incoming[key] = incomingCall{method: method, cancel: cancel}
	c.mu.Unlock()
	c.handlers.Add(1)
	c.work(func() {
		defer c.handlers.Done()
		defer func() {
			c.mu.Lock()
			delete(c.incoming, key)
			c.mu.Unlock()
			cancel()
		}()
		result, err := c.handle(ctx, &Request{ID: key, Method: method, Params: params})
		if ctx.Err() != nil {
			return // cancelled by the peer or the connection closed: no reply
		}
		_ = c.reply(ctx, id, method, result, err) // a failed write means the transport is going away
	})
}

// reply writes the answer to a peer's request. It is built here rather than with the library's Reply, which encodes a
// result three times over (SetResult, then the Response, then its
// envelope, each re-read by encoding/json) and writes with no ctx: here
// the result is encoded once, and the request's ctx bounds the write.
func (c *Conn) reply(ctx context.Context, id jsonrpc2.ID, method string, result any, err error) error {
	var e *Error
	body := []byte(nil)
	if err == nil {
		if result == nil {
			result = struct{}{}
		}
		if raw, ok := result.(json.RawMessage); ok && json.Valid(raw) {
			body = raw
		} else if body, err = json.Marshal(result); err != nil {
			err = fmt.Errorf("encoding the result of %s: %w", method, err)
		}
	}
	if err != nil && !errors.As(err, &e) {
		e = &Error{Code: CodeInternalError, Message: err.Error()}
	}
	idb, merr := json.Marshal(id)
	if merr != nil {
		return merr
	}
	b := make([]byte, 0, len(body)+64)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, idb...)
	kind := KindResult
	if e != nil {
		eb, merr := json.Marshal(e.toWire())
		if merr != nil {
			return merr
		}
		kind = KindError
		b = append(b, `,"error":`...)
		b = append(b, eb...)
	} else {
		b = append(b, `,"result":`...)
		b = append(b, body...)
	}
	b = append(b, '}')
	return c.send(ctx, Message{Kind: kind, ID: id.String(), Method: method, Frame: b})
}

// maxIdleWorkers bounds the goroutines kept waiting for the peer's next
// request.
const maxIdleWorkers = 8

// work runs f on a worker goroutine that then stays for the peer's next
// request: a handler that goes deep (the gateway forwarding a call
// through the whole runtime) grows its stack once, not on every request.
func (c *Conn) work(f func()) {
	select {
	case c.idle <- f:
	default:
		c.workers.Add(1)
		go c.worker(f)
	}
}

func (c *Conn) worker(f func()) {
	defer c.workers.Done()
	for {
		f()
		if c.idleWorkers.Add(1) > maxIdleWorkers {
			c.idleWorkers.Add(-1)
			return
		}
		select {
		case f = <-c.idle:
			c.idleWorkers.Add(-1)
		case <-c.closed:
			c.idleWorkers.Add(-1)
			return
		}
	}
}

func (c *Conn) handle(ctx context.Context, req *Request) (any, error) {
	if req.Method == "ping" {
		return struct{}{}, nil
	}
	if c.opts.Handler == nil {
		return nil, NewError(CodeMethodNotFound, "method not found: %s", req.Method)
	}
	return c.opts.Handler(ctx, req)
}

// cancelIncoming stops a peer request the peer has cancelled.
func (c *Conn) cancelIncoming(params json.RawMessage) {
	var p CancelledParams
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	var id jsonrpc2.ID
	if json.Unmarshal(p.RequestID, &id) != nil {
		return
	}
	c.mu.Lock()
	in, ok := c.incoming[id.String()]
	c.mu.Unlock()
	if ok {
		in.cancel()
	}
}
