package gateway

import (
	"context"
	"crypto/rand"
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
	h := g.httpHandler(opts)
	h.legacy = &legacySSE{g: g, messagePath: messagePath, sessions: map[string]*sseSession{}}
	return h
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
	*posted
	out chan jsonrpc.Message
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
	s := &sseSession{l: l, id: rand.Text(), out: make(chan jsonrpc.Message, sessionQueue)}
	s.posted = newPosted(func() {
		l.mu.Lock()
		delete(l.sessions, s.id)
		l.mu.Unlock()
	})
	cl := l.g.newClient(TransportHTTP, "sse", r.RemoteAddr)
	cl.setIdentity(IdentityFrom(r.Context()))
	s.cl = cl
	l.g.serveConn(cl, s, nil, func(conn *jsonrpc.Conn) {
		s.conn, cl.conn, cl.closeTransport = conn, conn, s.close
	})
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
			if err := x.event(msg.Frame); err != nil {
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
	body, _, ok := h.readMessage(w, r)
	if !ok {
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

// Write queues a message for the stream; it waits while the stream is
// behind (the client's outbox absorbs that), within ctx, and fails once it
// ended.
func (s *sseSession) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case s.out <- msg:
		return nil
	case <-s.done:
		return errGone
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// close ends the session: its stream and its connection.
func (s *sseSession) close() {
	_ = s.Close()
	_ = s.conn.Close()
}
