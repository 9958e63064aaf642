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
// with the gateway's bare 403, not the server's OAuth challenge, on every
// path of its origin. The login's probe and its discovery GET of the
// protected resource metadata send the configured headers, as every other
// request to the server does, so the login goes through; the probe used
// to send none and word the gateway's 403 as "it needs no login", and the
// discovery still sent none, fell back to the 2025-03-26 guesses at the
// server's origin and sent the browser where the gateway refused it. The
// authorization server never gets them.
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
	if as.SawHeader("X-Api-Key") {
		t.Error("the authorization server got the server's X-Api-Key")
	}
}

// TestDiscoveryKeepsTheHeadersToTheServersOrigin: protected resource
// metadata the challenge names on another origin is fetched without the
// server's configured headers, and so is metadata the server's own origin
// redirects to another: they are the server's credentials.
func TestDiscoveryKeepsTheHeadersToTheServersOrigin(t *testing.T) {
	t.Parallel()
	const key = "gw-key-7f3a9c21"
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{Clients: map[string]string{"pre": ""}})
	var rs *authtest.Resource
	var leaked atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "" {
			leaked.Add(1)
		}
		rs.ServeMetadata(w)
	}))
	defer elsewhere.Close()
	rs = authtest.NewResource(t, as, authtest.ResourceOptions{APIKey: key, MetadataURL: elsewhere.URL + "/prm"})
	h := newHarness(t, nil)
	tgt := target(rs, preregistered("pre"))
	tgt.Headers = map[string]string{"X-Api-Key": key}
	if _, err := h.login(tgt); err != nil {
		t.Fatalf("Login with metadata on another origin: %v", err)
	}
	if n := leaked.Load(); n != 0 {
		t.Errorf("the metadata's other origin got the server's X-Api-Key %d times", n)
	}

	// The server's well-known URL redirects to the other origin.
	var keyed atomic.Int32
	moved := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") == key {
			keyed.Add(1)
		}
		http.Redirect(w, r, elsewhere.URL+"/prm", http.StatusFound)
	}))
	defer moved.Close()
	_, err := Discover(t.Context(), http.DefaultClient, moved.URL+"/mcp", tgt.Headers, nil, "")
	if n := leaked.Load(); n != 0 || keyed.Load() == 0 {
		t.Errorf("discovery redirected to another origin: %v; the server's origin got the key %d times, the other %d", err, keyed.Load(), n)
	}
}
