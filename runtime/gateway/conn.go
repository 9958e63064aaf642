package gateway

import (
	"context"
	"io"
	"sync"

	"mcpdeck/jsonrpc"
)

// serveConn opens the JSON-RPC connection a client's transport carries:
// its requests go to g.handle, its notifications to g.onNotification,
// once wire (if not nil) has wired the connection to the client. within,
// when not nil, also ends the handling of a request (a modern POST's
// request, whose HTTP request can end first).
func (g *Gateway) serveConn(cl *client, stream jsonrpc.Stream, within context.Context, wire func(*jsonrpc.Conn)) *jsonrpc.Conn {
	ready := make(chan struct{}) // a message may come before NewConn returns and wire has run
	var conn *jsonrpc.Conn
	conn = jsonrpc.NewConn(stream, jsonrpc.Options{
		Handler: func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			<-ready
			if within != nil {
				var stop context.CancelFunc
				ctx, stop = mergeCancel(ctx, within)
				defer stop()
			}
			return g.handle(ctx, cl, req, conn.Notify)
		},
		OnNotification: func(n jsonrpc.Notification) {
			<-ready
			g.onNotification(cl, n)
		},
	})
	if wire != nil {
		wire(conn)
	}
	close(ready)
	return conn
}

// posted is the reading side an HTTP session's stream shares with the
// other kind: the messages the client POSTs, read in order by the
// session's connection, until the session ends (Close, once, which also
// forgets it through forget).
type posted struct {
	in     chan []byte
	done   chan struct{}
	once   sync.Once
	forget func()
}

func newPosted(forget func()) *posted {
	return &posted{in: make(chan []byte, sessionQueue), done: make(chan struct{}), forget: forget}
}

// Read returns the next message the client POSTed.
func (p *posted) Read() ([]byte, error) {
	select {
	case b := <-p.in:
		return b, nil
	case <-p.done:
		return nil, io.EOF
	}
}

// push queues a POSTed message for the connection; false when the session
// ended or ctx (the POST's) did first.
func (p *posted) push(ctx context.Context, msg []byte) bool {
	select {
	case p.in <- msg:
		return true
	case <-p.done:
		return false
	case <-ctx.Done():
		return false
	}
}

// Close is the connection's; a session closes through its close.
func (p *posted) Close() error {
	p.once.Do(func() {
		close(p.done)
		p.forget()
	})
	return nil
}
