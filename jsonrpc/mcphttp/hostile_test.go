package mcphttp_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/mcphttp"
)

// credentials are the configured headers a redirect must not carry away.
var credentials = map[string]string{"Authorization": "Bearer tok-0123456789", "X-Api-Key": "key-0123456789"}

// A server that redirects to another origin (here: another port, where
// net/http would forward even Authorization) gets no credentials sent
// there, and the target's answer is never taken.
func TestRedirectToAnotherOriginIsRefused(t *testing.T) {
	t.Parallel()
	var reached atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"thief","version":"1"}}}`)
	}))
	defer other.Close()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer origin.Close()

	c := dial(t, mcphttp.Options{URL: origin.URL + "/mcp", Headers: credentials})
	_, err := c.conn.Call(ctxT(t), "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "0"}})
	if !errors.Is(err, mcphttp.ErrRedirected) {
		t.Fatalf("initialize = %v, want ErrRedirected", err)
	}
	for _, want := range []string{other.URL, "does not forward credentials to another origin", "put the final URL in mcp.json"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("the other origin received %d request(s)", n)
	}
}

// A same-origin 307 is followed, headers and body included.
func TestSameOriginRedirectIsFollowed(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	var keys atomic.Value
	mux := http.NewServeMux()
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/mcp", http.StatusPermanentRedirect)
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		keys.Store(r.Header.Get("X-Api-Key"))
		f.serve(w, r)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := dial(t, mcphttp.Options{URL: srv.URL + "/old", Headers: credentials})
	c.initialize(t)
	if got, _ := keys.Load().(string); got != credentials["X-Api-Key"] {
		t.Fatalf("X-Api-Key after a same-origin redirect = %q, want it kept", got)
	}
}

// A POST redirected with 302 would arrive as a GET without its message.
func TestPostRedirectThatChangesMethodFails(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/mcp", http.StatusFound)
			return
		}
		http.Error(w, "wrong", http.StatusMethodNotAllowed)
	}))
	defer srv.Close()
	c := dial(t, mcphttp.Options{URL: srv.URL + "/old"})
	_, err := c.conn.Call(ctxT(t), "initialize", map[string]any{"protocolVersion": "2025-06-18"})
	if !errors.Is(err, mcphttp.ErrRedirected) || !strings.Contains(err.Error(), "HTTP 302") {
		t.Fatalf("initialize = %v, want ErrRedirected naming HTTP 302", err)
	}
}

// Invalid JSON in an application/json answer is reported as such, not as
// "the JSON body held no response".
func TestInvalidJSONAnswer(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.setCall(func(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[`, id)
	})
	c := dial(t, mcphttp.Options{URL: f.URL})
	c.initialize(t)
	_, err := c.callTool(ctxT(t), "x", map[string]any{}, nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || !strings.Contains(rpcErr.Message, "is not valid JSON") || strings.Contains(rpcErr.Message, "held no response") {
		t.Fatalf("call = %v, want an error saying the body is not valid JSON", err)
	}
}
