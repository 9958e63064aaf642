package gateway

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"mcpdeck/jsonrpc"
)

// errGone: the POST an answer or event was meant for has ended.
var errGone = errors.New("the client's HTTP request has ended")

// keepAlive is how often a quiet SSE stream gets a comment line, so
// proxies and client idle timers do not close it.
const keepAlive = 15 * time.Second

// exchange is one HTTP request waiting for what the gateway sends on it:
// a POST's answer (a JSON body, or an SSE stream of related messages
// ending with the answer), or the standalone GET stream of a legacy
// session. Writes happen only while the handler waits in wait, and never
// after abandon.
type exchange struct {
	w      http.ResponseWriter
	rc     *http.ResponseController
	sse    bool
	header func(http.Header) // adds headers to the response (Mcp-Session-Id)

	mu      sync.Mutex
	started bool
	over    bool
	done    chan struct{}
}

func newExchange(w http.ResponseWriter, sse bool, header func(http.Header)) *exchange {
	return &exchange{w: w, rc: http.NewResponseController(w), sse: sse, header: header, done: make(chan struct{})}
}

// start writes the SSE response's headers. Called with mu held.
func (x *exchange) start() {
	if x.started {
		return
	}
	x.started = true
	h := x.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
	if x.header != nil {
		x.header(h)
	}
	x.w.WriteHeader(http.StatusOK)
	_ = x.rc.Flush()
}

// event sends one message on an SSE stream.
func (x *exchange) event(msg []byte) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.over || !x.sse {
		return errGone
	}
	x.start()
	if err := writeEvent(x.w, msg); err != nil {
		return err
	}
	return x.rc.Flush()
}

// comment keeps a quiet stream alive.
func (x *exchange) comment() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.over || !x.started {
		return
	}
	_, _ = io.WriteString(x.w, ": keepalive\n\n")
	_ = x.rc.Flush()
}

// respond sends the answer and ends the exchange.
func (x *exchange) respond(msg []byte) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.over {
		return errGone
	}
	x.over = true
	defer close(x.done)
	if x.sse {
		x.start()
		if err := writeEvent(x.w, msg); err != nil {
			return err
		}
		return x.rc.Flush()
	}
	h := x.w.Header()
	h.Set("Content-Type", "application/json")
	if x.header != nil {
		x.header(h)
	}
	x.w.WriteHeader(http.StatusOK)
	_, err := x.w.Write(msg)
	return err
}

// abandon ends the exchange without an answer; later writes are dropped.
func (x *exchange) abandon() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.over {
		x.over = true
		close(x.done)
	}
}

// wait holds the handler until the exchange is answered, or one of the
// contexts' ends abandons it; a quiet SSE stream gets keep-alive comments.
func (x *exchange) wait(ctxs ...<-chan struct{}) {
	t := time.NewTicker(keepAlive)
	defer t.Stop()
	var a, b, c <-chan struct{}
	switch len(ctxs) {
	case 3:
		c = ctxs[2]
		fallthrough
	case 2:
		b = ctxs[1]
		fallthrough
	case 1:
		a = ctxs[0]
	}
	for {
		select {
		case <-x.done:
			return
		case <-t.C:
			x.comment()
			continue
		case <-a:
		case <-b:
		case <-c:
		}
		x.abandon()
		return
	}
}

func writeEvent(w io.Writer, msg []byte) error {
	if _, err := io.WriteString(w, "event: message\ndata: "); err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n\n")
	return err
}

// exchangeStream is the jsonrpc.Stream of a modern POST: the one request
// it carries, then the related notifications and the answer on its
// exchange.
type exchangeStream struct {
	first  []byte
	read   bool
	x      *exchange
	cl     *client
	closed chan struct{}
	once   sync.Once
}

func (s *exchangeStream) Read() ([]byte, error) {
	if !s.read {
		s.read = true
		return s.first, nil
	}
	<-s.closed
	return nil, io.EOF
}

func (s *exchangeStream) Write(_ context.Context, msg jsonrpc.Message) error {
	if msg.IsResponse() {
		err := s.x.respond(msg.Frame)
		s.cl.replied(msg)
		return err
	}
	return s.x.event(msg.Frame)
}

func (s *exchangeStream) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

// serveExchange runs one request through a connection of its own over
// stream (a modern POST) and waits until it is answered, the client goes
// away (cancelling it) or the client is disconnected.
func (g *Gateway) serveExchange(r *http.Request, cl *client, st *exchangeStream) {
	conn := g.serveConn(cl, st, r.Context(), nil)
	st.x.wait(r.Context().Done(), cl.ctx.Done())
	_ = conn.Close()
}
