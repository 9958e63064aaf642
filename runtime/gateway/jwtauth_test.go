package gateway

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/config"
	"mcpdeck/runtime/auth/authtest"
)

// oauthGateway is a gateway whose HTTP endpoint is an OAuth protected
// resource of a JWT-issuing authorization server.
type oauthGateway struct {
	g    *Gateway
	as   *authtest.AuthServer
	auth *JWTAuth
	url  string // the /mcp endpoint: the resource
}

// lateHandler lets a server start before its handler exists: the
// resource URL (the audience) is known only once it listens.
type lateHandler struct{ h atomic.Pointer[http.Handler] }

func (l *lateHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	(*l.h.Load()).ServeHTTP(w, r)
}

func startOAuthGateway(t *testing.T, gw *config.Gateway, scopes ...string) *oauthGateway {
	t.Helper()
	as := authtest.NewAuthServer(t, authtest.AuthServerOptions{JWT: true, Clients: map[string]string{"agent-a": "secret-a", "agent-b": "secret-b"}})
	g := newGateway(t, newRuntime(t, peerServer("peer")), Options{Config: gw})
	late := &lateHandler{}
	srv := httptest.NewServer(late)
	t.Cleanup(srv.Close)
	resource := srv.URL + "/mcp"
	a, err := NewJWTAuth(JWTOptions{Issuer: as.Issuer, Resource: resource, Scopes: scopes, MinRefresh: -1})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", g.Handler(HTTPOptions{Auth: a, LoopbackOnly: true}))
	mux.Handle(MetadataPath(resource), a.MetadataHandler())
	var h http.Handler = mux
	late.h.Store(&h)
	return &oauthGateway{g: g, as: as, auth: a, url: resource}
}

// clientToken logs in as a client with client credentials, for the
// gateway: a JWT whose sub is the client id.
func (o *oauthGateway) clientToken(t *testing.T, id, secret, scope string) string {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "resource": {o.url}, "scope": {scope}}
	req, _ := http.NewRequest(http.MethodPost, o.as.Issuer+"/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(id, secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || resp.StatusCode != 200 || strings.Count(tok.AccessToken, ".") != 2 {
		t.Fatalf("token: %d %v %q", resp.StatusCode, err, tok.AccessToken)
	}
	return tok.AccessToken
}

// post sends one modern tools/list with token, returning the response.
func (o *oauthGateway) post(t *testing.T, token string) (*http.Response, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, o.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/list")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// TestGatewayOAuthProtectedResource: the gateway publishes its resource
// metadata naming the authorization server, answers a request without a
// token 401 with the challenge pointing there, and takes the JWTs that
// server issued for it; a go-sdk client with such a token works, and the
// client's identity is the token's subject.
func TestGatewayOAuthProtectedResource(t *testing.T) {
	o := startOAuthGateway(t, nil)
	resp, body := o.post(t, "")
	challenge := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(challenge, `resource_metadata="`+o.auth.MetadataURL()+`"`) {
		t.Fatalf("no token: %d %q %s", resp.StatusCode, challenge, body)
	}
	if want := strings.TrimSuffix(o.url, "/mcp") + "/.well-known/oauth-protected-resource/mcp"; o.auth.MetadataURL() != want {
		t.Errorf("metadata URL %s, want the path-aware %s", o.auth.MetadataURL(), want)
	}
	mresp, err := http.Get(o.auth.MetadataURL())
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Resource string   `json:"resource"`
		AS       []string `json:"authorization_servers"`
		Bearer   []string `json:"bearer_methods_supported"`
	}
	err = json.NewDecoder(mresp.Body).Decode(&meta)
	mresp.Body.Close()
	if err != nil || meta.Resource != o.url || len(meta.AS) != 1 || meta.AS[0] != o.as.Issuer {
		t.Fatalf("metadata %+v (%v)", meta, err)
	}

	tok := o.clientToken(t, "agent-a", "secret-a", "")
	c := goClient("some-ide", newClientEvents())
	cs, err := c.Connect(ctxFor(t, 20*time.Second), &mcp.StreamableClientTransport{Endpoint: o.url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{tok, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctxFor(t, 20*time.Second), &mcp.CallToolParams{Name: "peer__echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || !strings.Contains(textOf(res), "hi") {
		t.Fatalf("call with a token: %v %v", res, err)
	}
	var who []string
	for _, ci := range o.g.Clients() {
		who = append(who, ci.Identity+"/"+ci.Name)
	}
	if strings.Join(who, ",") != "agent-a/some-ide" {
		t.Errorf("clients %v, want agent-a's identity with its self-reported name", who)
	}
	// One fetch of the keys serves every request.
	for range 5 {
		if resp, body := o.post(t, tok); resp.StatusCode != 200 {
			t.Fatalf("again: %d %s", resp.StatusCode, body)
		}
	}
	if n := o.auth.Fetches(); n != 1 || o.as.JWKSFetches() != 1 {
		t.Errorf("keys fetched %d times (server saw %d), want once", n, o.as.JWKSFetches())
	}
}

// TestGatewayOAuthRefusals: a token for another resource, an expired one,
// one signed by a key the server never published, one without the scope
// the gateway needs, and garbage are each refused with their reason.
func TestGatewayOAuthRefusals(t *testing.T) {
	o := startOAuthGateway(t, nil, "mcp")
	hour := time.Now().Add(time.Hour)
	for _, tc := range []struct {
		name, token string
		status      int
		code, want  string
	}{
		{"another audience", o.as.IssueGrant(authtest.Grant{ClientID: "agent-a", Resource: "http://elsewhere.example/mcp", Scopes: []string{"mcp"}, Expiry: hour}),
			401, "invalid_token", "not for this gateway"},
		{"expired", o.as.IssueGrant(authtest.Grant{ClientID: "agent-a", Resource: o.url, Scopes: []string{"mcp"}, Expiry: time.Now().Add(-2 * time.Hour)}),
			401, "invalid_token", "expired"},
		{"forged", o.as.ForeignToken(t, authtest.Grant{ClientID: "agent-a", Resource: o.url, Scopes: []string{"mcp"}, Expiry: hour}),
			401, "invalid_token", "signature does not verify"},
		{"no scope", o.as.IssueGrant(authtest.Grant{ClientID: "agent-a", Resource: o.url, Expiry: hour}),
			403, "insufficient_scope", `lacks the scope`},
		{"not a JWT", "at-opaque-token", 401, "invalid_token", "not a JWT"},
	} {
		resp, body := o.post(t, tc.token)
		ch := resp.Header.Get("WWW-Authenticate")
		if resp.StatusCode != tc.status || !strings.Contains(ch, `error="`+tc.code+`"`) || !strings.Contains(ch, `scope="mcp"`) ||
			!strings.Contains(ch, "resource_metadata=") || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %q %s", tc.name, resp.StatusCode, ch, body)
		}
	}
	good := o.as.IssueGrant(authtest.Grant{ClientID: "agent-a", Resource: o.url, Scopes: []string{"mcp"}, Expiry: hour})
	if resp, body := o.post(t, good); resp.StatusCode != 200 {
		t.Fatalf("a good token: %d %s", resp.StatusCode, body)
	}
}

// TestGatewayOAuthKeyRotation: the authorization server rotates its key;
// a token with the new kid makes the gateway fetch the keys again, and a
// token of the withdrawn key is refused.
func TestGatewayOAuthKeyRotation(t *testing.T) {
	o := startOAuthGateway(t, nil)
	old := o.clientToken(t, "agent-a", "secret-a", "")
	if resp, body := o.post(t, old); resp.StatusCode != 200 {
		t.Fatalf("before the rotation: %d %s", resp.StatusCode, body)
	}
	o.as.RotateKey(t, false)
	fresh := o.clientToken(t, "agent-a", "secret-a", "")
	if resp, body := o.post(t, fresh); resp.StatusCode != 200 {
		t.Fatalf("a token of the new key: %d %s", resp.StatusCode, body)
	}
	if n := o.as.JWKSFetches(); n != 2 {
		t.Errorf("keys fetched %d times, want twice (first token, new kid)", n)
	}
	resp, body := o.post(t, old)
	if resp.StatusCode != 401 || !strings.Contains(body, "does not publish") {
		t.Errorf("a token of the withdrawn key: %d %s", resp.StatusCode, body)
	}
}

// TestGatewayOAuthIdentityDrivesPolicy: per-client rules match the
// token's identity, not the name a client gives itself, and a legacy
// session opened by one identity is not found by another.
func TestGatewayOAuthIdentityDrivesPolicy(t *testing.T) {
	gw := &config.Gateway{Clients: []config.GatewayClient{{Match: "agent-b", Field: "gateway.clients[0]",
		Policy: config.GatewayPolicy{Tools: &config.GatewayRules{Deny: []config.GatewayPattern{{Glob: "*", Field: "gateway.clients[0].tools.deny[0]"}}}}}}}
	o := startOAuthGateway(t, gw)
	tokA := o.clientToken(t, "agent-a", "secret-a", "")
	tokB := o.clientToken(t, "agent-b", "secret-b", "")
	// agent-b calls itself agent-a: the token decides.
	c := goClient("agent-a", newClientEvents())
	cs, err := c.Connect(ctxFor(t, 20*time.Second), &mcp.StreamableClientTransport{Endpoint: o.url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{tokB, http.DefaultTransport}}}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	_, err = cs.CallTool(ctxFor(t, 20*time.Second), &mcp.CallToolParams{Name: "peer__echo", Arguments: map[string]any{"text": "x"}})
	if err == nil || !strings.Contains(err.Error(), "gateway.clients[0].tools.deny[0]") {
		t.Fatalf("agent-b's call: %v, want refused by gateway.clients[0]", err)
	}

	// The session agent-b opened is not agent-a's to use.
	sid := cs.ID()
	req, _ := http.NewRequest(http.MethodGet, o.url, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+tokA)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("agent-a on agent-b's session: HTTP %d, want 404", resp.StatusCode)
	}
}
