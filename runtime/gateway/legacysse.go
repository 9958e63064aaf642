package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"mcpdeck/jsonrpc"
)

// LegacySSEHandler serves the deprecated HTTP+SSE transport of protocol
// revision 2024-11-05 to clients that speak nothing newer: GET on the
// stream path opens an SSE stream whose first event, "endpoint", names
// where to POST (messagePath?sessionId=…); every POSTed message is
// answered 202 Accepted, and the answers, notifications and the server's
// own requests arrive as "message" events on the stream. The session
// lives as long as the stream. Mount it at the stream path (mcpdeck uses
// /sse) and at messagePath (/message). The same checks as the Streamable
// HTTP endpoint apply: Host, Origin, and the token or OAuth.
func (g *Gateway) LegacySSEHandler(opts HTTPOptions, messagePath string) http.Handler {
	if opts.MaxBodySize <= 0 {
		opts.MaxBodySize = jsonrpc.DefaultMaxMessageSize
	}
	return &httpHandler{g: g, opts: opts, legacy: &legacySSE{g: g, messagePath: messagePath, sessions: map[string]*sseSession{}}}
}

// legacySSE is the HTTP+SSE transport's sessions.
type legacySSE struct {
	g           *Gateway
	messagePath string

	mu       sync.Mutex
	sessions map[string]*sseSession
}

// sseSession is one HTTP+SSE client: its messages come in by POST and go
// out on its stream. It is the jsonrpc.Stream of the client's connection.
type sseSession struct {
	l    *legacySSE
	id   string
	cl   *client
	conn *jsonrpc.Conn
	in   chan []byte
	out  chan []byte
	done chan struct{}
	once sync.Once
}

// serve answers a request that passed the endpoint's checks.
func (l *legacySSE) serve(h *httpHandler, w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		l.open(w, r)
	case http.MethodPost:
		l.post(h, w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		writeError(w, http.StatusMethodNotAllowed, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "method %s is not allowed: the HTTP+SSE transport GETs its stream and POSTs its messages", r.Method))
	}
}

// open serves a session's stream for as long as the client keeps it.
func (l *legacySSE) open(w http.ResponseWriter, r *http.Request) {
	if !acceptsSSE(r) {
		writeError(w, http.StatusNotAcceptable, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "the HTTP+SSE stream is text/event-stream; send Accept: text/event-stream"))
		return
	}
	s := &sseSession{l: l, id: rand.Text(), in: make(chan []byte, sessionQueue), out: make(chan []byte, sessionQueue), done: make(chan struct{})}
	cl := l.g.newClient(TransportHTTP, "sse", r.RemoteAddr)
	cl.setIdentity(IdentityFrom(r.Context()))
	s.cl = cl
	ready := make(chan struct{})
	s.conn = jsonrpc.NewConn(s, jsonrpc.Options{
		Handler: func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			<-ready
			return l.g.handle(ctx, cl, req, s.conn.Notify)
		},
		OnNotification: func(n jsonrpc.Notification) {
			<-ready
			l.g.onNotification(cl, n)
		},
	})
	cl.conn = s.conn
	cl.closeTransport = s.close
	close(ready)
	l.mu.Lock()
	l.sessions[s.id] = s
	l.mu.Unlock()
	if err := l.g.attach(cl); err != nil {
		s.close()
		cl.out.stop()
		writeError(w, http.StatusServiceUnavailable, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "%v", err))
		return
	}
	cl.streamOpen(1)
	defer cl.streamOpen(-1)

	x := newExchange(w, true, nil)
	x.mu.Lock()
	x.start()
	_, err := io.WriteString(w, "event: endpoint\ndata: "+l.messagePath+"?sessionId="+s.id+"\n\n")
	_ = x.rc.Flush()
	x.mu.Unlock()
	reason := "the client closed its stream"
	if err == nil {
		reason = s.pump(x, r.Context())
	}
	if reason != "" {
		l.g.detach(cl, reason)
	}
	x.abandon()
}

// pump writes the session's messages to its stream until one of them
// ends; it returns why, "" when the gateway ended the client.
func (s *sseSession) pump(x *exchange, ctx context.Context) string {
	t := time.NewTicker(keepAlive)
	defer t.Stop()
	for {
		select {
		case msg := <-s.out:
			if err := x.event(msg); err != nil {
				return "its stream failed: " + err.Error()
			}
			s.cl.replied(msg)
		case <-t.C:
			x.comment()
		case <-ctx.Done():
			return "the client closed its stream"
		case <-s.done:
			return ""
		}
	}
}

// post takes one message of a session.
func (l *legacySSE) post(h *httpHandler, w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("sessionId")
	l.mu.Lock()
	s := l.sessions[id]
	l.mu.Unlock()
	if s != nil {
		if who := IdentityFrom(r.Context()); who != nil && s.cl.identityID() != who.ID {
			s = nil // another identity's session: not found, to them
		}
	}
	if s == nil {
		writeError(w, http.StatusNotFound, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "session %q not found: it ended, or mcpdeck restarted; open the stream (GET) again", id))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodySize))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "the message is larger than %d bytes", h.opts.MaxBodySize))
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, nil, jsonrpc.NewError(jsonrpc.CodeParseError, "reading the message: %v", err))
		return
	}
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		writeError(w, http.StatusBadRequest, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not supported: send one message per POST"))
		return
	}
	var f frame
	if err := json.Unmarshal(body, &f); err != nil || (!f.isRequest() && !f.isNotification() && !f.isResponse()) {
		writeError(w, http.StatusBadRequest, nil, jsonrpc.NewError(jsonrpc.CodeParseError, "not a JSON-RPC message"))
		return
	}
	s.cl.touch()
	select {
	case s.in <- body:
	case <-s.done:
		writeError(w, http.StatusNotFound, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "the session has ended"))
		return
	case <-r.Context().Done():
		return
	}
	w.WriteHeader(http.StatusAccepted)
	_, _ = io.WriteString(w, "Accepted")
}

// Read returns the next message the client POSTed.
func (s *sseSession) Read() ([]byte, error) {
	select {
	case b := <-s.in:
		return b, nil
	case <-s.done:
		return nil, io.EOF
	}
}

// Write queues a message for the stream; it waits while the stream is
// behind (the client's outbox absorbs that), and fails once it ended.
func (s *sseSession) Write(msg []byte) error {
	select {
	case s.out <- bytes.Clone(msg):
		return nil
	case <-s.done:
		return errGone
	}
}

// Close is the connection's; the session closes through close.
func (s *sseSession) Close() error {
	s.once.Do(func() {
		close(s.done)
		s.l.mu.Lock()
		delete(s.l.sessions, s.id)
		s.l.mu.Unlock()
	})
	return nil
}

// close ends the session: its stream and its connection.
func (s *sseSession) close() {
	_ = s.Close()
	_ = s.conn.Close()
}
