package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"mcpdeck/internal/cause"
)

// Metadata is what discovery learned about one protected server.
type Metadata struct {
	// Resource is the server's canonical URI, the value of the resource
	// parameter (RFC 8707) on authorization and token requests.
	Resource string `json:"resource"`
	// MetadataURL is where the protected resource metadata came from, and
	// FromHeader says whether the 401's resource_metadata named it.
	MetadataURL string `json:"metadataUrl,omitempty"`
	FromHeader  bool   `json:"fromHeader"`
	// ResourceScopes are the metadata's scopes_supported.
	ResourceScopes []string `json:"resourceScopes,omitempty"`
	// AuthorizationServers lists the metadata's authorization_servers;
	// Issuer is the one chosen (the first).
	AuthorizationServers []string `json:"authorizationServers,omitempty"`
	Issuer               string   `json:"issuer"`
	// AuthServer is the chosen server's RFC 8414 / OpenID metadata.
	AuthServer *oauthex.AuthServerMeta `json:"-"`
	// Legacy is set when the server published no protected resource
	// metadata and its origin was taken as the authorization server, as
	// the 2025-03-26 revision allowed.
	Legacy bool `json:"legacy,omitempty"`
	// Guessed is set when the origin publishes no authorization server
	// metadata either, and the 2025-03-26 revision's default endpoints
	// (/authorize, /token, /register at the origin) stand in for it.
	Guessed bool `json:"guessed,omitempty"`
	// Missing says, for a Legacy discovery, what each protected resource
	// metadata URL answered ("GET URL: HTTP 500 …; GET URL: …"), for an
	// error that must say why the guess was made.
	Missing string `json:"-"`
}

// maxMetadata bounds a metadata document.
const maxMetadata = 1 << 20

// Discover finds the authorization server of the MCP server at serverURL.
// Protected resource metadata (RFC 9728) comes from the challenge's
// resource_metadata URL, else the path-aware well-known URL, else the root
// one, in the specification's order. Authorization server metadata comes
// from asMetadataURL when set, else go-sdk's discovery, which tries RFC 8414
// and then OpenID Connect Discovery URLs in the specification's order.
//
// headers are the server's configured headers (mcp.json "headers"): they
// go with each protected resource metadata request to the server's own
// origin, as with every request to the server (an API gateway in front of
// it refuses any request without its key), and never to another origin,
// a redirect's included, nor to the authorization server.
func Discover(ctx context.Context, client *http.Client, serverURL string, headers map[string]string, ch *Challenge, asMetadataURL string) (*Metadata, error) {
	if client == nil {
		client = http.DefaultClient
	}
	su, err := url.Parse(serverURL)
	if err != nil || su.Host == "" {
		return nil, fmt.Errorf("discovering authorization for %s: %w: not an absolute URL", safeURL(serverURL), ErrDiscovery)
	}
	md := &Metadata{}
	var failed []string
	for i, cand := range resourceMetadataURLs(ch, su) {
		prm, err := fetchResourceMetadata(ctx, client, cand, su, headers)
		if err != nil {
			failed = append(failed, err.Error())
			continue
		}
		md.Resource, md.MetadataURL = prm.Resource, cand
		md.FromHeader = i == 0 && ch != nil && ch.ResourceMetadata != ""
		md.ResourceScopes, md.AuthorizationServers = prm.ScopesSupported, prm.AuthorizationServers
		break
	}
	if md.MetadataURL == "" {
		return legacyDiscover(ctx, client, su, serverURL, "no protected resource metadata ("+strings.Join(failed, "; ")+")")
	}
	if len(md.AuthorizationServers) == 0 {
		return nil, fmt.Errorf("discovering authorization for %s: %w: the protected resource metadata at %s names no authorization server", safeURL(serverURL), ErrDiscovery, md.MetadataURL)
	}
	md.Issuer = md.AuthorizationServers[0]
	var asm *oauthex.AuthServerMeta
	if asMetadataURL != "" {
		asm, err = oauthex.GetAuthServerMeta(ctx, asMetadataURL, md.Issuer, client)
	} else {
		asm, err = sdkauth.GetAuthServerMetadata(ctx, md.Issuer, client)
	}
	if err != nil {
		return nil, fmt.Errorf("discovering authorization server %s for %s: %w: %v", md.Issuer, safeURL(serverURL), ErrDiscovery, err)
	}
	if asm == nil {
		return nil, fmt.Errorf("discovering authorization server %s for %s: %w: it publishes no OAuth or OpenID metadata at its well-known URLs", md.Issuer, safeURL(serverURL), ErrDiscovery)
	}
	md.AuthServer = asm
	return md, checkPKCE(md, serverURL)
}

// legacyDiscover is the 2025-03-26 revision's discovery, for a server that
// publishes no protected resource metadata: the server's origin is the
// authorization server; its metadata is at the origin's RFC 8414
// well-known URL (the issuer it names is not checked against the origin,
// which was only ever a guess: servers of that revision put their issuer
// under a path), and without metadata the default endpoints /authorize,
// /token and /register at the origin are used. PKCE is assumed where the
// metadata is missing: that revision required it of every server.
func legacyDiscover(ctx context.Context, client *http.Client, su *url.URL, serverURL, noPRM string) (*Metadata, error) {
	origin := (&url.URL{Scheme: su.Scheme, Host: su.Host}).String()
	md := &Metadata{Resource: canonical(su), Legacy: true, Missing: noPRM}
	raw := origin + "/.well-known/oauth-authorization-server"
	asm, err := fetchLegacyMetadata(ctx, client, raw)
	switch {
	case err != nil:
		return nil, fmt.Errorf("discovering authorization for %s: %w: %s, and the authorization server metadata at %s is unusable: %v", safeURL(serverURL), ErrDiscovery, noPRM, raw, err)
	case asm == nil:
		md.Guessed = true
		asm = &oauthex.AuthServerMeta{
			Issuer: origin, AuthorizationEndpoint: origin + "/authorize", TokenEndpoint: origin + "/token",
			RegistrationEndpoint: origin + "/register", CodeChallengeMethodsSupported: []string{"S256"},
			TokenEndpointAuthMethodsSupported: []string{"client_secret_post", "client_secret_basic", "none"},
		}
	}
	md.Issuer, md.AuthServer, md.AuthorizationServers = asm.Issuer, asm, []string{asm.Issuer}
	return md, checkPKCE(md, serverURL)
}

// fetchLegacyMetadata GETs authorization server metadata at raw: nil, nil
// when there is none (an error status or a document that is not JSON
// metadata), an error when what is there is unsafe to use.
func fetchLegacyMetadata(ctx context.Context, client *http.Client, raw string) (*oauthex.AuthServerMeta, error) {
	resp, err := getMetadata(ctx, client, raw)
	if err != nil {
		return nil, err
	}
	defer discard(resp)
	if resp.StatusCode != http.StatusOK {
		return nil, nil
	}
	var asm oauthex.AuthServerMeta
	if json.NewDecoder(io.LimitReader(resp.Body, maxMetadata)).Decode(&asm) != nil || asm.AuthorizationEndpoint == "" || asm.TokenEndpoint == "" {
		return nil, nil
	}
	for _, u := range []string{asm.AuthorizationEndpoint, asm.TokenEndpoint, asm.RegistrationEndpoint} {
		if u == "" {
			continue
		}
		if err := httpsOrLoopback(u); err != nil {
			return nil, err
		}
	}
	if asm.Issuer == "" {
		asm.Issuer = originOf(resp.Request.URL)
	}
	return &asm, nil
}

// checkPKCE refuses an authorization server without S256 PKCE, as the
// specification's security considerations require.
func checkPKCE(md *Metadata, serverURL string) error {
	if !slices.Contains(md.AuthServer.CodeChallengeMethodsSupported, "S256") {
		return fmt.Errorf("authorization server %s for %s: %w: it does not advertise PKCE with S256 (code_challenge_methods_supported), so logging in would not be safe", md.Issuer, safeURL(serverURL), ErrDiscovery)
	}
	return nil
}

// resourceMetadataURLs lists where to look for protected resource metadata,
// in the specification's order.
func resourceMetadataURLs(ch *Challenge, su *url.URL) []string {
	var out []string
	if ch != nil && ch.ResourceMetadata != "" {
		out = append(out, ch.ResourceMetadata)
	}
	base := url.URL{Scheme: su.Scheme, Host: su.Host}
	if p := strings.Trim(su.Path, "/"); p != "" {
		base.Path = "/.well-known/oauth-protected-resource/" + p
		out = append(out, base.String())
	}
	base.Path = "/.well-known/oauth-protected-resource"
	if root := base.String(); !slices.Contains(out, root) {
		out = append(out, root) // not twice when the challenge named it
	}
	return out
}

// fetchResourceMetadata GETs one protected resource metadata document and
// checks it describes the server at su. The check is the TypeScript SDK's
// rather than go-sdk's exact match: the metadata's resource must have the
// server's origin and a path that is a prefix of the server's, because
// servers commonly publish their origin as the resource.
func fetchResourceMetadata(ctx context.Context, client *http.Client, raw string, su *url.URL, headers map[string]string) (*oauthex.ProtectedResourceMetadata, error) {
	if err := httpsOrLoopback(raw); err != nil {
		return nil, err
	}
	resp, err := getMetadata(ctx, withHeaders(client, su, headers), raw)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, fmt.Errorf("GET %s: HTTP %s", raw, resp.Status)
	}
	var prm oauthex.ProtectedResourceMetadata
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxMetadata)).Decode(&prm); err != nil {
		return nil, fmt.Errorf("GET %s: not a metadata document: %v", raw, err)
	}
	ru, err := url.Parse(prm.Resource)
	if err != nil || prm.Resource == "" || !strings.EqualFold(ru.Scheme, su.Scheme) || !strings.EqualFold(ru.Host, su.Host) ||
		!pathPrefix(ru.Path, su.Path) {
		return nil, fmt.Errorf("GET %s: the metadata is for resource %q, not for %s", raw, prm.Resource, safeURL(su.String()))
	}
	for _, as := range prm.AuthorizationServers {
		if err := httpsOrLoopback(as); err != nil {
			return nil, fmt.Errorf("GET %s: authorization server: %v", raw, err)
		}
	}
	return &prm, nil
}

// getMetadata GETs a metadata document.
func getMetadata(ctx context.Context, client *http.Client, raw string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %v", raw, cause.Of(err))
	}
	return resp, nil
}

// withHeaders is client sending headers with each request to origin,
// and none to another origin a redirect leads to (net/http strips only
// Authorization and cookies there). Redirects are otherwise client's.
func withHeaders(client *http.Client, origin *url.URL, headers map[string]string) *http.Client {
	if len(headers) == 0 {
		return client
	}
	c := *client
	c.Transport = headerTransport{base: client.Transport, origin: origin, headers: headers}
	return &c
}

// headerTransport sets the configured headers on a request to origin,
// and removes them from any other.
type headerTransport struct {
	base    http.RoundTripper
	origin  *url.URL
	headers map[string]string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	base := h.base
	if base == nil {
		base = http.DefaultTransport
	}
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		if sameOrigin(r.URL, h.origin) {
			r.Header.Set(k, v)
		} else {
			r.Header.Del(k)
		}
	}
	return base.RoundTrip(r)
}

// sameOrigin reports whether a and b have the same scheme and host.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host)
}

// pathPrefix reports whether path p is a segment-wise prefix of full.
func pathPrefix(p, full string) bool {
	p, full = strings.TrimSuffix(p, "/"), strings.TrimSuffix(full, "/")
	return p == "" || full == p || strings.HasPrefix(full, p+"/")
}

// canonical is the canonical URI of a server URL: no fragment, no query,
// lowercase scheme and host, no trailing slash (RFC 8707, as the
// specification recommends).
func canonical(u *url.URL) string {
	c := url.URL{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Host), Path: strings.TrimSuffix(u.Path, "/")}
	return c.String()
}

// httpsOrLoopback refuses metadata and endpoints over plain HTTP except on
// loopback, where local development servers live.
func httpsOrLoopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not an absolute URL", raw)
	}
	if u.Scheme == "https" || (u.Scheme == "http" && isLoopback(u.Hostname())) {
		return nil
	}
	return fmt.Errorf("%s is neither https nor loopback http", safeURL(raw))
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// safeURL renders a URL for messages without its query and user info,
// which may carry credentials.
func safeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "<unparsable url>"
	}
	c := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	return c.String()
}
