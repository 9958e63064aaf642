package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// rpcHandler receives the peer's requests and notifications on the read
// loop; it must never block there (except a full lossless queue, by design).
type rpcHandler Conn

func (h *rpcHandler) Handle(ctx context.Context, rpc *jsonrpc2.Conn, req *jsonrpc2.Request) {
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
		c.notes.push(Notification{Method: req.Method, Params: params, Received: time.Now()})
		return
	}
	c.serveRequest(ctx, req.ID, req.Method, params)
}

// serveRequest answers one request of the peer, off the read loop, on a
// worker goroutine (work), and writes the answer itself.
func (c *Conn) serveRequest(ctx context.Context, id jsonrpc2.ID, method string, params json.RawMessage) {
	key := id.String()
	ctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.incoming[key] = cancel
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
		_ = c.reply(id, method, result, err) // a failed write means the transport is going away
	})
}

// reply writes the answer to a peer's request: the result encoded once and
// the envelope by hand (the library would encode it twice more).
func (c *Conn) reply(id jsonrpc2.ID, method string, result any, err error) error {
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
	return c.write(context.Background(), b, Frame{Kind: kind, Method: method, ID: id.String()})
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
	cancel := c.incoming[id.String()]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
