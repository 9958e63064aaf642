package gateway

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// hardened serves g the way the CLI does (NewHTTPServer over Listener) on
// a loopback port and returns its address.
func hardened(t *testing.T, g *Gateway, opts HTTPOptions, maxUnauth int) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewHTTPServer(newHTTPMux(g, opts))
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(Listener(l, maxUnauth))
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
	})
	return l.Addr().String()
}

// rawConn is a client connection written by hand, for requests no HTTP
// client library would send.
type rawConn struct {
	t *testing.T
	net.Conn
	r *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{t: t, Conn: c, r: bufio.NewReader(c)}
}

// post writes a POST's headers announcing length body bytes, and the
// first part of the body.
func (c *rawConn) post(token string, length int, part string) {
	c.t.Helper()
	c.postTo("/mcp", token, length, part)
}

// postTo is post to another path (the legacy transport's message endpoint).
func (c *rawConn) postTo(path, token string, length int, part string) {
	c.t.Helper()
	auth := ""
	if token != "" {
		auth = "Authorization: Bearer " + token + "\r\n"
	}
	_, err := fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%sContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", path, auth, length, part)
	if err != nil {
		c.t.Fatal(err)
	}
}

// response reads one response within d and returns its status and body.
func (c *rawConn) response(d time.Duration) (int, string) {
	c.t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(d))
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		c.t.Fatalf("no response within %s: %v", d, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// closedWithin checks that the server closes the connection within d.
func (c *rawConn) closedWithin(d time.Duration) {
	c.t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := c.r.ReadByte()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		c.t.Fatalf("the server kept the connection open for %s", d)
	}
}

// A POST whose body never finishes is answered 408 once BodyTimeout
// passes, and its connection closed: it used to hold the connection (and
// its handler) for ever.
func TestBodyThatNeverFinishesIsCutOff(t *testing.T) {
	t.Parallel()
	g := newGateway(t, newRuntime(t), Options{})
	addr := hardened(t, g, HTTPOptions{Token: testToken, LoopbackOnly: true, BodyTimeout: 300 * time.Millisecond}, 0)
	c := dialRaw(t, addr)
	c.post(testToken, 1000, `{"jsonrpc":"2.0",`)
	status, body := c.response(10 * time.Second)
	if status != http.StatusRequestTimeout || !strings.Contains(body, "did not arrive within 300ms") {
		t.Fatalf("%d %s", status, body)
	}
	c.closedWithin(5 * time.Second)
}

// A request without the token is answered 401 before its body is read,
// and the connection is closed rather than drained: a body trickling in
// cannot hold it.
func TestUnauthenticatedAnsweredBeforeTheBody(t *testing.T) {
	t.Parallel()
	g := newGateway(t, newRuntime(t), Options{})
	addr := hardened(t, g, HTTPOptions{Token: testToken, LoopbackOnly: true}, 0)
	c := dialRaw(t, addr)
	c.post("", 100_000, "{")
	status, body := c.response(5 * time.Second)
	if status != http.StatusUnauthorized || !strings.Contains(body, "Unauthorized") {
		t.Fatalf("%d %s", status, body)
	}
	c.closedWithin(5 * time.Second)
}

// At most maxUnauth connections that have not shown the token are open at
// once; the next is answered 503 with the reason. One that authenticates
// no longer counts, and a closed one frees its place.
func TestUnauthenticatedConnectionsAreCapped(t *testing.T) {
	t.Parallel()
	const limit = 8
	g := newGateway(t, newRuntime(t), Options{})
	addr := hardened(t, g, HTTPOptions{Token: testToken, LoopbackOnly: true}, limit)
	var idle []*rawConn
	for range limit {
		c := dialRaw(t, addr)
		// Half a request: the server holds it, waiting for the rest.
		if _, err := io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"); err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	over := dialRaw(t, addr)
	status, body := over.response(5 * time.Second)
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "8 connections that have not shown the token") {
		t.Fatalf("the connection over the cap: %d %s", status, body)
	}
	// One of them finishes its request with the token: it no longer
	// counts, so a new connection is served.
	if _, err := io.WriteString(idle[0], "Authorization: Bearer "+testToken+"\r\nContent-Length: 2\r\n\r\n{}"); err != nil {
		t.Fatal(err)
	}
	if status, _ := idle[0].response(5 * time.Second); status != http.StatusBadRequest {
		t.Fatalf("the authenticated request: %d, want 400 for {}", status)
	}
	next := dialRaw(t, addr)
	next.post(testToken, 2, "{}")
	if status, body := next.response(5 * time.Second); status != http.StatusBadRequest {
		t.Fatalf("a connection after one authenticated: %d %s", status, body)
	}
}

const initializeFrame = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"initialize-only","version":"1"}}}`

// Sessions are capped: one more is refused with 503 and the reason. A
// session that only initialized is let go after HandshakeTimeout, which
// frees its place. The timeout must outlast the four initializes that
// fill the cap and go over it: at 500ms, a test descheduled for 600ms on
// a loaded machine saw the first session expire first and the fourth
// accepted.
func TestSessionsAreCappedAndHandshakeOnlyOnesExpire(t *testing.T) {
	t.Parallel()
	g := newGateway(t, newRuntime(t), Options{MaxHTTPClients: 3, HandshakeTimeout: 3 * time.Second})
	events, cancel := g.Subscribe()
	defer cancel()
	addr := hardened(t, g, HTTPOptions{Token: testToken, LoopbackOnly: true}, 0)
	initialize := func() (int, string) {
		c := dialRaw(t, addr)
		c.post(testToken, len(initializeFrame), initializeFrame)
		return c.response(10 * time.Second)
	}
	for i := range 3 {
		if status, body := initialize(); status != http.StatusOK {
			t.Fatalf("session %d: %d %s", i+1, status, body)
		}
	}
	status, body := initialize()
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "keeps 3 HTTP sessions and clients at most") {
		t.Fatalf("the session over the cap: %d %s", status, body)
	}
	detached := 0
	deadline := time.After(20 * time.Second)
	for detached < 3 {
		select {
		case e := <-events:
			if d, ok := e.(ClientDetached); ok {
				if !strings.Contains(d.Reason, "idle for") {
					t.Fatalf("detached for %q", d.Reason)
				}
				detached++
			}
		case <-deadline:
			t.Fatalf("only %d of the initialize-only sessions expired", detached)
		}
	}
	if status, body := initialize(); status != http.StatusOK {
		t.Fatalf("a session after the others expired: %d %s", status, body)
	}
}

// A configured token too short or too plain is refused for a gateway
// other machines can reach, with what a good one is.
func TestWeakTokenRefusedForRemote(t *testing.T) {
	t.Parallel()
	for _, tok := range []string{"abc", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "2025-11-25", strings.Repeat("ab", 20)} {
		err := CheckBind("0.0.0.0:8080", true, tok, true)
		if !errors.Is(err, ErrWeakToken) || !strings.Contains(err.Error(), "at least 32 characters") {
			t.Errorf("token %q: %v", tok, err)
		}
	}
	if err := CheckBind("0.0.0.0:8080", true, NewToken(), true); err != nil {
		t.Errorf("a generated token: %v", err)
	}
	if err := CheckBind("0.0.0.0:8080", true, "3q2+7w8Hv5yE1nK0pZ4cR9tB6sU2mA7x", true); err != nil {
		t.Errorf("a random base64 token: %v", err)
	}
}
