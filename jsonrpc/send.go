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

// write sends one frame we built, traced as f describes it. The trace
// comes first, outside the turn to write, so a callback never runs while
// other writers wait, and a request shows before its response.
func (c *Conn) write(ctx context.Context, b []byte, f Frame) error {
	c.trace(b, f)
	if err := c.takeTurn(ctx, nil); err != nil {
		return err
	}
	defer c.giveTurn()
	c.framesOut.Add(1)
	return c.stream.Write(b)
}

// trace hands an outgoing frame to the Trace callback, if any.
func (c *Conn) trace(b []byte, f Frame) {
	if c.opts.Trace == nil {
		return
	}
	f.Dir, f.Time, f.Size = Out, time.Now(), len(b)
	raw := b
	if len(raw) > TraceRawLimit {
		raw = raw[:TraceRawLimit]
	}
	f.Raw = append([]byte(nil), raw...)
	c.opts.Trace(f)
}

// takeTurn waits for the turn to write, until ctx ends, give fires (nil:
// never) or the connection is closing. giveTurn hands it back.
func (c *Conn) takeTurn(ctx context.Context, give <-chan time.Time) error {
	select {
	case c.turn <- struct{}{}:
		return nil
	case <-c.closed:
		return errClosing
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-give:
		return errNoTurn
	}
}

func (c *Conn) giveTurn() { <-c.turn }

// errNoTurn: a cancellation notice waited cancelNoticeTimeout for its
// turn to write and gave up.
var errNoTurn = errors.New("no turn to write")

// Bounds of the cancellation notice (sendCancelNotice). As go-sdk's
// notifyCancellationTimeout: the notice is best effort, and a peer that
// stopped reading must not hold the caller, nor a goroutine for ever.
var (
	// cancelNoticeTimeout bounds the notice's wait for its turn to write.
	cancelNoticeTimeout = 5 * time.Second
	// cancelNoticeWait bounds the caller's wait for its notice. On a
	// healthy transport the notice is written long before, so it still
	// reaches the peer before whatever the caller does next (closing the
	// connection, say).
	cancelNoticeWait = 100 * time.Millisecond
)

// sendCancelNotice tells the peer that request id is cancelled, from a
// goroutine of its own that Close waits for: the notice waits for its
// turn to write at most cancelNoticeTimeout, and the caller for the
// notice at most cancelNoticeWait. A write already begun ends with the
// stream (Close closes it).
func (c *Conn) sendCancelNotice(id uint64, reason string) {
	frame, err := notificationFrame("notifications/cancelled", cancelParams{RequestID: id, Reason: reason})
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
		give := time.NewTimer(cancelNoticeTimeout)
		defer give.Stop()
		if c.takeTurn(context.Background(), give.C) != nil {
			return
		}
		c.framesOut.Add(1)
		err := c.stream.Write(frame)
		if err == nil {
			c.cancelSent.Add(1) // before the turn is given back: a later frame never overtakes the count
		}
		c.giveTurn()
		if err == nil {
			// Traced once written, outside the turn: nothing answers a
			// notice, so nothing can show before it.
			c.trace(frame, Frame{Kind: KindNotification, Method: "notifications/cancelled"})
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

// Notify sends a notification. ctx bounds the wait for the turn to
// write; a write begun is not interrupted.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	frame, err := notificationFrame(method, params)
	if err != nil {
		return fmt.Errorf("encoding the %s notification: %w", method, err)
	}
	if err := c.write(ctx, frame, Frame{Kind: KindNotification, Method: method}); err != nil {
		if ctx.Err() != nil {
			return err
		}
		return c.sendError(method, err)
	}
	return nil
}
