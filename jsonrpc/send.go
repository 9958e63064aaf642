package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// requestFrame encodes a request: params once, the envelope by hand.
func requestFrame(id uint64, method string, params any) ([]byte, error) {
	b := make([]byte, 0, 128)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, ',')
	return appendMethod(b, method, params)
}

// notificationFrame encodes a notification the same way.
func notificationFrame(method string, params any) ([]byte, error) {
	return appendMethod(append(make([]byte, 0, 128), `{"jsonrpc":"2.0",`...), method, params)
}

// appendMethod ends a frame begun in b with its method and params.
func appendMethod(b []byte, method string, params any) ([]byte, error) {
	b = append(b, `"method":`...)
	m, err := json.Marshal(method)
	if err != nil {
		return nil, err
	}
	b = append(b, m...)
	if params != nil {
		var p []byte
		switch v := params.(type) {
		case json.RawMessage:
			p = v
		default:
			if p, err = json.Marshal(params); err != nil {
				return nil, err
			}
		}
		b = append(b, `,"params":`...)
		b = append(b, p...)
	}
	return append(b, '}'), nil
}

// errClosing is why a frame was not written: the connection is closing
// (Call and Notify report the close cause instead).
var errClosing = errors.New("the connection is closing")

// send writes one message we built, every frame's one way out. ctx bounds
// both the wait for the turn to write and the write itself. The trace
// comes first, outside the turn to write, so a callback never runs while
// other writers wait, and a request shows before its response.
func (c *Conn) send(ctx context.Context, msg Message) error {
	c.trace(msg)
	if err := c.takeTurn(ctx); err != nil {
		return err
	}
	defer c.giveTurn()
	c.framesOut.Add(1)
	return c.stream.Write(ctx, msg)
}

// trace hands an outgoing message to the Trace callback, if any.
func (c *Conn) trace(msg Message) {
	if c.opts.Trace == nil {
		return
	}
	raw := msg.Frame
	if len(raw) > TraceRawLimit {
		raw = raw[:TraceRawLimit]
	}
	c.opts.Trace(Frame{Dir: Out, Time: time.Now(), Kind: msg.Kind, Method: msg.Method, ID: msg.ID, Size: len(msg.Frame), Raw: append([]byte(nil), raw...)})
}

// takeTurn waits for the turn to write, until ctx ends or the connection
// is closing. giveTurn hands it back.
func (c *Conn) takeTurn(ctx context.Context) error {
	select {
	case c.turn <- struct{}{}:
		return nil
	case <-c.closed:
		return errClosing
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (c *Conn) giveTurn() { <-c.turn }

// Bounds of the cancellation notice (sendCancelNotice). As go-sdk's
// notifyCancellationTimeout: the notice is best effort, and a peer that
// stopped reading must not hold the caller, nor a goroutine for ever.
var (
	// cancelNoticeTimeout bounds the notice's wait for its turn to write
	// and its write.
	cancelNoticeTimeout = 5 * time.Second
	// cancelNoticeWait bounds the caller's wait for its notice. On a
	// healthy transport the notice is written long before, so it still
	// reaches the peer before whatever the caller does next (closing the
	// connection, say).
	cancelNoticeWait = 100 * time.Millisecond
)

// sendCancelNotice tells the peer that request id is cancelled, from a
// goroutine of its own that Close waits for: the notice waits for its
// turn and is written within cancelNoticeTimeout, and the caller waits
// for it at most cancelNoticeWait.
func (c *Conn) sendCancelNotice(id uint64, reason string) {
	const method = "notifications/cancelled"
	frame, err := notificationFrame(method, cancelParams{RequestID: id, Reason: reason})
	if err != nil {
		return
	}
	c.mu.Lock()
	if c.cause != nil {
		c.mu.Unlock()
		return // closing: nobody is left to tell, and Close may be waiting for notices already
	}
	c.notices.Add(1)
	c.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer c.notices.Done()
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), cancelNoticeTimeout)
		defer cancel()
		if c.takeTurn(ctx) != nil {
			return
		}
		msg := Message{Kind: KindNotification, Method: method, Frame: frame}
		c.framesOut.Add(1)
		err := c.stream.Write(ctx, msg)
		if err == nil {
			c.cancelSent.Add(1) // before the turn is given back: a later frame never overtakes the count
		}
		c.giveTurn()
		if err == nil {
			// Traced once written, outside the turn: nothing answers a
			// notice, so nothing can show before it.
			c.trace(msg)
		}
	}()
	wait := time.NewTimer(cancelNoticeWait)
	defer wait.Stop()
	select {
	case <-done:
	case <-wait.C:
	}
}

// cancelParams are the params of notifications/cancelled.
type cancelParams struct {
	RequestID uint64 `json:"requestId"`
	Reason    string `json:"reason"`
}

// Notify sends a notification. ctx bounds the wait for the turn to write
// and the write (see Stream.Write).
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	frame, err := notificationFrame(method, params)
	if err != nil {
		return fmt.Errorf("encoding the %s notification: %w", method, err)
	}
	if err := c.send(ctx, Message{Kind: KindNotification, Method: method, Frame: frame}); err != nil {
		if ctx.Err() != nil {
			return err
		}
		return c.sendError(method, err)
	}
	return nil
}
