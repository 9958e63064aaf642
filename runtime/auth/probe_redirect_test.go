package auth

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"mcpdeck/jsonrpc/mcphttp"
	"mcpdeck/runtime/auth/authtest"
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

// TestLoginProbeSendsTheConfiguredHeaders: a server behind an API gateway
// that wants X-Api-Key (mcp.json "headers") answers a request without it
// with the gateway's bare 403, not the server's OAuth challenge. The
// login's probe sends the configured headers, as every other request to
// the server does, so it sees the challenge and the login goes through;
// it used to send none and word the gateway's 403 as "it needs no login".
func TestLoginProbeSendsTheConfiguredHeaders(t *testing.T) {
	t.Parallel()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{Clients: map[string]string{"pre": ""}})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{APIKey: "gw-key-7f3a9c21"})
	h := newHarness(t, nil)
	tgt := target(rs, preregistered("pre"))
	tgt.Headers = map[string]string{"X-Api-Key": "gw-key-7f3a9c21"}
	st, err := h.login(tgt)
	if err != nil {
		t.Fatalf("Login behind an API gateway with its key configured: %v", err)
	}
	if !st.TokenPresent || st.AuthorizationServer != as.Issuer {
		t.Fatalf("status = %+v", st)
	}
	h.echo(tgt)
}
