package auth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"golang.org/x/oauth2"

	"mcpdeck/config"
)

// probeBody is what the login probe POSTs: a ping, which creates no
// session on servers that need no authorization.
const probeBody = `{"jsonrpc":"2.0","id":"mcpdeck-auth-probe","method":"ping"}`

// probe sends one unauthenticated request to the server and returns the
// challenge of a 401 or 403, or nil when the server let it through.
func probe(ctx context.Context, client *http.Client, serverURL string) (*Challenge, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, serverURL, strings.NewReader(probeBody))
	if err != nil {
		return nil, 0, fmt.Errorf("probing %s: %w: %v", safeURL(serverURL), ErrDiscovery, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("probing %s: %w: %v", safeURL(serverURL), ErrDiscovery, rootCause(err))
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return ParseChallenge(resp.StatusCode, resp.Header), resp.StatusCode, nil
	}
	return nil, resp.StatusCode, nil
}

// discover returns t's discovery result, reusing the cached one unless the
// challenge names other metadata (st.mu held).
func (m *Manager) discover(ctx context.Context, t Target, st *serverState, ch *Challenge) (*Metadata, error) {
	if ch != nil {
		st.challenge = ch
	}
	if st.md != nil && (ch == nil || ch.ResourceMetadata == "" || ch.ResourceMetadata == st.md.MetadataURL) {
		return st.md, nil
	}
	md, err := Discover(ctx, m.client, t.URL, st.challenge, t.settings().AuthServerMetadataURL)
	if err != nil {
		return nil, err
	}
	st.md = md
	return md, nil
}

// Login obtains a token for t now: through the browser (authorization
// code with PKCE), or with client credentials when the server's "oauth"
// block says so. It probes the server for its challenge first, so it works
// before any connection exists. This is what `mcpdeck auth login`, a
// headless command's --login and the TUI's login key call. The token is
// stored, so later connections need no login.
func (m *Manager) Login(ctx context.Context, t Target) (*Status, error) {
	st := m.state(t)
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := m.load(t, st); err != nil {
		return nil, err
	}
	ch, status, err := probe(ctx, m.client, t.URL)
	if err != nil {
		return nil, err
	}
	md, err := m.discover(ctx, t, st, ch)
	if err != nil {
		if ch == nil && errors.Is(err, ErrDiscovery) {
			return nil, fmt.Errorf("logging in to %q: %w: it answered HTTP %d without a challenge and publishes no authorization metadata; it needs no login (use \"headers\" if it wants a static token)",
				t.Name, ErrNoAuthorization, status)
		}
		return nil, err
	}
	if err := m.obtainLocked(ctx, t, st, md, true); err != nil {
		return nil, err
	}
	return m.statusLocked(t, st)
}

// obtainLocked gets a new token: client credentials, or with interactive
// set the browser login; without it a NeedsLoginError (st.mu held).
func (m *Manager) obtainLocked(ctx context.Context, t Target, st *serverState, md *Metadata, interactive bool) error {
	s := t.settings()
	scopes := m.scopesFor(t, st, md)
	var rec *tokenRecord
	var err error
	switch {
	case s.GrantType == config.GrantClientCredentials:
		rec, err = m.clientCredentials(ctx, t, md.Issuer, md.AuthServer.TokenEndpoint, md.Resource, scopes)
	case interactive:
		rec, err = m.authorize(ctx, t, md, scopes)
	default:
		return m.needsLogin(t, st, md, "")
	}
	if err != nil {
		return err
	}
	st.wantScopes = nil
	return m.save(t, st, rec)
}

// scopesFor chooses the scopes to request: the configured ones; else the
// challenge's, else the resource metadata's scopes_supported (the
// specification's order); plus what was granted before and what a step-up
// asked for, so re-authorizing loses nothing; plus offline_access where the
// authorization server offers it, for a refresh token.
func (m *Manager) scopesFor(t Target, st *serverState, md *Metadata) []string {
	s := t.settings()
	var scopes []string
	switch {
	case len(s.Scopes) > 0:
		scopes = slices.Clone(s.Scopes)
	case st.challenge != nil && len(st.challenge.Scopes) > 0:
		scopes = slices.Clone(st.challenge.Scopes)
	default:
		scopes = slices.Clone(md.ResourceScopes)
	}
	if st.tok != nil {
		scopes = union(scopes, st.tok.Scopes)
	}
	scopes = union(scopes, st.wantScopes)
	if s.GrantType != config.GrantClientCredentials && md.AuthServer != nil &&
		slices.Contains(md.AuthServer.ScopesSupported, "offline_access") && !slices.Contains(scopes, "offline_access") {
		scopes = append(scopes, "offline_access")
	}
	return scopes
}

// authorize runs the authorization code flow: a loopback redirect
// listener, PKCE S256, a random state, the resource parameter on both
// requests, the issuer check of RFC 9207, then the code exchange.
func (m *Manager) authorize(ctx context.Context, t Target, md *Metadata, scopes []string) (*tokenRecord, error) {
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
	cfg := &oauth2.Config{
		ClientID: id.id, ClientSecret: id.secret, RedirectURL: ln.uri, Scopes: scopes,
		Endpoint: oauth2.Endpoint{AuthURL: md.AuthServer.AuthorizationEndpoint, TokenURL: md.AuthServer.TokenEndpoint, AuthStyle: id.style},
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
		return nil, fmt.Errorf("logging in to %q: %w", t.Name, err)
	}
	tok, err := cfg.Exchange(m.tokenContext(ctx, md.Resource), code,
		oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", md.Resource))
	if err != nil {
		return nil, tokenError("exchanging the authorization code for "+fmt.Sprintf("%q", t.Name)+" at "+safeURL(md.AuthServer.TokenEndpoint), err)
	}
	rec := recordFrom(tok, scopes, m.opts.Now())
	rec.Resource, rec.Issuer, rec.TokenEndpoint = md.Resource, md.Issuer, md.AuthServer.TokenEndpoint
	rec.ClientID, rec.ClientSource, rec.AuthStyle = id.id, id.source, int(id.style)
	rec.GrantType = string(config.GrantAuthorizationCode)
	return rec, nil
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

// needsLogin builds the NeedsLoginError for t (st.mu held).
func (m *Manager) needsLogin(t Target, st *serverState, md *Metadata, reason string) error {
	e := &NeedsLoginError{Server: t.Name, Resource: t.URL, Reason: reason, LoginCommand: t.loginCommand()}
	if e.Reason == "" {
		e.Reason = "no token is stored"
	}
	if md != nil {
		e.AuthorizationServer = md.Issuer
	}
	switch {
	case len(st.wantScopes) > 0:
		e.Scopes = st.wantScopes
	case st.challenge != nil:
		e.Scopes = st.challenge.Scopes
	}
	return e
}

// Logout forgets t's token, in memory and in the store. The dynamic
// client registration stays: it belongs to the authorization server, not
// to the login.
func (m *Manager) Logout(t Target) error {
	st := m.state(t)
	st.mu.Lock()
	defer st.mu.Unlock()
	return m.drop(t, st)
}
