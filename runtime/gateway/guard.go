package gateway

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// An HTTP gateway faces clients that may be slow or hostile, with or
// without the token: a request whose body never finishes, hundreds of
// connections that never authenticate, thousands of sessions that only
// initialize. NewHTTPServer and Listener bound each:
//
//   - headers must arrive within 10 s, a POST body within
//     HTTPOptions.BodyTimeout (30 s), and a keep-alive connection idle
//     for 2 minutes is closed;
//   - a request without the token is answered 401 before its body is
//     read, and its connection closed rather than drained;
//   - at most MaxUnauthenticated connections that have not yet shown the
//     token are open at once: the next is answered 503 and closed;
//   - sessions are capped and idle ones expire (Options.MaxHTTPClients,
//     IdleTimeout, HandshakeTimeout).

// Defaults of the HTTP endpoint's bounds.
const (
	// DefaultBodyTimeout is HTTPOptions.BodyTimeout's default.
	DefaultBodyTimeout = 30 * time.Second
	// DefaultMaxUnauthenticated is how many connections that have not
	// shown the token Listener keeps open at once.
	DefaultMaxUnauthenticated = 64
	// headerTimeout bounds the arrival of a request's headers.
	headerTimeout = 10 * time.Second
	// keepAliveIdle closes a keep-alive connection idle this long.
	keepAliveIdle = 2 * time.Minute
	// refuseWithin bounds the write of the 503 to a refused connection.
	refuseWithin = time.Second
)

// NewHTTPServer is the http.Server the gateway's endpoint runs under:
// header and idle timeouts, and the connection tracking Listener needs.
// The body timeout is the handler's (HTTPOptions.BodyTimeout): it must
// not outlive the body, or it would cut the answers that stream.
func NewHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: headerTimeout,
		IdleTimeout:       keepAliveIdle,
		MaxHeaderBytes:    64 << 10,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if gc, ok := c.(*guardedConn); ok {
				return context.WithValue(ctx, connKey{}, gc)
			}
			return ctx
		},
		// Hostile clients make the server log (TLS handshakes, bad
		// requests): nothing may write to the terminal under the TUI.
		ErrorLog: log.New(io.Discard, "", 0),
	}
}

// Listener wraps l so at most max connections that have not shown the
// token are open at once (DefaultMaxUnauthenticated when max <= 0); a
// connection beyond is answered 503 with the reason and closed. A
// connection counts as authenticated from its first request with the
// token. Serve it with a server from NewHTTPServer.
func Listener(l net.Listener, max int) net.Listener {
	if max <= 0 {
		max = DefaultMaxUnauthenticated
	}
	return &guardListener{Listener: l, max: int64(max)}
}

type guardListener struct {
	net.Listener
	max    int64
	unauth atomic.Int64 // open connections that have not shown the token
}

// Accept returns the next connection within the cap; those beyond it are
// refused on their own goroutine, so a flood does not stall the others.
func (l *guardListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.unauth.Add(1) > l.max {
			l.unauth.Add(-1)
			go refuse(c, l.max)
			continue
		}
		return &guardedConn{Conn: c, l: l}, nil
	}
}

// refuse answers a connection over the cap with 503 and closes it.
func refuse(c net.Conn, max int64) {
	body := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Service Unavailable: mcpdeck's gateway already has ` +
		strconv.FormatInt(max, 10) + ` connections that have not shown the token; try again later"}}`
	_ = c.SetDeadline(time.Now().Add(refuseWithin))
	_, _ = io.WriteString(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\nRetry-After: 5\r\nContent-Length: "+
		strconv.Itoa(len(body))+"\r\n\r\n"+body)
	_ = c.Close()
}

// Connection states of a guardedConn.
const (
	connUnauthenticated int32 = iota
	connAuthenticated
	connClosed
)

// guardedConn counts against its listener's cap until it authenticates
// or closes.
type guardedConn struct {
	net.Conn
	l     *guardListener
	state atomic.Int32
}

func (c *guardedConn) authenticated() {
	if c.state.CompareAndSwap(connUnauthenticated, connAuthenticated) {
		c.l.unauth.Add(-1)
	}
}

func (c *guardedConn) Close() error {
	if c.state.Swap(connClosed) == connUnauthenticated {
		c.l.unauth.Add(-1)
	}
	return c.Conn.Close()
}

// CloseWrite lets the server end its side of the connection first, as it
// does with a plain TCP connection, so the client reads the last answer
// before the connection goes.
func (c *guardedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

type connKey struct{}

// markAuthenticated tells the request's connection, if Listener tracks
// it, that it showed the token.
func markAuthenticated(r *http.Request) {
	if gc, ok := r.Context().Value(connKey{}).(*guardedConn); ok {
		gc.authenticated()
	}
}
