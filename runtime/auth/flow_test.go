package auth

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/mcphttp"
	"mcpdeck/runtime/auth/authtest"
)

// TestLoginDiscovery logs in through every discovery path: the protected
// resource metadata from the challenge's URL and from each well-known
// fallback, and authorization server metadata by RFC 8414 and by OpenID
// Connect Discovery, with and without an issuer path. Then a real MCP
// session over mcphttp runs with the stored token.
func TestLoginDiscovery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		metadata string
		as       authtest.AuthServerOptions
	}{
		{"header", authtest.MetadataHeader, authtest.AuthServerOptions{}},
		{"path-aware well-known", authtest.MetadataPath, authtest.AuthServerOptions{}},
		{"root well-known", authtest.MetadataRoot, authtest.AuthServerOptions{}},
		{"issuer path", authtest.MetadataHeader, authtest.AuthServerOptions{IssuerPath: "/tenant1"}},
		{"openid", authtest.MetadataHeader, authtest.AuthServerOptions{OpenID: true}},
		{"openid issuer path", authtest.MetadataPath, authtest.AuthServerOptions{OpenID: true, IssuerPath: "/t2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.as.Clients = map[string]string{"pre": ""}
			as := authtest.NewAuthServer(t, tt.as)
			rs := authtest.NewResource(t, as, authtest.ResourceOptions{Metadata: tt.metadata, Scopes: []string{"files:read"}})
			h := newHarness(t, nil)
			tgt := target(rs, preregistered("pre"))
			st, err := h.login(tgt)
			if err != nil {
				t.Fatalf("Login: %v", err)
			}
			if !st.TokenPresent || st.AuthorizationServer != as.Issuer || st.ClientSource != clientPreregistered {
				t.Fatalf("status = %+v", st)
			}
			if !slices.Contains(st.Scopes, "files:read") || !slices.Contains(st.Scopes, "offline_access") {
				t.Errorf("scopes = %q, want the challenge's plus offline_access", st.Scopes)
			}
			assertResourceParam(t, as, rs.Resource())
			h.echo(tgt)
		})
	}
}

func TestClientIdentityOrder(t *testing.T) {
	t.Parallel()
	// The client id metadata document lives on an https server, as the
	// specification requires; the authorization server fetches it.
	var docURL string
	doc := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"client_id": docURL, "client_name": "mcpdeck",
			"redirect_uris": []string{"http://127.0.0.1/callback"}, "token_endpoint_auth_method": "none"})
	}))
	defer doc.Close()
	docURL = doc.URL + "/mcpdeck.json"

	t.Run("pre-registered first", func(t *testing.T) {
		as := authtest.NewAuthServer(t, authtest.AuthServerOptions{DCR: true, CIMD: true, CIMDClient: doc.Client(), Clients: map[string]string{"pre": "pre-secret-123456"}})
		rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
		h := newHarness(t, func(o *Options) { o.ClientMetadataURL = docURL })
		tgt := target(rs, &config.OAuth{ClientID: "pre", ClientSecret: "pre-secret-123456", GrantType: config.GrantAuthorizationCode})
		st, err := h.login(tgt)
		if err != nil || st.ClientID != "pre" || st.ClientSource != clientPreregistered {
			t.Fatalf("Login = %+v, %v", st, err)
		}
		if !h.saw("pre-secret-123456") {
			t.Error("the client secret was not reported to OnSecret")
		}
		if as.Registrations() != 0 {
			t.Error("registered although a client was configured")
		}
		h.echo(tgt)
	})
	t.Run("client id metadata document", func(t *testing.T) {
		as := authtest.NewAuthServer(t, authtest.AuthServerOptions{DCR: true, CIMD: true, CIMDClient: doc.Client()})
		rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
		h := newHarness(t, func(o *Options) { o.ClientMetadataURL = docURL })
		tgt := target(rs, nil)
		st, err := h.login(tgt)
		if err != nil || st.ClientID != docURL || st.ClientSource != clientMetadataDoc {
			t.Fatalf("Login = %+v, %v", st, err)
		}
		if as.Registrations() != 0 {
			t.Error("registered although the server takes client id metadata documents")
		}
		h.echo(tgt)
	})
	t.Run("dynamic registration, remembered", func(t *testing.T) {
		as := authtest.NewAuthServer(t, authtest.AuthServerOptions{DCR: true})
		rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
		h := newHarness(t, func(o *Options) { o.ClientMetadataURL = docURL }) // not advertised: unused
		tgt := target(rs, nil)
		st, err := h.login(tgt)
		if err != nil || st.ClientSource != clientDynamic || !strings.HasPrefix(st.ClientID, "dcr-client-") {
			t.Fatalf("Login = %+v, %v", st, err)
		}
		h.echo(tgt)
		if err := h.m.Logout(tgt); err != nil {
			t.Fatal(err)
		}
		if _, err := h.login(tgt); err != nil {
			t.Fatalf("second Login: %v", err)
		}
		if n := as.Registrations(); n != 1 {
			t.Errorf("registrations = %d, want 1 (remembered per authorization server)", n)
		}
	})
	t.Run("no way to identify", func(t *testing.T) {
		as := authtest.NewAuthServer(t, authtest.AuthServerOptions{})
		rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
		h := newHarness(t, nil)
		_, err := h.login(target(rs, nil))
		if !errors.Is(err, ErrRegistration) || !strings.Contains(err.Error(), `"clientId"`) {
			t.Fatalf("Login error = %v, want ErrRegistration naming clientId", err)
		}
	})
}

func TestNeedsLoginThroughMCPHTTP(t *testing.T) {
	t.Parallel()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{Clients: map[string]string{"pre": ""}})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{Scopes: []string{"files:read"}})
	h := newHarness(t, nil)
	tgt := target(rs, preregistered("pre"))
	s := h.connect(tgt, false, nil)
	err := h.initialize(s)
	var nl *NeedsLoginError
	if !errors.Is(err, ErrNeedsLogin) || !errors.As(err, &nl) || !errors.Is(err, mcphttp.ErrUnauthorized) {
		t.Fatalf("initialize error = %v, want a NeedsLoginError", err)
	}
	if nl.Server != "prot" || nl.Resource != rs.URL || nl.AuthorizationServer != as.Issuer || !slices.Equal(nl.Scopes, []string{"files:read"}) {
		t.Errorf("NeedsLoginError = %+v", nl)
	}
	if !strings.Contains(err.Error(), `mcpdeck auth login prot`) {
		t.Errorf("error %q does not say how to log in", err)
	}

	// Interactive: the transport logs in itself and carries on.
	s2 := h.connect(tgt, true, nil)
	if err := h.initialize(s2); err != nil {
		t.Fatalf("interactive initialize: %v", err)
	}
	if got, err := h.call(s2, "echo"); err != nil || got != "hi" {
		t.Fatalf("echo = %q, %v", got, err)
	}
	// The token was stored: a new manager on the same store needs no login.
	h2 := newHarness(t, func(o *Options) { o.Store = h.m.store })
	h2.echo(tgt)
}

func TestRefresh(t *testing.T) {
	t.Parallel()
	t.Run("before expiry", func(t *testing.T) {
		as := authtest.NewAuthServer(t, authtest.AuthServerOptions{Clients: map[string]string{"pre": ""}})
		rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
		// Every token is within the skew of its expiry: each request refreshes.
		h := newHarness(t, func(o *Options) { o.RefreshSkew = 2 * 3600e9 })
		tgt := target(rs, preregistered("pre"))
		if _, err := h.login(tgt); err != nil {
			t.Fatal(err)
		}
		h.echo(tgt)
		var refreshes int
		for _, r := range as.TokenRequests() {
			if r.GrantType == "refresh_token" {
				refreshes++
			}
		}
		if refreshes == 0 {
			t.Fatal("no refresh before expiry")
		}
		assertResourceParam(t, as, rs.URL)
	})
	t.Run("on 401", func(t *testing.T) {
		as := authtest.NewAuthServer(t, authtest.AuthServerOptions{Clients: map[string]string{"pre": ""}})
		rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
		h := newHarness(t, nil)
		tgt := target(rs, preregistered("pre"))
		if _, err := h.login(tgt); err != nil {
			t.Fatal(err)
		}
		as.ExpireAccessTokens() // the server now rejects the stored token
		h.echo(tgt)
		if reqs := as.TokenRequests(); reqs[len(reqs)-1].GrantType != "refresh_token" {
			t.Fatalf("last token request = %+v, want a refresh", reqs[len(reqs)-1])
		}
		if after, _ := h.m.Status(tgt); !after.TokenPresent {
			t.Fatalf("status after refresh = %+v", after)
		}
	})
	t.Run("failure means login again", func(t *testing.T) {
		as := authtest.NewAuthServer(t, authtest.AuthServerOptions{Clients: map[string]string{"pre": ""}})
		rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
		h := newHarness(t, nil)
		tgt := target(rs, preregistered("pre"))
		if _, err := h.login(tgt); err != nil {
			t.Fatal(err)
		}
		as.ExpireAccessTokens()
		as.RevokeRefreshTokens()
		s := h.connect(tgt, false, nil)
		err := h.initialize(s)
		var nl *NeedsLoginError
		if !errors.As(err, &nl) || !strings.Contains(nl.Reason, "refreshing it failed") {
			t.Fatalf("initialize error = %v, want needs login after a failed refresh", err)
		}
		if st, _ := h.m.Status(tgt); st.TokenPresent {
			t.Fatal("the dead token is still stored")
		}
		if _, err := h.login(tgt); err != nil {
			t.Fatalf("login again: %v", err)
		}
		h.echo(tgt)
	})
}

func TestStepUp(t *testing.T) {
	t.Parallel()
	t.Run("interactive", func(t *testing.T) {
		as := authtest.NewAuthServer(t, authtest.AuthServerOptions{Clients: map[string]string{"pre": ""}})
		rs := authtest.NewResource(t, as, authtest.ResourceOptions{Scopes: []string{"files:read"}, WriteScope: "files:write"})
		h := newHarness(t, nil)
		tgt := target(rs, preregistered("pre"))
		s := h.connect(tgt, true, nil)
		if err := h.initialize(s); err != nil {
			t.Fatal(err)
		}
		if got, err := h.call(s, "write"); err != nil || got != "wrote hi" {
			t.Fatalf("write = %q, %v", got, err)
		}
		authz := as.AuthorizationRequests()
		last := strings.Fields(authz[len(authz)-1].Get("scope"))
		if len(authz) != 2 || !slices.Contains(last, "files:read") || !slices.Contains(last, "files:write") {
			t.Fatalf("authorization requests %d, last scopes %q: want a step-up asking for both", len(authz), last)
		}
	})
	t.Run("non-interactive", func(t *testing.T) {
		as := authtest.NewAuthServer(t, authtest.AuthServerOptions{Clients: map[string]string{"pre": ""}})
		rs := authtest.NewResource(t, as, authtest.ResourceOptions{Scopes: []string{"files:read"}, WriteScope: "files:write"})
		h := newHarness(t, nil)
		tgt := target(rs, preregistered("pre"))
		if _, err := h.login(tgt); err != nil {
			t.Fatal(err)
		}
		s := h.connect(tgt, false, nil)
		if err := h.initialize(s); err != nil {
			t.Fatal(err)
		}
		_, err := h.call(s, "write")
		var nl *NeedsLoginError
		if !errors.As(err, &nl) || !slices.Contains(nl.Scopes, "files:write") {
			t.Fatalf("write error = %v, want needs login naming files:write", err)
		}
		// The next login asks for both scopes.
		if _, err := h.login(tgt); err != nil {
			t.Fatal(err)
		}
		h2 := h.connect(tgt, false, nil)
		if err := h.initialize(h2); err != nil {
			t.Fatal(err)
		}
		if got, err := h.call(h2, "write"); err != nil || got != "wrote hi" {
			t.Fatalf("write after login = %q, %v", got, err)
		}
	})
	t.Run("once, then a clear error", func(t *testing.T) {
		as := authtest.NewAuthServer(t, authtest.AuthServerOptions{Clients: map[string]string{"pre": ""}, DenyScopes: []string{"files:write"}})
		rs := authtest.NewResource(t, as, authtest.ResourceOptions{WriteScope: "files:write"})
		h := newHarness(t, nil)
		tgt := target(rs, preregistered("pre"))
		s := h.connect(tgt, true, nil)
		if err := h.initialize(s); err != nil {
			t.Fatal(err)
		}
		_, err := h.call(s, "write")
		if !errors.Is(err, ErrInsufficientScope) || !strings.Contains(err.Error(), "files:write") {
			t.Fatalf("write error = %v, want ErrInsufficientScope naming files:write", err)
		}
		if n := len(as.AuthorizationRequests()); n != 2 {
			t.Fatalf("authorization requests = %d, want 2 (login, one step-up)", n)
		}
	})
}

func TestAuthorizationResponseChecks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		as   authtest.AuthServerOptions
		want string // "" means the login succeeds
	}{
		{"wrong state", authtest.AuthServerOptions{TamperState: true}, "state does not match"},
		{"wrong iss", authtest.AuthServerOptions{AdvertiseIss: true, WrongIss: true}, "names issuer"},
		{"wrong unadvertised iss", authtest.AuthServerOptions{WrongIss: true}, "names issuer"},
		{"missing advertised iss", authtest.AuthServerOptions{AdvertiseIss: true, OmitIss: true}, "promises an iss"},
		{"right iss", authtest.AuthServerOptions{AdvertiseIss: true}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.as.Clients = map[string]string{"pre": ""}
			as := authtest.NewAuthServer(t, tt.as)
			rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
			h := newHarness(t, nil)
			tgt := target(rs, preregistered("pre"))
			_, err := h.login(tgt)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Login: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrAuthorization) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Login error = %v, want ErrAuthorization with %q", err, tt.want)
			}
			if n := len(as.TokenRequests()); n != 0 {
				t.Errorf("the code went to the token endpoint %d times; a rejected response must not be acted on", n)
			}
			if st, _ := h.m.Status(tgt); st.TokenPresent {
				t.Error("a token was stored")
			}
		})
	}
}

func TestTokenForAnotherResourceRejected(t *testing.T) {
	t.Parallel()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{Clients: map[string]string{"pre": ""}})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
	h := newHarness(t, nil)
	tgt := target(rs, preregistered("pre"))
	// A token issued for another resource sits in the store.
	foreign := as.Issue("pre", "https://other.example/mcp", nil)
	err := h.m.save(tgt, &tokenRecord{AccessToken: foreign, Resource: "https://other.example/mcp", Issuer: as.Issuer, ClientID: "pre"})
	if err != nil {
		t.Fatal(err)
	}
	s := h.connect(tgt, false, nil)
	err = h.initialize(s)
	var nl *NeedsLoginError
	if !errors.As(err, &nl) || !strings.Contains(nl.Reason, "rejected the stored token") {
		t.Fatalf("initialize error = %v, want needs login: token rejected", err)
	}

	// A server without authorization: nothing to log in to.
	open := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	defer open.Close()
	if _, err := h.login(Target{Name: "open", URL: open.URL}); !errors.Is(err, ErrNoAuthorization) {
		t.Fatalf("Login to an open server: %v, want ErrNoAuthorization", err)
	}
}

func TestRedirectToAnotherOriginCarriesNoToken(t *testing.T) {
	t.Parallel()
	var evilAuth []string
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		evilAuth = append(evilAuth, r.Header.Get("Authorization"))
		http.Error(w, "nope", http.StatusInternalServerError)
	}))
	defer evil.Close()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{Clients: map[string]string{"pre": ""}})
	good := authtest.NewResource(t, as, authtest.ResourceOptions{})
	h := newHarness(t, nil)
	if _, err := h.login(target(good, preregistered("pre"))); err != nil {
		t.Fatal(err)
	}
	// The same stored token, for a server (same name and URL) that now
	// redirects to another origin.
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{RedirectTo: evil.URL + "/steal"})
	tgt := target(good, preregistered("pre"))
	tok := h.m.state(tgt).tok
	tgt2 := target(rs, preregistered("pre"))
	_ = h.m.save(tgt2, tok)

	// Through mcpdeck's HTTP transport the redirect is not followed at all
	// (its redirect policy refuses another origin).
	s := h.connect(tgt2, false, nil)
	if err := h.initialize(s); !errors.Is(err, mcphttp.ErrRedirected) {
		t.Fatalf("initialize through a cross-origin redirect: %v", err)
	}
	if got := rs.AuthorizationHeaders(); len(got) == 0 || got[0] != "Bearer "+tok.AccessToken {
		t.Fatalf("the protected server got %d requests, first Authorization ok=%v", len(got), len(got) > 0 && got[0] == "Bearer "+tok.AccessToken)
	}
	if len(evilAuth) != 0 {
		t.Fatal("mcphttp followed a redirect to another origin")
	}
	// The Transport on its own guarantees it too: under a client that does
	// follow redirects, the other origin gets no token.
	client := &http.Client{Transport: &Transport{Manager: h.m, Target: tgt2}}
	resp, err := client.Post(rs.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err == nil {
		resp.Body.Close()
	}
	if len(evilAuth) == 0 {
		t.Fatal("the redirect was not followed; the test proves nothing")
	}
	for _, a := range evilAuth {
		if a != "" {
			t.Fatal("the token went to another origin after a redirect")
		}
	}
}

func TestClientCredentials(t *testing.T) {
	t.Parallel()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{Clients: map[string]string{"svc": "svc-secret-0123456789"}})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{Scopes: []string{"files:read"}})
	h := newHarness(t, func(o *Options) {
		o.OpenURL = func(string) error { t.Error("a browser was opened for client credentials"); return nil }
	})
	tgt := target(rs, &config.OAuth{ClientID: "svc", ClientSecret: "svc-secret-0123456789", GrantType: config.GrantClientCredentials})
	h.echo(tgt) // no login: the transport gets a token itself
	reqs := as.TokenRequests()
	if len(reqs) != 1 || reqs[0].GrantType != "client_credentials" {
		t.Fatalf("token requests = %+v", reqs)
	}
	assertResourceParam(t, as, rs.URL)
	st, _ := h.m.Status(tgt)
	if st.GrantType != "client_credentials" || !st.Refreshable {
		t.Fatalf("status = %+v", st)
	}
	// Expired: a new token comes the same way.
	as.ExpireAccessTokens()
	h.echo(tgt)
}

// TestBrowserAndListener runs the login with the real browser opener:
// $BROWSER is this test binary, which follows the URL. The redirect
// listener is closed afterwards.
func TestBrowserAndListener(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", exe)
	t.Setenv(authtest.BrowserEnv, "1")
	t.Setenv("GORACE", "atexit_sleep_ms=0") // the browser is this test binary: no second's sleep at its exit
	port := authtest.FreePort(t)
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{Clients: map[string]string{"pre": ""}})
	rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
	h := newHarness(t, func(o *Options) { o.OpenURL = nil })
	tgt := target(rs, &config.OAuth{ClientID: "pre", RedirectPort: port, GrantType: config.GrantAuthorizationCode})
	_, err = h.login(tgt)
	reapers.Wait() // the fake browser exits once it followed the redirect
	if err != nil {
		t.Fatalf("Login: %v", err)
	}
	if len(h.urls) != 1 {
		t.Fatalf("OnURL saw %d URLs, want 1", len(h.urls))
	}
	u, _ := url.Parse(h.urls[0])
	if want := "http://127.0.0.1:" + itoa(port) + "/callback"; u.Query().Get("redirect_uri") != want || u.Query().Get("code_challenge_method") != "S256" {
		t.Fatalf("authorization URL query = %v", u.Query())
	}
	if c, err := net.Dial("tcp", "127.0.0.1:"+itoa(port)); err == nil {
		c.Close()
		t.Fatal("the redirect listener is still open after the login")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// A server that wants a static token (an mcpdeck gateway, an API-key
// service) answers 401 and publishes no OAuth metadata: the connection
// fails with that server's own 401, saying to configure headers, not as
// "unreachable" after a failed discovery.
func TestStaticTokenServerGetsItsOwn401(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcpdeck gateway"`)
		http.Error(w, "a gateway token is required", http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	h := newHarness(t, nil)
	s := h.connect(Target{Name: "gw", URL: srv.URL + "/mcp"}, false, nil)
	err := h.initialize(s)
	if !errors.Is(err, mcphttp.ErrUnauthorized) || errors.Is(err, ErrNeedsLogin) || errors.Is(err, mcphttp.ErrUnreachable) {
		t.Fatalf("initialize error = %v, want the server's 401", err)
	}
	for _, want := range []string{"HTTP 401", `under "headers"`, `mcpdeck gateway`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if hits.Load() == 0 {
		t.Fatal("the server was never asked")
	}
}

// TestTokenEndpointRedirects: a token or registration endpoint that
// answers 307 to another origin is not followed: the code, the PKCE
// verifier and the client's credentials never reach that origin, and no
// token it would issue is stored. A 307 within the origin is followed.
func TestTokenEndpointRedirects(t *testing.T) {
	t.Parallel()
	var evilHits atomic.Int32
	var evilBodies []string
	var mu sync.Mutex
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		evilHits.Add(1)
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		evilBodies = append(evilBodies, string(body)+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"access_token":"evil-token-0123456789","token_type":"Bearer","expires_in":3600,"client_id":"evil-client"}`)
	}))
	defer evil.Close()

	t.Run("token endpoint to another origin", func(t *testing.T) {
		as := authtest.NewAuthServer(t, authtest.AuthServerOptions{Clients: map[string]string{"pre": "pre-secret-abcdef"}, TokenRedirect: evil.URL + "/token"})
		rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
		h := newHarness(t, nil)
		tgt := target(rs, &config.OAuth{ClientID: "pre", ClientSecret: "pre-secret-abcdef", GrantType: config.GrantAuthorizationCode})
		_, err := h.login(tgt)
		if !errors.Is(err, ErrRedirected) || !strings.Contains(err.Error(), evil.URL) {
			t.Fatalf("login = %v, want ErrRedirected naming %s", err, evil.URL)
		}
		if st, _ := h.m.Status(tgt); st.TokenPresent {
			t.Fatal("a token was stored")
		}
		// Client credentials go the same way.
		cc := target(rs, &config.OAuth{ClientID: "pre", ClientSecret: "pre-secret-abcdef", GrantType: config.GrantClientCredentials})
		if _, err := h.login(cc); !errors.Is(err, ErrRedirected) {
			t.Fatalf("client credentials login = %v, want ErrRedirected", err)
		}
	})
	t.Run("registration endpoint to another origin", func(t *testing.T) {
		as := authtest.NewAuthServer(t, authtest.AuthServerOptions{DCR: true, RegisterRedirect: evil.URL + "/register"})
		rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
		h := newHarness(t, nil)
		if _, err := h.login(target(rs, nil)); !errors.Is(err, ErrRegistration) || !strings.Contains(err.Error(), "another origin") {
			t.Fatalf("login = %v, want a refused registration redirect", err)
		}
	})
	if n := evilHits.Load(); n != 0 {
		t.Fatalf("the other origin received %d requests: %q", n, evilBodies)
	}
	t.Run("within the origin", func(t *testing.T) {
		as := authtest.NewAuthServer(t, authtest.AuthServerOptions{DCR: true, TokenRedirect: "/token-moved", RegisterRedirect: "/register-moved"})
		rs := authtest.NewResource(t, as, authtest.ResourceOptions{})
		h := newHarness(t, nil)
		st, err := h.login(target(rs, nil))
		if err != nil || !st.TokenPresent {
			t.Fatalf("login through same-origin 307s = %+v, %v", st, err)
		}
		h.echo(target(rs, nil))
	})
}
