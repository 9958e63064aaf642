package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"golang.org/x/oauth2"

	"mcpdeck/config"
	"mcpdeck/internal/cause"
	"mcpdeck/jsonrpc/mcphttp"
)

// probeBody is what the login probe POSTs: a ping, which creates no
// session on servers that need no authorization.
const probeBody = `{"jsonrpc":"2.0","id":"mcpdeck-auth-probe","method":"ping"}`

// probe sends one request without a token to the target's server and
// returns the challenge of a 401 or 403, or nil when the server let it
// through. It carries the configured headers, as every connection to the
// server does (an API gateway in front of the server refuses a request
// without its key before the server can challenge it), and like theirs
// they never leave the server's origin: the redirect policy below refuses
// any other.
func probe(ctx context.Context, client *http.Client, t Target) (*Challenge, int, error) {
	serverURL := t.URL
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, serverURL, strings.NewReader(probeBody))
	if err != nil {
		return nil, 0, fmt.Errorf("probing %s: %w: %v", safeURL(serverURL), ErrDiscovery, err)
	}
	for k, v := range t.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	// The MCP endpoint's redirect policy, as every connection to it has:
	// another origin's answer is not the server's.
	endpoint := *client
	endpoint.CheckRedirect = mcphttp.CheckRedirect
	resp, err := endpoint.Do(req)
	if errors.Is(err, mcphttp.ErrRedirected) {
		return nil, 0, fmt.Errorf("probing %s: %w", safeURL(serverURL), cause.Of(err))
	}
	if err != nil {
		return nil, 0, fmt.Errorf("probing %s: %w: %v", safeURL(serverURL), ErrDiscovery, cause.Of(err))
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return ParseChallenge(resp.StatusCode, resp.Header), resp.StatusCode, nil
	}
	return nil, resp.StatusCode, nil
}

// discoverOnce runs discovery for t, once however many requests need it
// at the same time, and remembers the result for messages. It always asks
// the network: it runs only when the server just refused a request, which
// is when the server may have changed its authorization server.
func (m *Manager) discoverOnce(ctx context.Context, t Target, ch *Challenge) (*Metadata, error) {
	v, err := m.flights.do(ctx, "discover "+t.key(), func(ctx context.Context) (any, error) {
		md, err := Discover(ctx, m.client, t.URL, t.Headers, ch, t.settings().AuthServerMetadataURL)
		if err != nil {
			return nil, err
		}
		st := m.state(t)
		st.mu.Lock()
		st.md = md
		if ch != nil {
			st.challenge = ch
		}
		st.mu.Unlock()
		return md, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*Metadata), nil
}

// Login obtains a token for t now: through the browser (authorization
// code with PKCE), or without one when the server's "oauth" block names an
// automatic grant (client credentials, enterprise-managed). It probes the
// server for its challenge first, so it works before any connection
// exists. This is what `mcpdeck auth login`, a headless command's --login
// and the TUI's login key call. The token is stored, so later connections
// need no login. A login already running for t (another face, a request's
// interactive transport) is joined, not started twice.
func (m *Manager) Login(ctx context.Context, t Target) (*Status, error) {
	if _, _, err := m.token(t); err != nil {
		return nil, err
	}
	ch, status, err := probe(ctx, m.client, t)
	if err != nil {
		return nil, err
	}
	md, err := m.discoverOnce(ctx, t, ch)
	if err == nil && ch == nil && md.Guessed {
		err = ErrDiscovery // nothing asks for a login, and nothing is published
	}
	if err != nil {
		if ch == nil && errors.Is(err, ErrDiscovery) {
			return nil, fmt.Errorf("logging in to %q: %w: it answered HTTP %d without a challenge and publishes no authorization metadata; it needs no login (if it wants a static token, set it %s)",
				t.Name, ErrNoAuthorization, status, t.headersAdvice())
		}
		return nil, err
	}
	if _, err := m.obtainOnce(ctx, t, md, true); err != nil {
		return nil, err
	}
	return m.Status(t)
}

// obtainOnce gets a new token, once however many callers need one: an
// automatic grant, or with interactive set the browser login; without it
// a NeedsLoginError. The token is stored.
func (m *Manager) obtainOnce(ctx context.Context, t Target, md *Metadata, interactive bool) (*tokenRecord, error) {
	if !interactive && !t.automatic() {
		return nil, m.needsLogin(t, "")
	}
	v, err := m.flights.do(ctx, "obtain "+t.key(), func(ctx context.Context) (any, error) {
		rec, err := m.obtain(ctx, t, md)
		if err != nil {
			return nil, err
		}
		return rec, m.save(t, rec)
	})
	if err != nil {
		return nil, err
	}
	return v.(*tokenRecord), nil
}

// obtain runs the grant t's settings name, binding the token to a new
// DPoP key when the server's challenge asked for DPoP.
func (m *Manager) obtain(ctx context.Context, t Target, md *Metadata) (*tokenRecord, error) {
	var key *ecdsa.PrivateKey
	if _, _, ch, _ := m.state(t).snapshot(); ch != nil && ch.DPoP {
		k, err := newDPoPKey()
		if err != nil {
			return nil, err
		}
		key = k
	}
	return boundTo(ctx, key, func(ctx context.Context) (*tokenRecord, error) { return m.grant(ctx, t, md) })
}

func (m *Manager) grant(ctx context.Context, t Target, md *Metadata) (*tokenRecord, error) {
	scopes := m.scopesFor(t, md)
	s := t.settings()
	switch {
	case s.IdP != nil, s.AssertionFile != "":
		return m.jwtBearer(ctx, t, md.Issuer, md.AuthServer.TokenEndpoint, md.Resource, authStyle(md.AuthServer.TokenEndpointAuthMethodsSupported), scopes)
	case s.GrantType == config.GrantClientCredentials:
		return m.clientCredentials(ctx, t, md.Issuer, md.AuthServer.TokenEndpoint, md.Resource, scopes)
	}
	return m.authorize(ctx, t, md, scopes)
}

// scopesFor chooses the scopes to request: the configured ones; else the
// challenge's, else the resource metadata's scopes_supported (the
// specification's order); plus what was granted before and what a step-up
// asked for, so re-authorizing loses nothing; plus offline_access where the
// authorization server offers it, for a refresh token.
func (m *Manager) scopesFor(t Target, md *Metadata) []string {
	s := t.settings()
	tok, _, ch, want := m.state(t).snapshot()
	var scopes []string
	switch {
	case len(s.Scopes) > 0:
		scopes = slices.Clone(s.Scopes)
	case ch != nil && len(ch.Scopes) > 0:
		scopes = slices.Clone(ch.Scopes)
	default:
		scopes = slices.Clone(md.ResourceScopes)
	}
	if tok != nil && tok.Issuer == md.Issuer {
		scopes = union(scopes, tok.Scopes)
	}
	scopes = union(scopes, want)
	if !t.automatic() && md.AuthServer != nil &&
		slices.Contains(md.AuthServer.ScopesSupported, "offline_access") && !slices.Contains(scopes, "offline_access") {
		scopes = append(scopes, "offline_access")
	}
	return scopes
}

// authorize runs the authorization code flow. A dynamically registered
// client the authorization server has forgotten (it restarted, or expired
// the client) is dropped and registered again, once.
func (m *Manager) authorize(ctx context.Context, t Target, md *Metadata, scopes []string) (*tokenRecord, error) {
	rec, err := m.authorizeAs(ctx, t, md, scopes)
	var stale *staleClientError
	if !errors.As(err, &stale) {
		return rec, err
	}
	if ferr := m.forgetRegistration(md.Issuer, stale.clientID); ferr != nil {
		return nil, ferr
	}
	rec, err = m.authorizeAs(ctx, t, md, scopes)
	if errors.As(err, &stale) {
		return nil, fmt.Errorf("logging in to %q: %w: %s refused a client mcpdeck had just registered with it (%v); run `mcpdeck auth logout --forget-client %s` and try again, or register a client by hand and add \"oauth\": {\"clientId\": \"…\"}",
			t.Name, ErrRegistration, md.Issuer, stale.err, t.Name)
	}
	return rec, err
}

// staleClientError: the authorization server answered invalid_client for
// a client mcpdeck registered dynamically and reused.
type staleClientError struct {
	clientID string
	err      error
}

func (e *staleClientError) Error() string { return e.err.Error() }
func (e *staleClientError) Unwrap() error { return e.err }

// authorizeAs runs one authorization code flow: a loopback redirect
// listener, PKCE S256, a random state, the resource parameter on both
// requests, the issuer check of RFC 9207, then the code exchange.
func (m *Manager) authorizeAs(ctx context.Context, t Target, md *Metadata, scopes []string) (*tokenRecord, error) {
	s := t.settings()
	port := s.RedirectPort
	if port == 0 && s.ClientID == "" {
		port = m.registeredPort(md.Issuer)
	}
	ln, err := listenRedirect(port)
	if err != nil && s.RedirectPort == 0 && port != 0 {
		ln, err = listenRedirect(0) // the remembered port is taken: register anew
	}
	if err != nil {
		return nil, err
	}
	defer ln.close()
	id, err := m.identify(ctx, t, md, ln.uri)
	if err != nil {
		return nil, err
	}
	// stale marks an invalid_client answer for a remembered registration.
	stale := func(err error) error {
		if id.source == clientDynamic && !id.fresh {
			return &staleClientError{clientID: id.id, err: err}
		}
		return err
	}
	cfg := &oauth2.Config{
		ClientID: id.id, ClientSecret: id.secret, RedirectURL: ln.uri, Scopes: scopes,
		Endpoint: oauth2.Endpoint{AuthURL: md.AuthServer.AuthorizationEndpoint, TokenURL: md.AuthServer.TokenEndpoint, AuthStyle: id.style},
	}
	if id.source == clientDynamic && !id.fresh {
		if err := m.checkClientKnown(ctx, cfg, md); err != nil {
			return nil, stale(err)
		}
	}
	verifier := oauth2.GenerateVerifier()
	state := rand.Text()
	authURL := cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", md.Resource))
	if m.opts.OnURL != nil {
		m.opts.OnURL(t.Name, authURL)
	}
	_ = m.opts.OpenURL(authURL) // not fatal: the URL was reported
	q, err := ln.wait(ctx, m.opts.LoginTimeout)
	if err != nil {
		return nil, fmt.Errorf("logging in to %q: %w", t.Name, err)
	}
	code, err := checkResponse(q, state, md)
	if err != nil {
		err = fmt.Errorf("logging in to %q: %w", t.Name, err)
		if q.Get("error") == "invalid_client" {
			return nil, stale(err)
		}
		return nil, err
	}
	opts := []oauth2.AuthCodeOption{oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", md.Resource)}
	extra, err := m.assertionParams(t, md.Issuer)
	if err != nil {
		return nil, err
	}
	opts = append(opts, assertionOptions(extra)...)
	tok, err := cfg.Exchange(m.tokenContext(ctx, md.Resource, nil), code, opts...)
	if err != nil {
		err = tokenError("exchanging the authorization code for "+fmt.Sprintf("%q", t.Name)+" at "+safeURL(md.AuthServer.TokenEndpoint), err)
		if invalidClient(err) {
			return nil, stale(err)
		}
		return nil, err
	}
	rec := recordFrom(tok, scopes, m.opts.Now())
	rec.Resource, rec.Issuer, rec.TokenEndpoint = md.Resource, md.Issuer, md.AuthServer.TokenEndpoint
	rec.ClientID, rec.ClientSource, rec.AuthStyle = id.id, id.source, int(id.style)
	rec.GrantType = string(config.GrantAuthorizationCode)
	return rec, nil
}

// checkClientKnown asks the authorization endpoint about a remembered
// dynamic registration before a person is sent there: an authorization
// server that forgot the client answers the request itself (it must not
// redirect for an unknown client, RFC 6749 §4.1.2.1), as the TypeScript
// SDK's does with 400 {"error": "invalid_client"}, and the person would
// see only that error page. The request is an ordinary authorization
// request with its own state and PKCE challenge whose redirect is never
// followed, so nothing it could start is ever completed.
func (m *Manager) checkClientKnown(ctx context.Context, cfg *oauth2.Config, md *Metadata) error {
	u := cfg.AuthCodeURL(rand.Text(), oauth2.S256ChallengeOption(oauth2.GenerateVerifier()), oauth2.SetAuthURLParam("resource", md.Resource))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil
	}
	req.Header.Set("Accept", "application/json, text/html")
	c := *m.client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		return nil // unreachable now: the browser will say so
	}
	defer discard(resp)
	if resp.StatusCode/100 != 4 {
		return nil
	}
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&e) != nil || e.Error != "invalid_client" {
		return nil
	}
	return fmt.Errorf("%w: %s does not know client %s any more: invalid_client (%s)", ErrRegistration, md.Issuer, cfg.ClientID, oneLine(e.Description))
}

// checkResponse validates the authorization response and returns its
// code. The issuer goes first (RFC 9207 §2.4, the specification's table):
// a response from the wrong issuer is not acted on at all, not even its
// error. Then the state, which ties the response to this login.
func checkResponse(q map[string][]string, state string, md *Metadata) (string, error) {
	get := func(k string) (string, bool) {
		v, ok := q[k]
		if !ok || len(v) == 0 {
			return "", ok
		}
		return v[0], true
	}
	iss, hasIss := get("iss")
	switch {
	case hasIss && iss != md.AuthServer.Issuer:
		return "", fmt.Errorf("%w: the response names issuer %q, not %q: it may come from another authorization server (a mix-up attack), so it was discarded", ErrAuthorization, iss, md.AuthServer.Issuer)
	case !hasIss && md.AuthServer.AuthorizationResponseIssParameterSupported:
		return "", fmt.Errorf("%w: %s promises an iss parameter in its responses but this one has none, so it was discarded", ErrAuthorization, md.AuthServer.Issuer)
	}
	if got, _ := get("state"); got != state {
		return "", fmt.Errorf("%w: the response's state does not match this login's, so it was discarded (a stale tab, or a forged redirect); log in again", ErrAuthorization)
	}
	if e, _ := get("error"); e != "" {
		desc, _ := get("error_description")
		msg := oneLine(e)
		if desc != "" {
			msg += " (" + oneLine(desc) + ")"
		}
		return "", fmt.Errorf("%w: the authorization server refused: %s", ErrAuthorization, msg)
	}
	code, _ := get("code")
	if code == "" {
		return "", fmt.Errorf("%w: the response carries no code", ErrAuthorization)
	}
	return code, nil
}

// needsLogin builds the NeedsLoginError for t from what is cached.
func (m *Manager) needsLogin(t Target, reason string) error {
	_, md, ch, want := m.state(t).snapshot()
	e := &NeedsLoginError{Server: t.Name, Resource: t.URL, Reason: reason, LoginCommand: m.loginCommand(t)}
	if e.Reason == "" {
		e.Reason = "no token is stored"
	}
	if md != nil {
		e.AuthorizationServer = md.Issuer
	}
	switch {
	case len(want) > 0:
		e.Scopes = want
	case ch != nil:
		e.Scopes = ch.Scopes
	}
	return e
}

// Logout forgets t's token, in memory and in the store. The dynamic
// client registration stays: it belongs to the authorization server, not
// to the login (ForgetClient drops it too).
func (m *Manager) Logout(t Target) error {
	return m.drop(t, nil)
}

// ForgetClient forgets t's token and the client mcpdeck registered
// dynamically with t's authorization server, so the next login registers
// anew: for an authorization server that lost the registration in a way
// mcpdeck cannot see. The authorization server is the one that issued the
// stored token, else the one discovery finds. It returns that issuer, ""
// when no registration was stored.
func (m *Manager) ForgetClient(ctx context.Context, t Target) (string, error) {
	_, rec, err := m.token(t)
	if err != nil {
		return "", err
	}
	if err := m.drop(t, nil); err != nil {
		return "", err
	}
	issuer := ""
	if rec != nil {
		issuer = rec.Issuer
	} else if _, md, _, _ := m.state(t).snapshot(); md != nil {
		issuer = md.Issuer
	} else {
		ch, _, err := probe(ctx, m.client, t)
		if err != nil {
			return "", err
		}
		md, err := m.discoverOnce(ctx, t, ch)
		if err != nil {
			return "", err
		}
		issuer = md.Issuer
	}
	reg, err := m.registration(issuer)
	if err != nil || reg == nil {
		return "", err
	}
	return issuer, m.forgetRegistration(issuer, reg.ClientID)
}
