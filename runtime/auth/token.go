package auth

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"mcpdeck/config"
	"mcpdeck/internal/cause"
	"mcpdeck/jsonrpc/mcphttp"
)

// Where a token's client identity came from; a refresh needs the same one.
const (
	clientPreregistered = "preregistered"
	clientMetadataDoc   = "cimd"
	clientDynamic       = "dcr"
)

// tokenRecord is one stored token with what refreshing it needs. The
// client secret is not in it: it stays in the configuration (pre-registered)
// or in the registration record (dynamic), so it is kept once.
type tokenRecord struct {
	AccessToken   string    `json:"accessToken"`
	TokenType     string    `json:"tokenType,omitempty"`
	RefreshToken  string    `json:"refreshToken,omitempty"`
	Expiry        time.Time `json:"expiry,omitzero"`
	Scopes        []string  `json:"scopes,omitempty"`
	Resource      string    `json:"resource"`
	Issuer        string    `json:"issuer"`
	TokenEndpoint string    `json:"tokenEndpoint"`
	ClientID      string    `json:"clientId"`
	ClientSource  string    `json:"clientSource"`
	AuthStyle     int       `json:"authStyle"`
	GrantType     string    `json:"grantType"`
	ObtainedAt    time.Time `json:"obtainedAt"`
	// DPoPKey is the private key a DPoP-bound token is bound to (PKCS #8,
	// base64); "" for a Bearer token.
	DPoPKey string `json:"dpopKey,omitempty"`
}

// refreshable reports whether a new token can be had without a person:
// with a refresh token, or by an automatic grant.
func (r *tokenRecord) refreshable() bool {
	return r.RefreshToken != "" || r.GrantType == string(config.GrantClientCredentials) || r.GrantType == grantJWTBearer
}

// expiring reports whether the token lapses within skew of now.
func (r *tokenRecord) expiring(now time.Time, skew time.Duration) bool {
	return !r.Expiry.IsZero() && now.Add(skew).After(r.Expiry)
}

// recordFrom makes a record of a token response; requested are the scopes
// asked for, kept when the response does not say what was granted.
func recordFrom(tok *oauth2.Token, requested []string, now time.Time) *tokenRecord {
	rec := &tokenRecord{
		AccessToken:  tok.AccessToken,
		TokenType:    tok.TokenType,
		RefreshToken: tok.RefreshToken,
		Expiry:       tok.Expiry,
		Scopes:       requested,
		ObtainedAt:   now,
	}
	if s, ok := tok.Extra("scope").(string); ok && strings.TrimSpace(s) != "" {
		rec.Scopes = strings.Fields(s)
	}
	return rec
}

// tokenContext carries the HTTP client x/oauth2 uses for token requests:
// the one that follows no redirect to another origin (sameOriginRedirects),
// with the resource parameter, and the client assertion when there is
// one, added to every token request.
func (m *Manager) tokenContext(ctx context.Context, resource string, extra url.Values) context.Context {
	base := m.post.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	add := url.Values{}
	for k, v := range extra {
		add[k] = v
	}
	if resource != "" {
		add.Set("resource", resource)
	}
	if key := dpopKeyFrom(ctx); key != nil {
		base = &dpopTokenRequests{m: m, key: key, base: base}
	}
	c := *m.post
	c.Transport = &formParams{base: base, add: add}
	return context.WithValue(ctx, oauth2.HTTPClient, &c)
}

// formParams adds parameters to form-encoded token requests that lack
// them. x/oauth2 lets the code exchange and the client credentials grant
// carry extra parameters but not a refresh, and the specification wants
// the resource parameter (RFC 8707) on every token request, refreshes
// included; a client authenticating with a private key (RFC 7523) needs
// its assertion on every one too.
type formParams struct {
	base http.RoundTripper
	add  url.Values
}

func (p *formParams) RoundTrip(req *http.Request) (*http.Response, error) {
	mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if req.Method != http.MethodPost || mt != "application/x-www-form-urlencoded" || req.Body == nil || len(p.add) == 0 {
		return p.base.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(body))
	if err == nil {
		for k, v := range p.add {
			if !form.Has(k) {
				form[k] = v
			}
		}
		body = []byte(form.Encode())
	}
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	r.ContentLength = int64(len(body))
	r.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return p.base.RoundTrip(r)
}

// sameOriginRedirects is the redirect policy of token and registration
// requests. They carry an authorization code, a PKCE verifier, a refresh
// token or client credentials, so a redirect to another origin (scheme,
// host and port) is refused rather than followed: the values would go to
// a party the authorization server's metadata never named, and its token
// would be stored and used. A redirect within the origin (a 307 or 308 to
// a new path, which keeps the method and body) is followed, at most five.
func sameOriginRedirects(req *http.Request, via []*http.Request) error {
	from := via[0].URL
	if !mcphttp.SameOrigin(req.URL, from) {
		return fmt.Errorf("%w: %s redirected a token or registration request to %s; mcpdeck sends codes, verifiers and client credentials only to the origin the authorization server's metadata names",
			ErrRedirected, originOf(from), originOf(req.URL))
	}
	if len(via) >= 5 {
		return fmt.Errorf("%w: %s redirected a token or registration request %d times", ErrRedirected, originOf(from), len(via))
	}
	return nil
}

func originOf(u *url.URL) string { return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String() }

// clientSecretFor finds the secret of the client rec was issued to.
func (m *Manager) clientSecretFor(t Target, rec *tokenRecord) (string, error) {
	switch rec.ClientSource {
	case clientPreregistered:
		return t.settings().ClientSecret, nil
	case clientDynamic:
		reg, err := m.registration(rec.Issuer)
		if err != nil || reg == nil {
			return "", err
		}
		return reg.ClientSecret, nil
	}
	return "", nil
}

// refresh trades rec's refresh token (or, for client credentials, the
// client's own credentials) for a new token, bound to the same DPoP key
// when rec was.
func (m *Manager) refresh(ctx context.Context, t Target, rec *tokenRecord) (*tokenRecord, error) {
	var key *ecdsa.PrivateKey
	if rec.DPoPKey != "" {
		k, err := decodeDPoPKey(rec.DPoPKey)
		if err != nil {
			return nil, fmt.Errorf("refreshing the token for %q: %w: its stored DPoP key is unreadable (%v); log in again", t.Name, ErrStorage, err)
		}
		key = k
	}
	return boundTo(ctx, key, func(ctx context.Context) (*tokenRecord, error) { return m.refreshGrant(ctx, t, rec) })
}

func (m *Manager) refreshGrant(ctx context.Context, t Target, rec *tokenRecord) (*tokenRecord, error) {
	switch {
	case rec.GrantType == string(config.GrantClientCredentials):
		return m.clientCredentials(ctx, t, rec.Issuer, rec.TokenEndpoint, rec.Resource, rec.Scopes)
	case rec.GrantType == grantJWTBearer && rec.RefreshToken == "":
		return m.jwtBearer(ctx, t, rec.Issuer, rec.TokenEndpoint, rec.Resource, oauth2.AuthStyle(rec.AuthStyle), rec.Scopes)
	}
	if rec.RefreshToken == "" {
		return nil, fmt.Errorf("refreshing the token for %q: %w: no refresh token was issued", t.Name, ErrToken)
	}
	secret, err := m.clientSecretFor(t, rec)
	if err != nil {
		return nil, err
	}
	cfg := oauth2.Config{
		ClientID: rec.ClientID, ClientSecret: secret,
		Endpoint: oauth2.Endpoint{TokenURL: rec.TokenEndpoint, AuthStyle: oauth2.AuthStyle(rec.AuthStyle)},
	}
	// An expiry in the past makes the token source refresh at once.
	old := &oauth2.Token{AccessToken: rec.AccessToken, RefreshToken: rec.RefreshToken, Expiry: time.Unix(1, 0)}
	extra, err := m.assertionParams(t, rec.Issuer)
	if err != nil {
		return nil, err
	}
	tok, err := cfg.TokenSource(m.tokenContext(ctx, rec.Resource, extra), old).Token()
	if err != nil {
		return nil, tokenError("refreshing the token for "+strconv.Quote(t.Name)+" at "+safeURL(rec.TokenEndpoint), err)
	}
	next := recordFrom(tok, rec.Scopes, m.opts.Now())
	next.Resource, next.Issuer, next.TokenEndpoint = rec.Resource, rec.Issuer, rec.TokenEndpoint
	next.ClientID, next.ClientSource, next.AuthStyle, next.GrantType = rec.ClientID, rec.ClientSource, rec.AuthStyle, rec.GrantType
	return next, nil
}

// clientCredentials runs the client credentials grant with the
// pre-registered client, for non-interactive use: authenticated with its
// secret, or with a JWT signed by its private key (private_key_jwt).
func (m *Manager) clientCredentials(ctx context.Context, t Target, issuer, tokenURL, resource string, scopes []string) (*tokenRecord, error) {
	s := t.settings()
	if s.ClientID == "" || (s.ClientSecret == "" && s.PrivateKeyFile == "") {
		return nil, fmt.Errorf("requesting a token for %q: %w: the client_credentials grant needs \"clientId\" and a \"clientSecret\" or \"privateKeyFile\" in the server's \"oauth\" block", t.Name, ErrToken)
	}
	m.secret(s.ClientSecret)
	extra, err := m.assertionParams(t, issuer)
	if err != nil {
		return nil, err
	}
	cc := clientcredentials.Config{ClientID: s.ClientID, ClientSecret: s.ClientSecret, TokenURL: tokenURL, Scopes: scopes}
	if extra != nil {
		cc.AuthStyle = oauth2.AuthStyleInParams // the assertion authenticates, not a secret
	}
	tok, err := cc.Token(m.tokenContext(ctx, resource, extra))
	if err != nil {
		return nil, tokenError("requesting a client credentials token for "+strconv.Quote(t.Name)+" at "+safeURL(tokenURL), err)
	}
	rec := recordFrom(tok, scopes, m.opts.Now())
	rec.Resource, rec.Issuer, rec.TokenEndpoint = resource, issuer, tokenURL
	rec.ClientID, rec.ClientSource, rec.GrantType = s.ClientID, clientPreregistered, string(config.GrantClientCredentials)
	return rec, nil
}

// tokenRequestError is a failed token request. Its text comes from the
// OAuth error code and description only: the raw body is never quoted,
// since a confused server could echo a credential in it.
type tokenRequestError struct {
	msg string
	// refused: the authorization server said no (a 4xx, invalid_grant and
	// the like), so retrying the same request cannot help; a new login can.
	refused bool
	// code is the OAuth error code, "" when the answer had none.
	code string
	// cause is what failed beneath, when not the server's answer (a
	// refused redirect).
	cause error
}

func (e *tokenRequestError) Error() string { return e.msg }
func (e *tokenRequestError) Unwrap() []error {
	if e.cause != nil {
		return []error{ErrToken, e.cause}
	}
	return []error{ErrToken}
}

func tokenError(what string, err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		msg := re.ErrorCode
		if msg == "" && re.Response != nil {
			msg = "HTTP " + re.Response.Status
		}
		if re.ErrorDescription != "" {
			msg += " (" + oneLine(re.ErrorDescription) + ")"
		}
		refused := re.ErrorCode != "" || (re.Response != nil && re.Response.StatusCode/100 == 4)
		return &tokenRequestError{msg: fmt.Sprintf("%s: %v: %s", what, ErrToken, msg), refused: refused, code: re.ErrorCode}
	}
	why := cause.Of(err)
	return &tokenRequestError{msg: fmt.Sprintf("%s: %v: %v", what, ErrToken, why), cause: why}
}

// invalidClient reports a token request refused with invalid_client: the
// authorization server does not know (or no longer accepts) the client.
func invalidClient(err error) bool {
	var te *tokenRequestError
	return errors.As(err, &te) && te.code == "invalid_client"
}

// refused reports a token request the authorization server turned down
// for good (an expired or revoked refresh token): only a new login helps.
func refused(err error) bool {
	var te *tokenRequestError
	return errors.As(err, &te) && te.refused
}

// oneLine shortens server text for a message.
func oneLine(s string) string {
	// Server text is data: no terminal control sequences get through.
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// union returns a ∪ b, keeping a's order.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
