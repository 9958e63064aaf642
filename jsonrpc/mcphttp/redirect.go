package mcphttp

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// maxRedirects bounds a chain of same-origin redirects.
const maxRedirects = 5

// CheckRedirect is the redirect policy of every request to an MCP
// endpoint (the Streams', and the login's probe in runtime/auth). The
// configured headers usually carry credentials (Authorization,
// X-Api-Key, or any other header the user configured), and
// net/http forwards every header but Authorization, Cookie and
// WWW-Authenticate to any host, and those too to another port of the same
// host. The MCP authorization spec asks clients not to send credentials to
// any origin but the server's. So:
//
//   - a redirect to another origin (scheme, host or port) is never
//     followed: the exchange fails with ErrRedirected, naming the target's
//     origin, and the answer of that origin is never read;
//   - a same-origin redirect is followed, with the headers, up to
//     maxRedirects hops, as long as it keeps the method: a POST redirected
//     with 301, 302 or 303 would arrive as a GET without its JSON-RPC
//     message, so it fails instead with the status in the error.
//
// Either way the fix is the same: put the final URL in mcp.json.
func CheckRedirect(req *http.Request, via []*http.Request) error {
	first := via[0]
	status := 0
	if req.Response != nil {
		status = req.Response.StatusCode
	}
	switch {
	case !SameOrigin(req.URL, first.URL):
		return fmt.Errorf("%w: the server redirected (HTTP %d) to %s; mcpdeck does not forward credentials to another origin; put the final URL in mcp.json",
			ErrRedirected, status, Origin(req.URL))
	case req.Method != first.Method:
		return fmt.Errorf("%w: the server redirected %s with HTTP %d, which would resend it as %s without its message; put the final URL (%s) in mcp.json",
			ErrRedirected, first.Method, status, req.Method, safeURL(req.URL))
	case len(via) >= maxRedirects:
		return fmt.Errorf("%w: more than %d redirects; put the final URL in mcp.json", ErrRedirected, maxRedirects)
	}
	return nil
}

// Origin is scheme://host:port with the default port made explicit, so
// http://h and http://h:80 are one origin and http://h:8080 another.
func Origin(u *url.URL) string {
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(strings.ToLower(host), port)
}

// SameOrigin reports whether a and b are one origin (scheme, host and
// port, the default port made explicit): where mcpdeck may send what it
// sends to a.
func SameOrigin(a, b *url.URL) bool { return Origin(a) == Origin(b) }
