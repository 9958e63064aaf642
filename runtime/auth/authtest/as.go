// Package authtest holds in-process stand-ins for the other parties of MCP
// authorization, for tests in runtime/auth and its callers: an OAuth 2.1
// authorization server (AuthServer), a protected MCP server (Resource: a
// go-sdk streamable server behind a bearer check with audience
// validation), and a fake browser that follows the authorization URL and
// the redirect like a person who clicks "allow" (Follow, and MaybeBrowse
// for a re-executed test binary set as $BROWSER).
package authtest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"mcpdeck/runtime/internal/daemontest"
)

// AuthServerOptions shape an AuthServer; the zero value is an RFC 8414
// server at the root with dynamic client registration off.
type AuthServerOptions struct {
	// IssuerPath gives the issuer a path ("/tenant1"), so discovery must
	// use path insertion.
	IssuerPath string
	// OpenID publishes only OpenID Connect Discovery metadata.
	OpenID bool
	// DCR offers dynamic client registration.
	DCR bool
	// CIMD advertises client id metadata documents; the server fetches
	// them with CIMDClient.
	CIMD       bool
	CIMDClient *http.Client
	// Clients are pre-registered: id → secret ("" for a public client).
	Clients map[string]string
	// AdvertiseIss sets authorization_response_iss_parameter_supported;
	// the iss parameter is sent whenever it is set, unless OmitIss.
	AdvertiseIss bool
	OmitIss      bool
	// WrongIss sends another issuer's iss; TamperState another state.
	WrongIss    bool
	TamperState bool
	// TokenTTL is the access token lifetime; 0 means an hour.
	TokenTTL time.Duration
	// NoRefresh issues no refresh tokens.
	NoRefresh bool
	// NoPKCE leaves code_challenge_methods_supported out.
	NoPKCE bool
	// DenyScopes are never granted, whatever is asked.
	DenyScopes []string
	// RedirectInvalidClient sends an unknown client back to its redirect
	// URI with error=invalid_client, as some servers do, instead of
	// answering 400 itself.
	RedirectInvalidClient bool
	// TokenRedirect and RegisterRedirect, when set, answer every token or
	// registration request with a 307 to that URL. The server also serves
	// its token endpoint at /token-moved and registration at
	// /register-moved, for a redirect within its own origin.
	TokenRedirect    string
	RegisterRedirect string
	// AfterAuthorize, when set, runs after each authorization response is
	// sent (a test forgets the clients there, as a restart would between
	// the browser and the code exchange).
	AfterAuthorize func()
	// JWT issues access tokens as signed JWTs (RFC 9068: iss, sub, aud =
	// the resource, exp, iat, jti, scope, client_id), with the signing
	// keys at jwks_uri (/jwks): what a resource server validates without
	// asking the authorization server (see as_jwt.go).
	JWT bool
	// Subject is the sub of tokens from a browser login (the person);
	// default the client id. Client credentials tokens carry the client id.
	Subject string
}

// Grant is what an issued token stands for.
type Grant struct {
	ClientID string
	Subject  string // the person, when not the client itself
	Resource string
	Scopes   []string
	Expiry   time.Time
}

// TokenRequest is one request to the token endpoint, for assertions.
type TokenRequest struct {
	GrantType string
	Resource  string
	ClientID  string
}

type client struct {
	secret   string
	redirect []string
}

type code struct {
	Grant
	challenge, redirect string
}

// AuthServer is an in-process OAuth 2.1 authorization server.
type AuthServer struct {
	*httptest.Server
	// Issuer is the issuer identifier.
	Issuer string
	opts   AuthServerOptions

	mu        sync.Mutex
	clients   map[string]client
	codes     map[string]code
	access    map[string]Grant
	refresh   map[string]Grant
	tokenReqs []TokenRequest
	authzReqs []url.Values
	nreg      int
	issued    []string // every access and refresh token ever issued
	keys      *signingKeys
	headers   map[string]bool // the names of every request header received
}

// SawHeader reports whether any request the server received carried the
// header name (canonical form, X-Api-Key).
func (a *AuthServer) SawHeader(name string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.headers[http.CanonicalHeaderKey(name)]
}

// NewAuthServer starts an authorization server, closed when t ends.
func NewAuthServer(t testing.TB, opts AuthServerOptions) *AuthServer {
	a := &AuthServer{opts: opts, clients: map[string]client{}, codes: map[string]code{},
		access: map[string]Grant{}, refresh: map[string]Grant{}, headers: map[string]bool{}}
	for id, sec := range opts.Clients {
		a.clients[id] = client{secret: sec}
	}
	mux := http.NewServeMux()
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		for k := range r.Header {
			a.headers[k] = true
		}
		a.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(a.Close)
	a.Issuer = a.URL + opts.IssuerPath
	meta := "/.well-known/oauth-authorization-server" + opts.IssuerPath
	if opts.OpenID {
		meta = "/.well-known/openid-configuration" + opts.IssuerPath
	}
	mux.HandleFunc("GET "+meta, a.metadata)
	mux.HandleFunc("GET "+opts.IssuerPath+"/authorize", a.authorize)
	mux.HandleFunc("POST "+opts.IssuerPath+"/token", redirectOr(opts.TokenRedirect, a.token))
	mux.HandleFunc("POST "+opts.IssuerPath+"/register", redirectOr(opts.RegisterRedirect, a.register))
	mux.HandleFunc("POST "+opts.IssuerPath+"/token-moved", a.token)
	mux.HandleFunc("POST "+opts.IssuerPath+"/register-moved", a.register)
	if opts.JWT {
		a.keys = newSigningKeys(t)
		mux.HandleFunc("GET "+opts.IssuerPath+"/jwks", a.jwks)
	}
	return a
}

// redirectOr answers with a 307 to to when it is set, else with h.
func redirectOr(to string, h http.HandlerFunc) http.HandlerFunc {
	if to == "" {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, http.StatusTemporaryRedirect) }
}

func (a *AuthServer) metadata(w http.ResponseWriter, _ *http.Request) {
	m := map[string]any{
		"issuer":                                a.Issuer,
		"authorization_endpoint":                a.Issuer + "/authorize",
		"token_endpoint":                        a.Issuer + "/token",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post", "none"},
		"scopes_supported":                      []string{"files:read", "files:write", "offline_access"},
	}
	if !a.opts.NoPKCE {
		m["code_challenge_methods_supported"] = []string{"S256"}
	}
	if a.opts.DCR {
		m["registration_endpoint"] = a.Issuer + "/register"
	}
	if a.opts.CIMD {
		m["client_id_metadata_document_supported"] = true
	}
	if a.opts.AdvertiseIss {
		m["authorization_response_iss_parameter_supported"] = true
	}
	if a.keys != nil {
		m["jwks_uri"] = a.Issuer + "/jwks"
	}
	writeJSON(w, http.StatusOK, m)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

// loopbackMatch compares redirect URIs, ignoring the port of loopback ones
// as RFC 8252 §7.3 asks of authorization servers.
func loopbackMatch(registered, got string) bool {
	if registered == got {
		return true
	}
	r, err1 := url.Parse(registered)
	g, err2 := url.Parse(got)
	if err1 != nil || err2 != nil || r.Hostname() != "127.0.0.1" {
		return false
	}
	return r.Scheme == g.Scheme && r.Hostname() == g.Hostname() && r.Path == g.Path
}

// lookupClient finds a client, fetching a client id metadata document for
// an https client id.
func (a *AuthServer) lookupClient(id string) (client, error) {
	a.mu.Lock()
	c, ok := a.clients[id]
	a.mu.Unlock()
	if ok {
		return c, nil
	}
	if !a.opts.CIMD || !strings.HasPrefix(id, "https://") {
		return client{}, fmt.Errorf("unknown client %q", id)
	}
	hc := a.opts.CIMDClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Get(id)
	if err != nil {
		return client{}, err
	}
	defer resp.Body.Close()
	var doc struct {
		ClientID     string   `json:"client_id"`
		ClientName   string   `json:"client_name"`
		RedirectURIs []string `json:"redirect_uris"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || doc.ClientID != id || doc.ClientName == "" {
		return client{}, fmt.Errorf("bad client id metadata document at %s", id)
	}
	return client{redirect: doc.RedirectURIs}, nil
}

func (a *AuthServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.mu.Lock()
	a.authzReqs = append(a.authzReqs, q)
	a.mu.Unlock()
	c, err := a.lookupClient(q.Get("client_id"))
	if err != nil && a.opts.RedirectInvalidClient {
		back, perr := url.Parse(q.Get("redirect_uri"))
		if perr == nil {
			back.RawQuery = url.Values{"error": {"invalid_client"}, "error_description": {err.Error()}, "state": {q.Get("state")}}.Encode()
			http.Redirect(w, r, back.String(), http.StatusFound)
			return
		}
	}
	if err != nil {
		// As the TypeScript SDK's server answers an unknown client.
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client", "error_description": err.Error()})
		return
	}
	redirect := q.Get("redirect_uri")
	if len(c.redirect) > 0 && !slices.ContainsFunc(c.redirect, func(reg string) bool { return loopbackMatch(reg, redirect) }) {
		http.Error(w, "redirect_uri not registered", http.StatusBadRequest)
		return
	}
	if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" ||
		q.Get("state") == "" || q.Get("resource") == "" {
		http.Error(w, "missing response_type, PKCE S256, state or resource", http.StatusBadRequest)
		return
	}
	ttl := a.opts.TokenTTL
	if ttl == 0 {
		ttl = time.Hour
	}
	c2 := rand.Text()
	a.mu.Lock()
	a.codes[c2] = code{Grant: Grant{ClientID: q.Get("client_id"), Subject: a.opts.Subject, Resource: q.Get("resource"), Scopes: strings.Fields(q.Get("scope")), Expiry: time.Now().Add(ttl)},
		challenge: q.Get("code_challenge"), redirect: redirect}
	a.mu.Unlock()
	back, _ := url.Parse(redirect)
	v := url.Values{"code": {c2}, "state": {q.Get("state")}}
	if a.opts.TamperState {
		v.Set("state", "forged-"+q.Get("state"))
	}
	switch {
	case a.opts.WrongIss:
		v.Set("iss", "https://evil.example")
	case a.opts.AdvertiseIss && !a.opts.OmitIss:
		v.Set("iss", a.Issuer)
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
	if a.opts.AfterAuthorize != nil {
		a.opts.AfterAuthorize()
	}
}

// authClient checks client authentication at the token endpoint.
func (a *AuthServer) authClient(r *http.Request) (string, error) {
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	c, err := a.lookupClient(id)
	if err != nil {
		return "", err
	}
	if c.secret != "" && c.secret != secret {
		return "", fmt.Errorf("bad client secret")
	}
	return id, nil
}

func (a *AuthServer) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, 400, "invalid_request", "bad form")
		return
	}
	f := r.PostForm
	id, err := a.authClient(r)
	a.mu.Lock()
	a.tokenReqs = append(a.tokenReqs, TokenRequest{GrantType: f.Get("grant_type"), Resource: f.Get("resource"), ClientID: id})
	a.mu.Unlock()
	if err != nil {
		oauthError(w, 401, "invalid_client", err.Error())
		return
	}
	ttl := a.opts.TokenTTL
	if ttl == 0 {
		ttl = time.Hour
	}
	var g Grant
	switch f.Get("grant_type") {
	case "authorization_code":
		a.mu.Lock()
		c, ok := a.codes[f.Get("code")]
		delete(a.codes, f.Get("code"))
		a.mu.Unlock()
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		switch {
		case !ok || c.ClientID != id:
			oauthError(w, 400, "invalid_grant", "unknown code")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge:
			oauthError(w, 400, "invalid_grant", "PKCE verification failed")
			return
		case f.Get("redirect_uri") != c.redirect:
			oauthError(w, 400, "invalid_grant", "redirect_uri differs")
			return
		case f.Get("resource") != c.Resource:
			oauthError(w, 400, "invalid_target", "resource differs from the authorization request")
			return
		}
		g = c.Grant
	case "refresh_token":
		a.mu.Lock()
		old, ok := a.refresh[f.Get("refresh_token")]
		delete(a.refresh, f.Get("refresh_token")) // rotation
		a.mu.Unlock()
		if !ok || old.ClientID != id {
			oauthError(w, 400, "invalid_grant", "refresh token unknown, expired or revoked")
			return
		}
		g = old
	case "client_credentials":
		g = Grant{ClientID: id, Resource: f.Get("resource"), Scopes: strings.Fields(f.Get("scope"))}
	default:
		oauthError(w, 400, "unsupported_grant_type", f.Get("grant_type"))
		return
	}
	g.Expiry = time.Now().Add(ttl)
	g.Scopes = slices.DeleteFunc(slices.Clone(g.Scopes), func(s string) bool { return slices.Contains(a.opts.DenyScopes, s) })
	at := "at-" + rand.Text()
	if a.keys != nil {
		at = a.keys.sign(a.Issuer, g)
	}
	resp := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": int(ttl.Seconds()), "scope": strings.Join(g.Scopes, " ")}
	a.mu.Lock()
	a.access[at] = g
	a.issued = append(a.issued, at)
	if !a.opts.NoRefresh && f.Get("grant_type") != "client_credentials" {
		rt := "rt-" + rand.Text()
		a.refresh[rt] = g
		a.issued = append(a.issued, rt)
		resp["refresh_token"] = rt
	}
	a.mu.Unlock()
	writeJSON(w, http.StatusOK, resp)
}

func (a *AuthServer) register(w http.ResponseWriter, r *http.Request) {
	if !a.opts.DCR {
		http.NotFound(w, r)
		return
	}
	var req struct {
		RedirectURIs    []string `json:"redirect_uris"`
		ApplicationType string   `json:"application_type"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.RedirectURIs) == 0 {
		writeJSON(w, 400, map[string]string{"error": "invalid_redirect_uri"})
		return
	}
	a.mu.Lock()
	a.nreg++
	id := fmt.Sprintf("dcr-client-%d", a.nreg)
	a.clients[id] = client{redirect: req.RedirectURIs}
	a.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": req.RedirectURIs, "token_endpoint_auth_method": "none"})
}

// Lookup returns the grant of an access token that has not expired.
func (a *AuthServer) Lookup(token string) (Grant, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	g, ok := a.access[token]
	return g, ok && time.Now().Before(g.Expiry)
}

// Issue mints an access token directly, e.g. one for another resource.
func (a *AuthServer) Issue(clientID, resource string, scopes []string) string {
	return a.IssueGrant(Grant{ClientID: clientID, Resource: resource, Scopes: scopes, Expiry: time.Now().Add(time.Hour)})
}

// IssueGrant mints an access token for g as it stands (an expiry in the
// past makes an expired token): a JWT when the server issues JWTs.
func (a *AuthServer) IssueGrant(g Grant) string {
	at := "at-" + rand.Text()
	if a.keys != nil {
		at = a.keys.sign(a.Issuer, g)
	}
	a.mu.Lock()
	a.access[at] = g
	a.issued = append(a.issued, at)
	a.mu.Unlock()
	return at
}

// ExpireAccessTokens makes every access token invalid, as if time passed.
func (a *AuthServer) ExpireAccessTokens() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.access)
}

// RevokeRefreshTokens makes every refresh token invalid.
func (a *AuthServer) RevokeRefreshTokens() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.refresh)
}

// TokenRequests returns the token endpoint's requests so far.
func (a *AuthServer) TokenRequests() []TokenRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.tokenReqs)
}

// AuthorizationRequests returns the authorization requests so far.
func (a *AuthServer) AuthorizationRequests() []url.Values {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.authzReqs)
}

// IssuedTokens returns every access and refresh token issued, so tests
// can assert none of them appears in any output.
func (a *AuthServer) IssuedTokens() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.issued)
}

// ForgetClients forgets every dynamically registered client, as an
// authorization server that keeps them in memory does when it restarts.
func (a *AuthServer) ForgetClients() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for id := range a.clients {
		if _, pre := a.opts.Clients[id]; !pre {
			delete(a.clients, id)
		}
	}
}

// Registrations counts dynamic client registrations.
func (a *AuthServer) Registrations() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.nreg
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	return daemontest.FreePort(t)
}
