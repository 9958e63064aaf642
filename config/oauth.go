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
}

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
}

// oauthKnown are the canonical names of oauthFields, for warnings.
var oauthKnown = []string{"clientId", "clientSecret", "scopes", "redirectPort", "grantType", "clientMetadataUrl", "authServerMetadataUrl"}

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
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		p.errorf(v.StartOffset, r.name, field, "must be an object such as {\"clientId\": \"…\"}, not %s", kindName(v.Value.Kind()))
		return nil
	}
	o := &OAuth{GrantType: GrantAuthorizationCode}
	seen := map[string]bool{}
	for _, m := range p.members(obj, r.name, field) {
		f := field + "." + m.name
		canon, known := oauthFields[m.name]
		if !known {
			p.warnf(m.keyOff, r.name, f, "%s", unknownField(m.name, oauthKnown, "known: "+strings.Join(oauthKnown, ", ")))
			continue
		}
		if seen[canon] {
			p.errorf(m.keyOff, r.name, f, "sets %q a second time under another spelling; keep one", canon)
			continue
		}
		seen[canon] = true
		switch canon {
		case "clientId":
			o.ClientID = p.oauthString(r, m.value, f)
		case "clientSecret":
			o.ClientSecret = p.oauthString(r, m.value, f)
		case "clientMetadataUrl":
			o.ClientMetadataURL = p.oauthString(r, m.value, f)
			p.checkOAuthURL(r, m.value, f, o.ClientMetadataURL, true)
		case "authServerMetadataUrl":
			o.AuthServerMetadataURL = p.oauthString(r, m.value, f)
			p.checkOAuthURL(r, m.value, f, o.AuthServerMetadataURL, false)
		case "scopes":
			o.Scopes = p.oauthScopes(r, m.value, f)
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
	if o.GrantType == GrantClientCredentials && (o.ClientID == "" || o.ClientSecret == "") {
		p.errorf(v.StartOffset, r.name, field, "grantType %q needs a pre-registered clientId and clientSecret", GrantClientCredentials)
	}
	if o.ClientSecret != "" && o.ClientID == "" {
		p.errorf(v.StartOffset, r.name, field, "clientSecret without clientId; add the client id it belongs to")
	}
	return o
}

func (p *parser) oauthString(r *rawServer, v *hujson.Value, field string) string {
	s, ok := p.str(v, r.name, field)
	if !ok {
		return ""
	}
	return p.expandField(r, v.StartOffset, field, s, false)
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
		a.AuthServerMetadataURL == b.AuthServerMetadataURL
}
