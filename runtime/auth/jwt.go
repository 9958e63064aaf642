package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"mcpdeck/internal/cause"
)

// grantJWTBearer is RFC 7523's grant type: an assertion (here the
// identity assertion grant of enterprise-managed authorization) traded
// for an access token.
const grantJWTBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// assertionLifetime bounds a client assertion: RFC 7523 wants an expiry,
// and a short one limits what a captured assertion is worth.
const assertionLifetime = time.Minute

// assertionParams returns the client authentication parameters of RFC
// 7523 §2.2 (private_key_jwt) for t's pre-registered client when its
// "oauth" block names a private key, nil otherwise. The JWT is signed
// afresh for each token request, with the authorization server's issuer
// as its audience (RFC 7523bis) and a random jti, so it cannot be
// replayed. The key file is read each time: rotating it needs no restart.
func (m *Manager) assertionParams(t Target, issuer string) (url.Values, error) {
	s := t.settings()
	if s.PrivateKeyFile == "" {
		return nil, nil
	}
	key, alg, err := loadSigningKey(s.PrivateKeyFile, s.SigningAlgorithm)
	if err != nil {
		return nil, fmt.Errorf("authenticating %q's client %s: %w: %v", t.Name, s.ClientID, ErrToken, err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return nil, fmt.Errorf("authenticating %q's client %s: %w: signing with %s: %v", t.Name, s.ClientID, ErrToken, alg, err)
	}
	now := m.opts.Now()
	claims := jwt.Claims{
		Issuer: s.ClientID, Subject: s.ClientID, Audience: jwt.Audience{issuer},
		IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now.Add(-5 * time.Second)),
		Expiry: jwt.NewNumericDate(now.Add(assertionLifetime)), ID: rand.Text(),
	}
	assertion, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		return nil, fmt.Errorf("authenticating %q's client %s: %w: %v", t.Name, s.ClientID, ErrToken, err)
	}
	m.secret(assertion)
	return url.Values{
		"client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"},
		"client_assertion":      {assertion},
	}, nil
}

// loadSigningKey reads a PEM private key (PKCS #8, or the older SEC 1 EC
// and PKCS #1 RSA forms) and picks the algorithm: the configured one,
// which must suit the key, else the one the key's type implies.
func loadSigningKey(path, alg string) (crypto.Signer, jose.SignatureAlgorithm, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("reading the private key (\"privateKeyFile\"): %v", cause.Of(err))
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, "", fmt.Errorf("%s holds no PEM block; write the key as -----BEGIN PRIVATE KEY-----", path)
	}
	var key any
	switch block.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: not a private key mcpdeck can read (%v)", path, err)
	}
	var implied jose.SignatureAlgorithm
	var fits func(jose.SignatureAlgorithm) bool
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			implied = jose.ES256
		case elliptic.P384():
			implied = jose.ES384
		case elliptic.P521():
			implied = jose.ES512
		}
		fits = func(a jose.SignatureAlgorithm) bool { return a == implied }
	case *rsa.PrivateKey:
		implied = jose.RS256
		fits = func(a jose.SignatureAlgorithm) bool {
			switch a {
			case jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512:
				return true
			}
			return false
		}
	case ed25519.PrivateKey:
		implied = jose.EdDSA
		fits = func(a jose.SignatureAlgorithm) bool { return a == jose.EdDSA }
	}
	if implied == "" {
		return nil, "", fmt.Errorf("%s: a %T key cannot sign a client assertion; use an EC (P-256, P-384, P-521), RSA or Ed25519 key", path, key)
	}
	if alg == "" {
		return key.(crypto.Signer), implied, nil
	}
	if !fits(jose.SignatureAlgorithm(alg)) {
		return nil, "", fmt.Errorf("signingAlgorithm %s does not suit the key in %s (it signs with %s)", alg, path, implied)
	}
	return key.(crypto.Signer), jose.SignatureAlgorithm(alg), nil
}

// assertionOptions turns assertion parameters into options of a code
// exchange.
func assertionOptions(v url.Values) []oauth2.AuthCodeOption {
	var out []oauth2.AuthCodeOption
	for k := range v {
		out = append(out, oauth2.SetAuthURLParam(k, v.Get(k)))
	}
	return out
}

// jwtBearer runs the JWT bearer grant (RFC 7523) with the assertion t's
// settings name, for an access token at tokenURL:
//   - enterprise-managed authorization (SEP-990): the ID token from the
//     "idp" block is exchanged at the identity provider (RFC 8693 token
//     exchange, through go-sdk's oauthex) for an identity assertion grant
//     naming this server's authorization server and resource, which is
//     the assertion, sent with the pre-registered client's credentials;
//   - workload identity federation (SEP-1933): the platform's JWT in
//     "assertionFile" is the assertion.
//
// No browser is involved; a failure is reported, never retried or
// answered with another grant.
func (m *Manager) jwtBearer(ctx context.Context, t Target, issuer, tokenURL, resource string, style oauth2.AuthStyle, scopes []string) (*tokenRecord, error) {
	s := t.settings()
	switch {
	case s.IdP != nil:
		grant, err := m.identityAssertion(ctx, t, issuer, resource, scopes)
		if err != nil {
			return nil, err
		}
		return m.bearerGrant(ctx, t, grant, "the identity assertion grant", issuer, tokenURL, resource, style, scopes)
	case s.AssertionFile != "":
		data, err := os.ReadFile(s.AssertionFile)
		if err != nil {
			return nil, fmt.Errorf("requesting a token for %q: %w: reading the workload's assertion (\"assertionFile\"): %v", t.Name, ErrToken, cause.Of(err))
		}
		assertion := strings.TrimSpace(string(data))
		m.secret(assertion)
		if s.ClientSecret == "" {
			style = oauth2.AuthStyleInParams // a public client sends only its id
		}
		return m.bearerGrant(ctx, t, assertion, "the workload's assertion", issuer, tokenURL, resource, style, scopes)
	}
	return nil, fmt.Errorf("requesting a token for %q: %w: the server's \"oauth\" block has no \"idp\" or \"assertionFile\" any more; log in again", t.Name, ErrToken)
}

// identityAssertion exchanges the "idp" block's ID token at the identity
// provider for an identity assertion grant for issuer and resource.
func (m *Manager) identityAssertion(ctx context.Context, t Target, issuer, resource string, scopes []string) (string, error) {
	idp := t.settings().IdP
	m.secret(idp.IDToken, idp.ClientSecret)
	idpTokenURL := idp.TokenEndpoint
	if idpTokenURL == "" {
		meta, err := sdkauth.GetAuthServerMetadata(ctx, idp.Issuer, m.client)
		if err != nil || meta == nil {
			why := "it publishes no OAuth or OpenID metadata"
			if err != nil {
				why = err.Error()
			}
			return "", fmt.Errorf("discovering identity provider %s for %q: %w: %s; set \"tokenEndpoint\" in the \"idp\" block", idp.Issuer, t.Name, ErrDiscovery, why)
		}
		idpTokenURL = meta.TokenEndpoint
	}
	creds := &oauthex.ClientCredentials{ClientID: idp.ClientID}
	if idp.ClientSecret != "" {
		creds.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: idp.ClientSecret}
	}
	grant, err := oauthex.ExchangeToken(ctx, idpTokenURL, &oauthex.TokenExchangeRequest{
		RequestedTokenType: oauthex.TokenTypeIDJAG, Audience: issuer, Resource: resource, Scope: scopes,
		SubjectToken: idp.IDToken, SubjectTokenType: oauthex.TokenTypeIDToken,
	}, creds, m.post)
	if err != nil {
		te := tokenError("exchanging the ID token for "+strconv.Quote(t.Name)+" at identity provider "+safeURL(idpTokenURL), err)
		if refused(te) {
			return "", fmt.Errorf("%w; the ID token in \"oauth.idp.idToken\" may have expired: get a fresh one from the identity provider", te)
		}
		return "", te
	}
	m.secret(grant.AccessToken)
	return grant.AccessToken, nil
}

// bearerGrant trades assertion (what names it for messages) for an
// access token at tokenURL, as t's client.
func (m *Manager) bearerGrant(ctx context.Context, t Target, assertion, what, issuer, tokenURL, resource string, style oauth2.AuthStyle, scopes []string) (*tokenRecord, error) {
	s := t.settings()
	m.secret(s.ClientSecret)
	cfg := &oauth2.Config{ClientID: s.ClientID, ClientSecret: s.ClientSecret, Endpoint: oauth2.Endpoint{TokenURL: tokenURL, AuthStyle: style}}
	extra, err := m.assertionParams(t, issuer)
	if err != nil {
		return nil, err
	}
	if extra != nil {
		cfg.Endpoint.AuthStyle = oauth2.AuthStyleInParams
	}
	opts := []oauth2.AuthCodeOption{oauth2.SetAuthURLParam("grant_type", grantJWTBearer), oauth2.SetAuthURLParam("assertion", assertion)}
	if len(scopes) > 0 {
		opts = append(opts, oauth2.SetAuthURLParam("scope", strings.Join(scopes, " ")))
	}
	tok, err := cfg.Exchange(m.tokenContext(ctx, resource, extra), "", opts...)
	if err != nil {
		return nil, tokenError("trading "+what+" for a token for "+strconv.Quote(t.Name)+" at "+safeURL(tokenURL), err)
	}
	rec := recordFrom(tok, scopes, m.opts.Now())
	rec.Resource, rec.Issuer, rec.TokenEndpoint = resource, issuer, tokenURL
	rec.ClientID, rec.ClientSource, rec.AuthStyle, rec.GrantType = s.ClientID, clientPreregistered, int(cfg.Endpoint.AuthStyle), grantJWTBearer
	return rec, nil
}
