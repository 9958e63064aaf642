package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/mcphttp"
)

// A response stream that drops after retry: and an event id is resumed
// with GET and Last-Event-ID, and the result is taken from there.
func TestResumeDroppedResponseStream(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	lastEventID := make(chan string, 1)
	f.setCall(func(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
		startSSE(w)
		sse(w, "id: ev-1\nretry: 20\ndata: \n\n") // priming event
		sse(w, "id: ev-2\ndata: %s\n\n", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`)
		f.setGet(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Last-Event-ID") == "" {
				http.Error(w, "not now", http.StatusMethodNotAllowed)
				return
			}
			lastEventID <- r.Header.Get("Last-Event-ID")
			startSSE(w)
			sse(w, "id: ev-3\ndata: %s\n\n", result(id, "resumed"))
		})
		panic(http.ErrAbortHandler) // drop the connection mid-response
	})
	c := dial(t, mcphttp.Options{URL: f.URL})
	c.initialize(t)
	res, err := c.callTool(ctxT(t), "x", map[string]any{}, nil)
	if err != nil || res.text() != "resumed" {
		t.Fatalf("call = %+v, %v; want the result from the resumed stream", res, err)
	}
	if got := waitSignal(t, lastEventID, "the resuming GET"); got != "ev-2" {
		t.Fatalf("resumed with Last-Event-ID %q, want ev-2", got)
	}
	c.waitNote(t, "notifications/progress")
}

// A stream that ends without the response and without an event id fails
// that request alone, with a reason.
func TestResponseStreamEndsWithoutID(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.setCall(func(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
		startSSE(w)
		sse(w, "data: %s\n\n", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
	})
	c := dial(t, mcphttp.Options{URL: f.URL})
	c.initialize(t)
	_, err := c.callTool(ctxT(t), "x", map[string]any{}, nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcphttp.CodeTransportError || !strings.Contains(rpcErr.Message, "no event id") {
		t.Fatalf("call = %v, want a -32000 error saying the stream cannot be resumed", err)
	}
}

func TestSessionExpired(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status int
		body   string
	}{
		{"404", http.StatusNotFound, "session not found"},
		{"400-no-valid-session", http.StatusBadRequest, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			release := make(chan struct{})
			started := make(chan struct{}, 1)
			f.setCall(func(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
				startSSE(w)
				started <- struct{}{}
				select {
				case <-release:
				case <-r.Context().Done():
				}
			})
			defer close(release)
			c := dial(t, mcphttp.Options{URL: f.URL})
			c.initialize(t)
			errc := make(chan error, 1)
			go func() { _, err := c.callTool(ctxT(t), "slow", map[string]any{}, nil); errc <- err }()
			waitSignal(t, started, "the slow call to reach the server")

			// The next request is answered "session gone": every
			// outstanding request is rejected with the cause.
			f.setCall(func(w http.ResponseWriter, r *http.Request, id json.RawMessage) { http.Error(w, tc.body, tc.status) })
			_, err := c.callTool(ctxT(t), "next", map[string]any{}, nil)
			for _, err := range []error{err, waitSignal(t, errc, "the outstanding call to be rejected")} {
				var closed *jsonrpc.ClosedError
				if !errors.As(err, &closed) || !errors.Is(err, mcphttp.ErrSessionExpired) {
					t.Fatalf("call = %v, want a ClosedError wrapping ErrSessionExpired", err)
				}
				if !strings.Contains(err.Error(), "reconnect") {
					t.Errorf("error %q should say what to do", err)
				}
			}
			c.conn.Close()
			if n := f.deleteCount(); n != 0 {
				t.Errorf("%d DELETE sent for an expired session", n)
			}
		})
	}
}

// A 500 fails that request alone, quoting the body; the connection stays.
func TestServerError(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.setCall(func(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
		http.Error(w, "database exploded\n  at handler.go:12\n"+strings.Repeat("x", 1000), http.StatusInternalServerError)
	})
	c := dial(t, mcphttp.Options{URL: f.URL})
	c.initialize(t)
	_, err := c.callTool(ctxT(t), "x", map[string]any{}, nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcphttp.CodeTransportError || !mcphttp.IsTransport(err) {
		t.Fatalf("call = %v, want a -32000 error the stream synthesized", err)
	}
	for _, want := range []string{"500", "database exploded at handler.go:12", "server's logs"} {
		if !strings.Contains(rpcErr.Message, want) {
			t.Errorf("message %q lacks %q", rpcErr.Message, want)
		}
	}
	if len(rpcErr.Message) > 600 {
		t.Errorf("message is %d bytes; the body excerpt should be short", len(rpcErr.Message))
	}
	f.setCall(echoCall)
	if res, err := c.callTool(ctxT(t), "x", map[string]any{}, nil); err != nil || res.text() != "ok" {
		t.Fatalf("call after the 500 = %+v, %v", res, err)
	}
}

// A server may answer a request it rejects with HTTP 400 and a proper
// JSON-RPC error in the body: the caller gets the server's own code.
func TestJSONRPCErrorInA4xxBody(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.setCall(func(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"unknown tool: x"}}`, id)
	})
	c := dial(t, mcphttp.Options{URL: f.URL})
	c.initialize(t)
	_, err := c.callTool(ctxT(t), "x", map[string]any{}, nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || rpcErr.Message != "unknown tool: x" {
		t.Fatalf("call = %v, want the server's -32602", err)
	}
}

func TestOversizedResponse(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("y", 4096)
	for _, tc := range []struct {
		name string
		call func(w http.ResponseWriter, r *http.Request, id json.RawMessage)
	}{
		{"json", func(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, result(id, big))
		}},
		{"sse", func(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
			startSSE(w)
			sse(w, "data: %s\n\n", result(id, big))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.setCall(tc.call)
			c := dial(t, mcphttp.Options{URL: f.URL, MaxMessageSize: 1024})
			c.initialize(t)
			_, err := c.callTool(ctxT(t), "x", map[string]any{}, nil)
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) || !strings.Contains(rpcErr.Message, "1024-byte limit") {
				t.Fatalf("call = %v, want an error naming the limit", err)
			}
			f.setCall(echoCall)
			if res, err := c.callTool(ctxT(t), "x", map[string]any{}, nil); err != nil || res.text() != "ok" {
				t.Fatalf("call after the oversized answer = %+v, %v", res, err)
			}
		})
	}
}

// A server that never sends headers: the call times out, the cancellation
// aborts the HTTP exchange, and Close leaves nothing running.
func TestNeverSendsHeaders(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	aborted := make(chan struct{}, 1)
	f.setCall(func(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
		<-r.Context().Done()
		aborted <- struct{}{}
	})
	c := dial(t, mcphttp.Options{URL: f.URL})
	c.initialize(t)
	ctx, cancel := context.WithTimeout(ctxT(t), 100*time.Millisecond)
	defer cancel()
	_, err := c.callTool(ctx, "x", map[string]any{}, nil)
	if !errors.Is(err, jsonrpc.ErrTimeout) {
		t.Fatalf("call = %v, want ErrTimeout", err)
	}
	waitSignal(t, aborted, "the server to see the exchange aborted")
}

func TestInitializeNeverAnswered(t *testing.T) {
	t.Parallel()
	stall := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stall:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(ts.Close)
	defer close(stall)
	c := dial(t, mcphttp.Options{URL: ts.URL})
	ctx, cancel := context.WithTimeout(ctxT(t), 100*time.Millisecond)
	defer cancel()
	_, err := c.conn.Call(ctx, "initialize", map[string]any{}, jsonrpc.WithoutCancelNotification())
	if !errors.Is(err, jsonrpc.ErrTimeout) {
		t.Fatalf("initialize = %v, want ErrTimeout", err)
	}
	closed := make(chan error, 1)
	go func() { closed <- c.conn.Close() }()
	waitSignal(t, closed, "Close to return")
}

func TestUnauthorized(t *testing.T) {
	t.Parallel()
	const secret = "Bearer very-secret-value"
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
				http.Error(w, "bad token: "+r.Header.Get("Authorization"), status)
			}))
			t.Cleanup(ts.Close)
			c := dial(t, mcphttp.Options{URL: ts.URL + "/mcp?api_key=in-query", Headers: map[string]string{"authorization": secret}})
			_, err := c.conn.Call(ctxT(t), "initialize", map[string]any{})
			var closed *jsonrpc.ClosedError
			if !errors.As(err, &closed) || !errors.Is(err, mcphttp.ErrUnauthorized) {
				t.Fatalf("initialize = %v, want a ClosedError wrapping ErrUnauthorized", err)
			}
			msg := err.Error()
			for _, want := range []string{fmt.Sprint(status), "Authorization", `realm="mcp"`} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q lacks %q", msg, want)
				}
			}
			for _, leak := range []string{"very-secret-value", "in-query"} {
				if strings.Contains(msg, leak) {
					t.Errorf("error %q leaks %q", msg, leak)
				}
			}
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c := dial(t, mcphttp.Options{URL: "http://" + addr + "/mcp"})
	_, err = c.conn.Call(ctxT(t), "initialize", map[string]any{})
	if !errors.Is(err, mcphttp.ErrUnreachable) || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "running") {
		t.Fatalf("initialize = %v, want ErrUnreachable saying connection refused and what to check", err)
	}
}

func TestTLSFailure(t *testing.T) {
	t.Parallel()
	ts := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(ts.Close)
	c := dial(t, mcphttp.Options{URL: ts.URL})
	_, err := c.conn.Call(ctxT(t), "initialize", map[string]any{})
	if !errors.Is(err, mcphttp.ErrTLS) || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("initialize = %v, want ErrTLS naming the certificate", err)
	}
	// Plain HTTP on an https URL.
	plain := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(plain.Close)
	c = dial(t, mcphttp.Options{URL: strings.Replace(plain.URL, "http:", "https:", 1)})
	_, err = c.conn.Call(ctxT(t), "initialize", map[string]any{})
	if !errors.Is(err, mcphttp.ErrTLS) || !strings.Contains(err.Error(), "http://") {
		t.Fatalf("initialize over https to a plain server = %v, want ErrTLS suggesting http://", err)
	}
}

// The standalone stream is reopened when it drops, with Last-Event-ID.
func TestStandaloneReconnect(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	gets := make(chan string, 4)
	n := 0
	f.setGet(func(w http.ResponseWriter, r *http.Request) {
		gets <- r.Header.Get("Last-Event-ID")
		n++
		startSSE(w)
		sse(w, "id: g%d\nretry: 10\ndata: %s\n\n", n, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
		if n == 1 {
			panic(http.ErrAbortHandler)
		}
		<-r.Context().Done()
	})
	c := dial(t, mcphttp.Options{URL: f.URL})
	c.initialize(t)
	if got := waitSignal(t, gets, "the first GET"); got != "" {
		t.Fatalf("first GET had Last-Event-ID %q", got)
	}
	c.waitNote(t, "notifications/tools/list_changed")
	if got := waitSignal(t, gets, "the GET stream to be reopened"); got != "g1" {
		t.Fatalf("reopened with Last-Event-ID %q, want g1", got)
	}
	c.waitNote(t, "notifications/tools/list_changed")
	c.conn.Close()
	if n := f.deleteCount(); n != 1 {
		t.Fatalf("%d DELETE on close, want 1", n)
	}
	for _, r := range f.rec.requests()[1:] {
		if r.Header.Get("Mcp-Session-Id") != fakeSession || r.Header.Get("Mcp-Protocol-Version") != "2025-06-18" {
			t.Errorf("%s without session headers: %v", r.Method, r.Header)
		}
	}
}

// The legacy transport cannot resume: its stream closing ends the session.
func TestLegacyStreamDrop(t *testing.T) {
	t.Parallel()
	drop := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			startSSE(w)
			sse(w, "event: endpoint\ndata: /messages?session=abc\n\n")
			select {
			case <-drop:
			case <-r.Context().Done():
			}
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(ts.Close)
	c := dial(t, mcphttp.Options{URL: ts.URL + "/sse", Legacy: true})
	errc := make(chan error, 1)
	go func() { _, err := c.conn.Call(ctxT(t), "tools/list", nil); errc <- err }()
	close(drop)
	err := waitSignal(t, errc, "the outstanding call to be rejected")
	if !errors.Is(err, mcphttp.ErrSessionExpired) || !strings.Contains(err.Error(), "cannot resume") {
		t.Fatalf("call = %v, want ErrSessionExpired explaining the legacy stream closed", err)
	}
}

func TestLegacyEndpointOtherOrigin(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		startSSE(w)
		sse(w, "event: endpoint\ndata: http://elsewhere.example/messages\n\n")
		<-r.Context().Done()
	}))
	t.Cleanup(ts.Close)
	_, err := mcphttp.Dial(ctxT(t), mcphttp.Options{URL: ts.URL, Legacy: true, Headers: map[string]string{"Authorization": "x"}})
	if !errors.Is(err, mcphttp.ErrBadResponse) || !strings.Contains(err.Error(), "another origin") {
		t.Fatalf("Dial = %v, want a refusal to follow an endpoint on another origin", err)
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"", "ftp://host/x", "/relative"} {
		if _, err := mcphttp.Dial(ctxT(t), mcphttp.Options{URL: u}); !errors.Is(err, mcphttp.ErrBadOptions) {
			t.Errorf("Dial(%q) = %v, want ErrBadOptions", u, err)
		}
	}
	o := mcphttp.Options{URL: "https://user:pw@host/mcp?token=abc", Headers: map[string]string{"x-api-key": "k-123456"}}
	s := o.String()
	for _, leak := range []string{"pw", "abc", "k-123456"} {
		if strings.Contains(s, leak) {
			t.Errorf("Options.String() = %q leaks %q", s, leak)
		}
	}
	if !strings.Contains(s, "X-Api-Key") {
		t.Errorf("Options.String() = %q should name the header", s)
	}
}

// A server's own -32000 (a code servers commonly use for their failures)
// is the server's answer, not a failed exchange: IsTransport tells it from
// the ones the stream synthesizes, which the runtime words as "the HTTP
// exchange failed: check the url" (found by qa3, over stdio as well).
func TestServerOwnMinus32000IsNotTransport(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.setCall(func(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"boom"}}`, id)
	})
	c := dial(t, mcphttp.Options{URL: f.URL})
	c.initialize(t)
	_, err := c.callTool(ctxT(t), "x", map[string]any{}, nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32000 || rpcErr.Message != "boom" {
		t.Fatalf("call = %v, want the server's -32000", err)
	}
	if mcphttp.IsTransport(err) {
		t.Error("IsTransport takes the server's own -32000 for a failed exchange")
	}
}
