package gateway

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"mcpdeck/jsonrpc"
)

// JWTOptions make the HTTP gateway an OAuth 2.1 protected resource, as
// the MCP authorization spec asks of a server: clients discover the
// authorization server from the resource metadata (RFC 9728), log in
// there, and send the JWT access token it issued for the gateway.
type JWTOptions struct {
	// Issuer is the authorization server's issuer: the iss of every token.
	Issuer string
	// Resource is the gateway's URL as clients use it (…/mcp): the aud
	// every token must name (RFC 8707), and the metadata's resource.
	Resource string
	// JWKSURL is where the signing keys are; "" means the issuer's
	// metadata's jwks_uri.
	JWKSURL string
	// IdentityClaim names the claim that identifies the client (default
	// "sub"): per-client rules, rate limits and the audit log use it.
	IdentityClaim string
	// Scopes must all be granted.
	Scopes []string
	// Algorithms are the accepted signature algorithms; default the
	// asymmetric ones (RS*, PS*, ES*, EdDSA). Never "none", never HMAC: a
	// shared secret would let anyone holding it mint tokens.
	Algorithms []jose.SignatureAlgorithm
	// Client fetches metadata and keys; default a client with a 10 s
	// timeout.
	Client *http.Client
	// Leeway tolerates clock skew on exp, nbf and iat (default 1 minute).
	Leeway time.Duration
	// KeysTTL is how long fetched keys are used before they are fetched
	// again, unless the answer's Cache-Control says otherwise (default 10
	// minutes); MinRefresh spaces the refetches a token with an unknown
	// key id causes (default 30 s), so forged kids cannot make the
	// gateway hammer the authorization server.
	KeysTTL    time.Duration
	MinRefresh time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// JWTAuth verifies JWT access tokens. Safe for concurrent use.
type JWTAuth struct {
	opts    JWTOptions
	metaURL string
	meta    *oauthex.ProtectedResourceMetadata
	keys    *keyCache

	// verified remembers the tokens that verified, by their SHA-256, until
	// they expire: a client sends the same token with every request, and
	// checking a signature costs more than the rest of a small call. It
	// is emptied whenever the keys are fetched again (a key withdrawn
	// takes its tokens with it) and when it is full.
	mu       sync.Mutex
	verified map[[sha256.Size]byte]*Identity
}

// maxVerified bounds the verified-token cache.
const maxVerified = 4096

// Identity is who a verified token says the client is.
type Identity struct {
	// ID is the value of the identity claim.
	ID       string
	ClientID string // the client_id claim, if any
	Scopes   []string
	Expiry   time.Time
}

// ErrAuthConfig: the JWT options cannot work.
var ErrAuthConfig = errors.New("invalid gateway auth")

// NewJWTAuth checks opts; it sends nothing (keys are fetched at the
// first token, so a gateway starts while its authorization server is
// down, and says so on each refused request).
func NewJWTAuth(opts JWTOptions) (*JWTAuth, error) {
	for name, v := range map[string]string{"issuer": opts.Issuer, "resource": opts.Resource} {
		if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%w: the %s %q is not an http(s) URL", ErrAuthConfig, name, v)
		}
	}
	if opts.IdentityClaim == "" {
		opts.IdentityClaim = "sub"
	}
	if len(opts.Algorithms) == 0 {
		opts.Algorithms = []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
			jose.ES256, jose.ES384, jose.ES512, jose.EdDSA}
	}
	for _, alg := range opts.Algorithms {
		if strings.HasPrefix(string(alg), "HS") || alg == "none" {
			return nil, fmt.Errorf("%w: algorithm %s is not accepted: access tokens must be signed with the authorization server's private key", ErrAuthConfig, alg)
		}
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if opts.Leeway <= 0 {
		opts.Leeway = time.Minute
	}
	if opts.KeysTTL <= 0 {
		opts.KeysTTL = 10 * time.Minute
	}
	if opts.MinRefresh < 0 {
		opts.MinRefresh = 0
	} else if opts.MinRefresh == 0 {
		opts.MinRefresh = 30 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	u, _ := url.Parse(opts.Resource)
	meta := *u
	meta.Path = MetadataPath(opts.Resource)
	meta.RawQuery, meta.Fragment = "", ""
	a := &JWTAuth{opts: opts, metaURL: meta.String(), meta: &oauthex.ProtectedResourceMetadata{
		Resource: opts.Resource, AuthorizationServers: []string{opts.Issuer}, ScopesSupported: opts.Scopes,
		BearerMethodsSupported: []string{"header"}, ResourceName: "mcpdeck gateway",
	}}
	a.keys = newKeyCache(a)
	return a, nil
}

// MetadataPath is the path-aware well-known path of resource's metadata
// (RFC 9728 §3.1): /.well-known/oauth-protected-resource/mcp for …/mcp.
func MetadataPath(resource string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return "/.well-known/oauth-protected-resource"
	}
	return "/.well-known/oauth-protected-resource" + strings.TrimSuffix(u.Path, "/")
}

// MetadataURL is where the gateway's resource metadata is, as the 401
// challenge names it.
func (a *JWTAuth) MetadataURL() string { return a.metaURL }

// MetadataHandler serves the protected resource metadata (go-sdk's
// handler: GET, and CORS for browser clients). Mount it at
// MetadataPath(resource) and at the root well-known path, which clients
// try second.
func (a *JWTAuth) MetadataHandler() http.Handler {
	return sdkauth.ProtectedResourceMetadataHandler(a.meta)
}

// authError is a refused token: the HTTP status, the RFC 6750 error code
// and what went wrong.
type authError struct {
	status int
	code   string // invalid_token, insufficient_scope, "" for a missing token
	desc   string
}

func (e *authError) Error() string { return e.desc }

// Verify checks a bearer token: signature (a key of the issuer's JWKS),
// iss, aud (the gateway), exp and nbf, the scopes, and the identity claim.
func (a *JWTAuth) Verify(ctx context.Context, raw string) (*Identity, error) {
	sum := sha256.Sum256([]byte(raw))
	a.mu.Lock()
	id := a.verified[sum]
	a.mu.Unlock()
	if id != nil && a.opts.Now().Before(id.Expiry.Add(a.opts.Leeway)) {
		return id, nil
	}
	id, err := a.verify(ctx, raw)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	if a.verified == nil || len(a.verified) >= maxVerified {
		a.verified = map[[sha256.Size]byte]*Identity{}
	}
	a.verified[sum] = id
	a.mu.Unlock()
	return id, nil
}

// forget empties the verified-token cache (the keys changed).
func (a *JWTAuth) forget() {
	a.mu.Lock()
	a.verified = nil
	a.mu.Unlock()
}

// verify is Verify without the cache.
func (a *JWTAuth) verify(ctx context.Context, raw string) (*Identity, error) {
	tok, err := jwt.ParseSigned(raw, a.opts.Algorithms)
	if err != nil {
		return nil, &authError{http.StatusUnauthorized, "invalid_token", "the access token is not a JWT signed with an accepted algorithm (" + err.Error() + ")"}
	}
	if len(tok.Headers) != 1 {
		return nil, &authError{http.StatusUnauthorized, "invalid_token", "the access token has more than one signature"}
	}
	h := tok.Headers[0]
	keys, err := a.keys.lookup(ctx, h.KeyID, h.Algorithm)
	if err != nil {
		return nil, err
	}
	var claims jwt.Claims
	extra := map[string]any{}
	verified := false
	for _, k := range keys {
		if tok.Claims(k.Key, &claims, &extra) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return nil, &authError{http.StatusUnauthorized, "invalid_token", "the access token's signature does not verify with the authorization server's keys"}
	}
	if claims.Expiry == nil {
		return nil, &authError{http.StatusUnauthorized, "invalid_token", "the access token has no exp"}
	}
	err = claims.ValidateWithLeeway(jwt.Expected{Issuer: a.opts.Issuer, AnyAudience: jwt.Audience{a.opts.Resource}, Time: a.opts.Now()}, a.opts.Leeway)
	switch {
	case errors.Is(err, jwt.ErrExpired):
		return nil, &authError{http.StatusUnauthorized, "invalid_token", "the access token expired"}
	case errors.Is(err, jwt.ErrInvalidIssuer):
		return nil, &authError{http.StatusUnauthorized, "invalid_token", fmt.Sprintf("the access token was issued by %q, not %q", claims.Issuer, a.opts.Issuer)}
	case errors.Is(err, jwt.ErrInvalidAudience):
		return nil, &authError{http.StatusUnauthorized, "invalid_token", fmt.Sprintf("the access token is for %v, not for this gateway (%s)", []string(claims.Audience), a.opts.Resource)}
	case err != nil:
		return nil, &authError{http.StatusUnauthorized, "invalid_token", "the access token is not valid now: " + err.Error()}
	}
	id := &Identity{Expiry: claims.Expiry.Time(), Scopes: scopesOf(extra)}
	id.ClientID, _ = extra["client_id"].(string)
	switch a.opts.IdentityClaim {
	case "sub":
		id.ID = claims.Subject
	default:
		id.ID, _ = extra[a.opts.IdentityClaim].(string)
	}
	if id.ID == "" {
		return nil, &authError{http.StatusUnauthorized, "invalid_token", fmt.Sprintf("the access token has no %q claim, which names the client here (gateway.auth.identityClaim)", a.opts.IdentityClaim)}
	}
	for _, s := range a.opts.Scopes {
		if !slices.Contains(id.Scopes, s) {
			return nil, &authError{http.StatusForbidden, "insufficient_scope", fmt.Sprintf("the access token lacks the scope %q", s)}
		}
	}
	return id, nil
}

// scopesOf reads scope (RFC 9068: space-separated) or scp (an array, as
// some servers write it).
func scopesOf(extra map[string]any) []string {
	if s, ok := extra["scope"].(string); ok {
		return strings.Fields(s)
	}
	var out []string
	if arr, ok := extra["scp"].([]any); ok {
		for _, v := range arr {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// challenge is the WWW-Authenticate of a refusal: where the metadata is,
// and RFC 6750's error and scope.
func (a *JWTAuth) challenge(e *authError) string {
	parts := []string{fmt.Sprintf("resource_metadata=%q", a.metaURL)}
	if e.code != "" {
		parts = append(parts, fmt.Sprintf("error=%q", e.code), fmt.Sprintf("error_description=%q", strings.ReplaceAll(e.desc, `"`, `'`)))
	}
	if len(a.opts.Scopes) > 0 {
		parts = append(parts, fmt.Sprintf("scope=%q", strings.Join(a.opts.Scopes, " ")))
	}
	return "Bearer " + strings.Join(parts, ", ")
}

// identityKey carries the verified identity in a request's context.
type identityKey struct{}

// IdentityFrom returns the identity verified for the request that ctx
// belongs to, nil when the gateway does not authenticate with OAuth.
func IdentityFrom(ctx context.Context) *Identity {
	id, _ := ctx.Value(identityKey{}).(*Identity)
	return id
}

// authorize checks the request's bearer token against auth and, when it
// verifies, puts the identity in *r's context. It answers a refusal
// itself (401 or 403 with the challenge) and reports false.
func (h *httpHandler) authorize(w http.ResponseWriter, r **http.Request) bool {
	a := h.opts.Auth
	raw, ok := strings.CutPrefix((*r).Header.Get("Authorization"), "Bearer ")
	if !ok {
		raw, ok = strings.CutPrefix((*r).Header.Get("Authorization"), "bearer ")
	}
	var err error
	var id *Identity
	if !ok || strings.TrimSpace(raw) == "" {
		err = &authError{http.StatusUnauthorized, "", "no access token: log in to the authorization server the resource metadata names"}
	} else {
		id, err = a.Verify((*r).Context(), strings.TrimSpace(raw))
	}
	if err == nil {
		*r = (*r).WithContext(context.WithValue((*r).Context(), identityKey{}, id))
		return true
	}
	dropConnection(w) // refused before the body is read, as a bad static token is
	var ae *authError
	if !errors.As(err, &ae) {
		// The keys could not be had: the authorization server is down. A
		// 503 tells the client to come back rather than to log in again.
		writeError(w, http.StatusServiceUnavailable, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "mcpdeck gateway: cannot check the access token now: %v", err))
		return false
	}
	w.Header().Set("WWW-Authenticate", a.challenge(ae))
	word := "Unauthorized"
	if ae.status == http.StatusForbidden {
		word = "Forbidden"
	}
	writeError(w, ae.status, nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "%s: %s (see %s)", word, ae.desc, a.metaURL))
	return false
}

// sessionFor returns the legacy session sid if the request may use it:
// with OAuth, only requests of the identity that opened it may, so a
// session id that leaked is worth nothing to someone else (it is "not
// found" to them, as to a stranger).
func (g *Gateway) sessionFor(r *http.Request, sid string) *httpSession {
	s := g.session(sid)
	if s == nil {
		return nil
	}
	if id := IdentityFrom(r.Context()); id != nil && s.cl.identityID() != id.ID {
		return nil
	}
	return s
}

// setIdentity fixes the client's verified identity, before it attaches:
// its policy follows the identity from then on, whatever name it gives.
func (cl *client) setIdentity(id *Identity) {
	if id == nil {
		return
	}
	cl.mu.Lock()
	cl.identity = id
	cl.pol = newPolicy(cl.g.opts.Config, id.ID)
	cl.slots = make(chan struct{}, cl.pol.maxConcurrent())
	cl.mu.Unlock()
}

// identityID is the client's verified identity, "" without OAuth.
func (cl *client) identityID() string {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.identity == nil {
		return ""
	}
	return cl.identity.ID
}
