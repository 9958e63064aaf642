package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
)

// httpSession is a legacy Streamable HTTP session (2025-03-26 …
// 2025-11-25): initialize opened it, Mcp-Session-Id names it, DELETE ends
// it. It is one JSON-RPC connection whose stream is every POST of the
// session: what the client POSTs is read in order, and what the gateway
// writes goes where it belongs — an answer to the POST of its request, a
// notification or request related to a request onto that request's SSE
// stream, anything else onto the standalone GET stream.
type httpSession struct {
	g    *Gateway
	id   string
	cl   *client
	conn *jsonrpc.Conn
	in   chan []byte
	done chan struct{}
	once sync.Once

	mu        sync.Mutex
	exchanges map[string]*exchange // the client's request id → its POST
	tokens    map[string]*exchange // the client's progressToken → its POST
	routes    map[uint64]*exchange // a request to the client → the POST of the request it relates to
	get       chan []byte          // the standalone GET stream, nil while none is open
}

// sessionQueue bounds the messages of a session waiting to be read, and
// those waiting for its GET stream.
const sessionQueue = 256

// newSession opens a session for a client that POSTed initialize.
func (g *Gateway) newSession(r *http.Request) (*httpSession, error) {
	s := &httpSession{g: g, id: newState(), in: make(chan []byte, sessionQueue), done: make(chan struct{}),
		exchanges: map[string]*exchange{}, tokens: map[string]*exchange{}, routes: map[uint64]*exchange{}}
	cl := g.newClient(TransportHTTP, "session", r.RemoteAddr)
	cl.setIdentity(IdentityFrom(r.Context()))
	s.cl = cl
	ready := make(chan struct{})
	s.conn = jsonrpc.NewConn(s, jsonrpc.Options{
		Handler: func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			<-ready
			return g.handle(ctx, cl, req, s.conn.Notify)
		},
		OnNotification: func(n jsonrpc.Notification) {
			<-ready
			g.onNotification(cl, n)
		},
	})
	cl.conn = s.conn
	cl.routeRequest = s.route
	cl.closeTransport = s.close
	close(ready)
	g.mu.Lock()
	if g.sessions == nil {
		g.sessions = map[string]*httpSession{}
	}
	g.sessions[s.id] = s
	g.mu.Unlock()
	if err := g.attach(cl); err != nil {
		s.close()
		cl.out.stop()
		return nil, err
	}
	return s, nil
}

// session finds an open session.
func (g *Gateway) session(id string) *httpSession {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.sessions[id]
}

// close ends the session's connection and streams.
func (s *httpSession) close() {
	_ = s.Close()
	_ = s.conn.Close()
}

func (s *httpSession) setHeader(h http.Header) { h.Set("Mcp-Session-Id", s.id) }

// Read returns the next message the client POSTed.
func (s *httpSession) Read() ([]byte, error) {
	select {
	case b := <-s.in:
		return b, nil
	case <-s.done:
		return nil, io.EOF
	}
}

// Close is the connection's; the session closes through close.
func (s *httpSession) Close() error {
	s.once.Do(func() {
		close(s.done)
		s.g.mu.Lock()
		delete(s.g.sessions, s.id)
		s.g.mu.Unlock()
	})
	return nil
}

// Write routes one message from the gateway to the client.
func (s *httpSession) Write(msg []byte) error {
	var f frame
	if err := json.Unmarshal(msg, &f); err != nil {
		return err
	}
	s.mu.Lock()
	var x *exchange
	switch {
	case f.isResponse():
		key := idKey(f.ID)
		x = s.exchanges[key]
		delete(s.exchanges, key)
		for tok, tx := range s.tokens {
			if tx == x {
				delete(s.tokens, tok)
			}
		}
		s.mu.Unlock()
		s.cl.replied(msg)
		if x == nil {
			return nil // the client's POST is gone; the answer is lost (no resumption)
		}
		return x.respond(msg)
	case f.isRequest():
		if id, err := strconv.ParseUint(string(f.ID), 10, 64); err == nil {
			x = s.routes[id]
		}
	case f.method() == mcp.NotificationProgress:
		var p mcp.ProgressParams
		_ = json.Unmarshal(f.Params, &p)
		x = s.tokens[idKey(p.ProgressToken)]
	case f.method() == mcp.NotificationCancelled:
		var p jsonrpc.CancelledParams
		if json.Unmarshal(f.Params, &p) == nil {
			if id, err := strconv.ParseUint(string(p.RequestID), 10, 64); err == nil {
				x = s.routes[id]
			}
		}
	}
	get := s.get
	s.mu.Unlock()
	if x != nil && x.event(msg) == nil {
		return nil
	}
	if get != nil {
		select {
		case get <- msg:
			return nil
		default:
		}
	}
	if f.isRequest() {
		return errors.New("the client has no stream open to receive the request on (no GET stream, and the related request's answer is not a stream)")
	}
	return nil // a notification with nowhere to go is dropped
}

// route files a request to the client under the POST of the request it
// relates to (cl.routeRequest).
func (s *httpSession) route(id uint64, related *call) {
	if related == nil {
		return
	}
	s.mu.Lock()
	if x := s.exchanges[related.id]; x != nil {
		s.routes[id] = x
	}
	s.mu.Unlock()
}

// push queues a POSTed message for the connection.
func (s *httpSession) push(ctx context.Context, msg []byte) bool {
	select {
	case s.in <- msg:
		return true
	case <-s.done:
		return false
	case <-ctx.Done():
		return false
	}
}

// post serves one POST of the session.
func (s *httpSession) post(w http.ResponseWriter, r *http.Request, f *frame, msg []byte) {
	s.cl.touch()
	if !f.isRequest() {
		if f.isResponse() {
			if id, err := strconv.ParseUint(string(f.ID), 10, 64); err == nil {
				s.mu.Lock()
				delete(s.routes, id)
				s.mu.Unlock()
			}
		}
		if !s.push(r.Context(), msg) {
			writeError(w, http.StatusNotFound, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "the session has ended"))
			return
		}
		s.setHeader(w.Header())
		w.WriteHeader(http.StatusAccepted)
		return
	}
	key := idKey(f.ID)
	x := newExchange(w, acceptsSSE(r) && streams(f.method()), s.setHeader)
	s.mu.Lock()
	if s.exchanges[key] != nil {
		s.mu.Unlock()
		writeError(w, http.StatusBadRequest, f.ID, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "request id %s is already in flight in this session; use a new id for every request", key))
		return
	}
	s.exchanges[key] = x
	if token := mcp.MetaValue(mcp.MetaOf(f.Params), mcp.MetaProgressToken); len(token) > 0 {
		s.tokens[idKey(token)] = x
	}
	s.mu.Unlock()
	if s.push(r.Context(), msg) {
		x.wait(r.Context().Done(), s.done)
	} else {
		x.abandon()
	}
	s.mu.Lock()
	if s.exchanges[key] == x {
		delete(s.exchanges, key)
	}
	for tok, tx := range s.tokens {
		if tx == x {
			delete(s.tokens, tok)
		}
	}
	s.mu.Unlock()
}

// stream serves the session's standalone GET stream: messages that belong
// to no request (logs, list changes, resource updates).
func (s *httpSession) stream(w http.ResponseWriter, r *http.Request) {
	if !acceptsSSE(r) {
		writeError(w, http.StatusNotAcceptable, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "the GET stream is text/event-stream; send Accept: text/event-stream"))
		return
	}
	ch := make(chan []byte, sessionQueue)
	s.mu.Lock()
	if s.get != nil {
		s.mu.Unlock()
		writeError(w, http.StatusConflict, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "this session already has a GET stream open"))
		return
	}
	s.get = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.get == ch {
			s.get = nil
		}
		s.mu.Unlock()
	}()
	s.cl.streamOpen(1)
	defer s.cl.streamOpen(-1)
	x := newExchange(w, true, s.setHeader)
	x.mu.Lock()
	x.start()
	x.mu.Unlock()
	t := time.NewTicker(keepAlive)
	defer t.Stop()
	for {
		select {
		case msg := <-ch:
			if x.event(msg) != nil {
				return
			}
			continue
		case <-t.C:
			x.comment()
			continue
		case <-r.Context().Done():
		case <-s.done:
		}
		x.abandon()
		return
	}
}
