package auth

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"mcpdeck/jsonrpc/mcphttp"
)

// TestLoginProbeKeepsTheTransportsRedirectPolicy: the login's probe of
// the MCP endpoint takes the redirect policy every MCP request takes. A
// server whose URL redirects to another origin is refused with the
// transport's error (put the final URL in mcp.json), as call, check and
// the gateway refuse it; the probe used to follow the redirect and word
// the other origin's answer as the server's own ("it needs no login"), or
// start a login for a server no connection would ever reach.
func TestLoginProbeKeepsTheTransportsRedirectPolicy(t *testing.T) {
	t.Parallel()
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	defer other.Close()
	moved := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer moved.Close()

	h := newHarness(t, nil)
	_, err := h.login(Target{Name: "moved", URL: moved.URL + "/mcp"})
	if !errors.Is(err, mcphttp.ErrRedirected) {
		t.Errorf("Login to a server that redirects to another origin: %v, want the transport's %q", err, mcphttp.ErrRedirected)
	}
	if errors.Is(err, ErrNoAuthorization) {
		t.Errorf("the other origin's answer was taken for the server's: %v", err)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the other origin got %d requests", n)
	}
}
