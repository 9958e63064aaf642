package config

import (
	"math"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
)

// GrantType is how mcpdeck obtains tokens for a server protected by MCP
// authorization.
type GrantType string

// The grant types a server's "oauth" block may name.
const (
	// GrantAuthorizationCode is the default: a person logs in through the
	// browser (authorization code with PKCE).
	GrantAuthorizationCode GrantType = "authorization_code"
	// GrantClientCredentials is for non-interactive use: mcpdeck acts on
	// its own behalf with a pre-registered client id and secret.
	GrantClientCredentials GrantType = "client_credentials"
)

// OAuth is a server's "oauth" block: how mcpdeck identifies itself to the
// server's authorization server. Every field is optional; without the block
// mcpdeck still logs in, registering itself (a Client ID Metadata Document
// or dynamic client registration) when the server asks for authorization.
type OAuth struct {
	// ClientID and ClientSecret are a pre-registered client, tried before
	// any registration. ClientSecret is a secret: write it as
	// "${env:NAME}" rather than inline.
	ClientID     string
	ClientSecret string
	// Scopes, when set, are requested instead of those the server's
	// challenge or metadata suggest.
	Scopes []string
	// RedirectPort fixes the loopback redirect listener's port, for clients
	// registered with an exact redirect URI; 0 means a free port.
	RedirectPort int
	// GrantType is GrantAuthorizationCode unless the file says otherwise.
	GrantType GrantType
	// ClientMetadataURL is mcpdeck's Client ID Metadata Document (an https
	// URL with a path), used as the client id where the authorization
	// server supports such documents.
	ClientMetadataURL string
	// AuthServerMetadataURL skips authorization server discovery: the
	// metadata document is fetched from here (Claude Code's field).
	AuthServerMetadataURL string
	// PrivateKeyFile holds the PEM private key of a pre-registered client
	// that authenticates with a signed JWT (private_key_jwt, RFC 7523)
	// instead of a secret; "~" and variables expand. SigningAlgorithm is
	// the JWS algorithm (ES256, RS256, ...); "" means the one the key's
	// type implies.
	PrivateKeyFile   string
	SigningAlgorithm string
	// IdP, when set, makes the login enterprise-managed (SEP-990): an ID
	// token from the organisation's identity provider is exchanged there
	// for an identity assertion grant, which the server's authorization
	// server trades for an access token. No browser is involved.
	IdP *OAuthIdP
	// AssertionFile holds a JWT the platform issues to this workload
	// (workload identity federation, SEP-1933: a Kubernetes service
	// account token, a CI job's OIDC token), traded for an access token
	// with the JWT bearer grant (RFC 7523). It is read afresh for every
	// token request, since platforms rotate it. No browser is involved.
	AssertionFile string
}

// OAuthIdP is the "idp" block of an "oauth" block: the enterprise identity
// provider of enterprise-managed authorization (SEP-990).
type OAuthIdP struct {
	// Issuer is the identity provider's issuer URL; its token endpoint is
	// discovered from it unless TokenEndpoint is set.
	Issuer        string
	TokenEndpoint string
	// ClientID (and ClientSecret, for a confidential client) identify
	// mcpdeck at the identity provider.
	ClientID     string
	ClientSecret string
	// IDToken is the user's OpenID Connect ID token from the identity
	// provider: a secret, so write it as "${env:NAME}".
	IDToken string
}

// SigningAlgorithms are the JWS algorithms a "signingAlgorithm" may name.
var SigningAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// oauthFields are the "oauth" block's fields, with the other clients'
// spellings: Claude Code's callbackPort and VS Code's clientId are the same
// block, and Cursor's "auth" block spells CLIENT_ID and CLIENT_SECRET.
var oauthFields = map[string]string{
	"clientId": "clientId", "CLIENT_ID": "clientId",
	"clientSecret": "clientSecret", "CLIENT_SECRET": "clientSecret",
	"scopes": "scopes", "scope": "scopes",
	"redirectPort": "redirectPort", "callbackPort": "redirectPort",
	"grantType":             "grantType",
	"clientMetadataUrl":     "clientMetadataUrl",
	"authServerMetadataUrl": "authServerMetadataUrl",
	"privateKeyFile":        "privateKeyFile",
	"signingAlgorithm":      "signingAlgorithm",
	"idp":                   "idp",
	"assertionFile":         "assertionFile",
}

// oauthKnown are the canonical names of oauthFields, for warnings.
var oauthKnown = []string{"clientId", "clientSecret", "scopes", "redirectPort", "grantType", "clientMetadataUrl", "authServerMetadataUrl",
	"privateKeyFile", "signingAlgorithm", "idp", "assertionFile"}

// idpKnown are the fields of the "idp" block.
var idpKnown = []string{"issuer", "tokenEndpoint", "clientId", "clientSecret", "idToken"}

// parseOAuth reads a remote server's "oauth" block (or Cursor's "auth"),
// expanding variables in its strings. It returns nil when there is none.
func (p *parser) parseOAuth(r *rawServer) *OAuth {
	field := "oauth"
	v := r.fields["oauth"]
	if a := r.fields["auth"]; a != nil {
		if v != nil {
			p.errorf(a.StartOffset, r.name, "auth", `is Cursor's spelling of "oauth", which is also set; keep one`)
			return nil
		}
		v, field = a, "auth"
	}
	if v == nil {
		return nil
	}
	obj, ok := p.object(v, r.name, field, "an object such as {\"clientId\": \"…\"}")
	if !ok {
		return nil
	}
	o := &OAuth{GrantType: GrantAuthorizationCode}
	seen := map[string]bool{}
	for _, m := range p.members(obj, r.name, field) {
		f := field + "." + m.name
		canon, known := oauthFields[m.name]
		if !known {
			p.unknown(m.keyOff, r.name, f, m.name, oauthKnown, "known: "+strings.Join(oauthKnown, ", "))
			continue
		}
		if seen[canon] {
			p.errorf(m.keyOff, r.name, f, "sets %q a second time under another spelling; keep one", canon)
			continue
		}
		seen[canon] = true
		switch canon {
		case "clientId":
			o.ClientID = p.oauthString(r, m.value, f, false)
		case "clientSecret":
			o.ClientSecret = p.oauthString(r, m.value, f, false)
		case "clientMetadataUrl":
			o.ClientMetadataURL = p.oauthURL(r, m.value, f, true)
		case "authServerMetadataUrl":
			o.AuthServerMetadataURL = p.oauthURL(r, m.value, f, false)
		case "scopes":
			o.Scopes = p.oauthScopes(r, m.value, f)
		case "privateKeyFile":
			o.PrivateKeyFile = p.oauthString(r, m.value, f, true)
		case "signingAlgorithm":
			s, ok := p.str(m.value, r.name, f)
			if ok && !slices.Contains(SigningAlgorithms, s) {
				p.errorf(m.value.StartOffset, r.name, f, "unknown signing algorithm %q; use one of %s (or leave it out to take the key's own)", s, strings.Join(SigningAlgorithms, ", "))
				continue
			}
			o.SigningAlgorithm = s
		case "idp":
			o.IdP = p.parseIdP(r, m.value, f)
		case "assertionFile":
			o.AssertionFile = p.oauthString(r, m.value, f, true)
		case "redirectPort":
			n, ok := number(m.value)
			if !ok || n != math.Trunc(n) || n < 1 || n > 65535 {
				p.errorf(m.value.StartOffset, r.name, f, "must be a port number from 1 to 65535 (leave it out for a free port)")
				continue
			}
			o.RedirectPort = int(n)
		case "grantType":
			s, ok := p.str(m.value, r.name, f)
			switch g := GrantType(s); {
			case !ok:
			case g == GrantAuthorizationCode, g == GrantClientCredentials:
				o.GrantType = g
			default:
				p.errorf(m.value.StartOffset, r.name, f, "unknown grant type %q; use %q (log in through the browser, the default) or %q", s, GrantAuthorizationCode, GrantClientCredentials)
			}
		}
	}
	switch {
	case o.GrantType == GrantClientCredentials && (o.ClientID == "" || (o.ClientSecret == "" && o.PrivateKeyFile == "")):
		p.errorf(v.StartOffset, r.name, field, "grantType %q needs a pre-registered clientId with a clientSecret or a privateKeyFile", GrantClientCredentials)
	case (o.ClientSecret != "" || o.PrivateKeyFile != "") && o.ClientID == "":
		p.errorf(v.StartOffset, r.name, field, "a client secret or private key without clientId; add the client id it belongs to")
	case o.ClientSecret != "" && o.PrivateKeyFile != "":
		p.errorf(v.StartOffset, r.name, field, "sets both clientSecret and privateKeyFile; a client authenticates one way, keep one")
	case o.SigningAlgorithm != "" && o.PrivateKeyFile == "":
		p.errorf(v.StartOffset, r.name, field, "signingAlgorithm without privateKeyFile; add the key it signs with")
	case o.IdP != nil && o.GrantType == GrantClientCredentials:
		p.errorf(v.StartOffset, r.name, field, "sets both \"idp\" (enterprise-managed authorization) and grantType %q; keep one", GrantClientCredentials)
	case o.AssertionFile != "" && (o.IdP != nil || o.GrantType == GrantClientCredentials):
		p.errorf(v.StartOffset, r.name, field, "sets \"assertionFile\" (workload identity) with another grant (\"idp\" or grantType %q); keep one", GrantClientCredentials)
	case o.IdP != nil && o.ClientID == "":
		p.errorf(v.StartOffset, r.name, field, "\"idp\" needs clientId (and clientSecret or privateKeyFile): the client the server's authorization server knows")
	}
	return o
}

// parseIdP reads the "idp" block of enterprise-managed authorization.
func (p *parser) parseIdP(r *rawServer, v *hujson.Value, field string) *OAuthIdP {
	obj, ok := p.object(v, r.name, field, "an object such as {\"issuer\": \"https://idp.example.com\", \"clientId\": \"…\", \"idToken\": \"${env:IDP_ID_TOKEN}\"}")
	if !ok {
		return nil
	}
	idp := &OAuthIdP{}
	for _, m := range p.members(obj, r.name, field) {
		f := field + "." + m.name
		switch m.name {
		case "issuer":
			idp.Issuer = p.oauthURL(r, m.value, f, false)
		case "tokenEndpoint":
			idp.TokenEndpoint = p.oauthURL(r, m.value, f, false)
		case "clientId":
			idp.ClientID = p.oauthString(r, m.value, f, false)
		case "clientSecret":
			idp.ClientSecret = p.oauthString(r, m.value, f, false)
		case "idToken":
			idp.IDToken = p.oauthString(r, m.value, f, false)
		default:
			p.unknown(m.keyOff, r.name, f, m.name, idpKnown, "known: "+strings.Join(idpKnown, ", "))
		}
	}
	switch {
	case idp.Issuer == "" && idp.TokenEndpoint == "":
		p.errorf(v.StartOffset, r.name, field, "needs \"issuer\" (or \"tokenEndpoint\"): where the ID token is exchanged")
	case idp.ClientID == "":
		p.errorf(v.StartOffset, r.name, field, "needs \"clientId\": mcpdeck's client id at the identity provider")
	case idp.IDToken == "":
		p.errorf(v.StartOffset, r.name, field, "needs \"idToken\": the ID token to exchange, written as \"${env:NAME}\"")
	}
	return idp
}

// oauthString reads a string with its variables expanded; path is for a
// file name, whose leading ~ is expanded too.
func (p *parser) oauthString(r *rawServer, v *hujson.Value, field string, path bool) string {
	s, ok := p.str(v, r.name, field)
	if !ok {
		return ""
	}
	return p.expandField(r, v.StartOffset, field, s, path)
}

// oauthURL reads a string that must be a URL (checkOAuthURL), variables
// expanded.
func (p *parser) oauthURL(r *rawServer, v *hujson.Value, field string, needPath bool) string {
	s := p.oauthString(r, v, field, false)
	p.checkOAuthURL(r, v, field, s, needPath)
	return s
}

// oauthScopes reads scopes as Claude Code writes them (one space-separated
// string) or as Cursor does (an array of strings).
func (p *parser) oauthScopes(r *rawServer, v *hujson.Value, field string) []string {
	if lit, ok := v.Value.(hujson.Literal); ok && lit.Kind() == '"' {
		return strings.Fields(p.expandField(r, v.StartOffset, field, lit.String(), false))
	}
	list, offs, ok := p.stringList(v, r.name, field)
	if !ok {
		return nil
	}
	var out []string
	for i, s := range list {
		out = append(out, strings.Fields(p.expandField(r, offs[i], field, s, false))...)
	}
	return slices.Compact(out)
}

// checkOAuthURL requires https (http only on a loopback host, for local
// development); a Client ID Metadata Document URL also needs a path, as the
// specification says.
func (p *parser) checkOAuthURL(r *rawServer, v *hujson.Value, field, raw string, needPath bool) {
	if raw == "" || strings.Contains(raw, "${") {
		return
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "":
		p.errorf(v.StartOffset, r.name, field, "%q is not an absolute URL", raw)
	case u.Scheme != "https" && !(u.Scheme == "http" && isLoopbackHost(u.Hostname())):
		p.errorf(v.StartOffset, r.name, field, "%q must be an https:// URL", raw)
	case needPath && strings.Trim(u.Path, "/") == "":
		p.errorf(v.StartOffset, r.name, field, "%q needs a path (for example https://example.com/mcpdeck.json): a client id document is never at the root", raw)
	}
}

func isLoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// equalOAuth compares two blocks for Server.Equal.
func equalOAuth(a, b *OAuth) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.ClientID == b.ClientID && a.ClientSecret == b.ClientSecret &&
		slices.Equal(a.Scopes, b.Scopes) && a.RedirectPort == b.RedirectPort &&
		a.GrantType == b.GrantType && a.ClientMetadataURL == b.ClientMetadataURL &&
		a.AuthServerMetadataURL == b.AuthServerMetadataURL &&
		a.PrivateKeyFile == b.PrivateKeyFile && a.SigningAlgorithm == b.SigningAlgorithm && a.AssertionFile == b.AssertionFile &&
		(a.IdP == nil) == (b.IdP == nil) && (a.IdP == nil || *a.IdP == *b.IdP)
}

// secrets are the block's secret values: the client secret, and the
// identity provider's client secret and ID token.
func (o *OAuth) secrets() []string {
	if o == nil {
		return nil
	}
	out := []string{o.ClientSecret}
	if o.IdP != nil {
		out = append(out, o.IdP.ClientSecret, o.IdP.IDToken)
	}
	return out
}

// redacted is a copy of the block with its secrets replaced, for display.
func (o *OAuth) redacted() *OAuth {
	if o == nil {
		return nil
	}
	r := *o
	hide := func(s *string) {
		if *s != "" {
			*s = RedactedValue
		}
	}
	hide(&r.ClientSecret)
	if o.IdP != nil {
		idp := *o.IdP
		hide(&idp.ClientSecret)
		hide(&idp.IDToken)
		r.IdP = &idp
	}
	return &r
}
