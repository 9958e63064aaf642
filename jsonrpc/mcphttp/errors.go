package mcphttp

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"syscall"

	"mcpdeck/config"
	"mcpdeck/internal/cause"
	"mcpdeck/internal/clip"
	"mcpdeck/jsonrpc"
)

// Sentinel errors. The errors this package returns wrap one of them (match
// with errors.Is) and say in their text what happened, where, and what to do.
var (
	// ErrSessionExpired: the server no longer knows our session (404, or 400
	// "no valid session"), or the legacy SSE stream that held it closed. The
	// runtime treats it as a reconnectable failure and initializes again.
	ErrSessionExpired = errors.New("mcp session expired")
	// ErrUnauthorized: the server answered 401 or 403; credentials are
	// missing or were rejected.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrUnreachable: no HTTP exchange was possible (connection refused, DNS
	// failure, timeout) before a session existed, or the standalone stream
	// could not be re-established.
	ErrUnreachable = errors.New("server unreachable")
	// ErrTLS: the TLS handshake failed (untrusted certificate, wrong host
	// name, plain HTTP on an https URL).
	ErrTLS = errors.New("tls handshake failed")
	// ErrHTTPStatus: the server answered with an unexpected HTTP status.
	ErrHTTPStatus = errors.New("unexpected http status")
	// ErrBadResponse: the server's answer could not be understood (wrong
	// content type, malformed SSE, no endpoint event).
	ErrBadResponse = errors.New("bad response")
	// ErrClosed: the stream was closed by its owner.
	ErrClosed = errors.New("http stream closed")
	// ErrRedirected: the server redirected to another origin, or in a way
	// that would lose the request (see CheckRedirect). It ends the stream:
	// every request would be redirected the same way.
	ErrRedirected = errors.New("redirect not followed")
	// ErrBadOptions: Options are unusable (no URL, a relative URL, a
	// non-HTTP scheme).
	ErrBadOptions = errors.New("invalid http transport options")
)

// CodeTransportError is the JSON-RPC error code of the error responses the
// stream synthesizes for a request that failed in transit (5xx, network
// error, oversized answer, an answer stream that ended early). It is in the
// implementation-defined range; the TypeScript SDK uses the same code for a
// closed connection.
const CodeTransportError = -32000

// transportMarker is the data of the error responses the stream
// synthesizes for a request that failed in transit, so that IsTransport
// tells them from a server's own -32000 (a code servers commonly use for
// their own failures, over stdio as well).
const transportMarker = `{"mcpdeck":"transport"}`

// tooLargeMarker is the data of the error response the stream synthesizes
// for a request whose answer was over the size limit (IsTooLarge).
const tooLargeMarker = `{"mcpdeck":"too-large"}`

// IsTransport reports whether err is an error response the stream
// synthesized: a request that failed in transit (IsTooLarge among them),
// or was lost (IsLost).
func IsTransport(err error) bool {
	var e *jsonrpc.Error
	return errors.As(err, &e) && e.Code == CodeTransportError &&
		(string(e.Data) == transportMarker || string(e.Data) == lostMarker || string(e.Data) == tooLargeMarker)
}

// IsTooLarge reports whether err is the error response the stream
// synthesized for a request whose answer was over the size limit: it no
// longer wraps jsonrpc.ErrMessageTooLarge, being a JSON-RPC error.
func IsTooLarge(err error) bool {
	var e *jsonrpc.Error
	return errors.As(err, &e) && e.Code == CodeTransportError && string(e.Data) == tooLargeMarker
}

// excerptLimit bounds how much of a server's error body is quoted.
const excerptLimit = 200

// safeURL renders u for messages: scheme, host and path only, because user
// info and query strings carry secrets (tokens, the legacy session id).
func safeURL(u *url.URL) string {
	if u == nil {
		return "<no url>"
	}
	c := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	return c.String()
}

// HeaderNames lists the configured header names, canonical and sorted,
// for messages that must say which credentials were sent without showing
// them ("" for none). The checker's authorization item words them too.
func HeaderNames(h map[string]string) string {
	if len(h) == 0 {
		return ""
	}
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, http.CanonicalHeaderKey(k))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// redactor blanks configured header values out of text that came from the
// server, in case it echoes them back (some error pages print the request).
type redactor []string

// newRedactor takes its patterns where the configuration's scrubber does
// (config.HeaderSecrets): a scheme word alone ("Bearer " with an empty
// token) is no secret, and scrubbing it would blank every challenge.
func newRedactor(h map[string]string) redactor {
	var r redactor
	for _, v := range h {
		r = append(r, config.HeaderSecrets(v)...)
	}
	return r
}

func (r redactor) apply(s string) string {
	for _, v := range r {
		s = strings.ReplaceAll(s, v, "[redacted]")
	}
	return s
}

// excerpt makes a short single-line quote of a response body.
func (r redactor) excerpt(body []byte) string {
	s := strings.ToValidUTF8(string(body), "?")
	s = strings.Join(strings.Fields(s), " ")
	return r.apply(clip.Text(s, excerptLimit))
}

// describeNetError turns a transport-level failure of one exchange into an
// error a person can act on. what names the exchange ("POST initialize").
func describeNetError(what string, u *url.URL, err error) error {
	where := safeURL(u)
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recErr tls.RecordHeaderError
	var dnsErr *net.DNSError
	var netErr net.Error
	switch {
	case errors.Is(err, ErrUnauthorized), errors.Is(err, ErrRedirected):
		// The caller's Transport refused to send it (no usable token), or
		// the redirect policy stopped it: keep its error whole, it says
		// what to do.
		return fmt.Errorf("%s %s: %w", what, where, cause.Of(err))
	case errors.As(err, &certErr), errors.As(err, &unknownCA), errors.As(err, &hostErr):
		return fmt.Errorf("%s %s: %w: %v; the server's certificate is not trusted for this host: fix the certificate or add its CA to the system trust store", what, where, ErrTLS, cause.Of(err))
	case errors.As(err, &recErr), strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		// net/http reports the second case with a bare string error.
		return fmt.Errorf("%s %s: %w: the server does not speak TLS on this port; use an http:// url if it serves plain HTTP", what, where, ErrTLS)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("%s %s: %w: connection refused; check that the server is running and listening on %s", what, where, ErrUnreachable, u.Host)
	case errors.As(err, &dnsErr):
		return fmt.Errorf("%s %s: %w: cannot resolve host %q; check the url", what, where, ErrUnreachable, dnsErr.Name)
	case errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Errorf("%s %s: %w: timed out; check the network path to %s (proxies from HTTP_PROXY/HTTPS_PROXY apply)", what, where, ErrUnreachable, u.Host)
	default:
		return fmt.Errorf("%s %s: %w: %v", what, where, ErrUnreachable, cause.Of(err))
	}
}

// statusError describes an unexpected HTTP status, quoting the body.
func (s *Stream) statusError(what string, u *url.URL, resp *http.Response, body []byte) error {
	where := safeURL(u)
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		verb := "credentials are missing or were rejected"
		if resp.StatusCode == http.StatusForbidden {
			verb = "the credentials were accepted but do not allow access"
		}
		advice := s.opts.HeadersAdvice
		if advice == "" {
			advice = "under \"headers\" in its entry (for example Authorization)"
		}
		hint := "no headers are configured for this server: add the credentials it expects " + advice
		if names := HeaderNames(s.opts.Headers); names != "" {
			hint = "the configured headers (" + names + ") were sent, values not shown: check that the token is current and meant for this server"
		}
		if wa := resp.Header.Get("WWW-Authenticate"); wa != "" {
			hint += "; the server asks for: " + s.redact.excerpt([]byte(wa))
		}
		return fmt.Errorf("%s %s: %w: HTTP %s: %s; %s", what, where, ErrUnauthorized, resp.Status, verb, hint)
	}
	detail := ""
	if ex := s.redact.excerpt(body); ex != "" {
		detail = ": " + ex
	}
	if resp.StatusCode >= 500 {
		detail += "; the server failed handling it: see the server's logs"
	}
	if resp.StatusCode == http.StatusNotFound {
		detail += s.atRoot(u)
	}
	return fmt.Errorf("%s %s: %w: HTTP %s%s", what, where, ErrHTTPStatus, resp.Status, detail)
}

// atRoot is the advice for a 404 at u: when u is the origin's root (its
// path empty or "/"), the server likely serves MCP at a path of its own,
// and the path servers use is suggested: /mcp for Streamable HTTP (the
// TypeScript and Go SDKs' examples, FastMCP), /sse for the legacy
// HTTP+SSE transport. "" for any other path, which the user chose.
func (s *Stream) atRoot(u *url.URL) string {
	if u == nil || (u.Path != "" && u.Path != "/") {
		return ""
	}
	path := "/mcp"
	if s.opts.Legacy {
		path = "/sse"
	}
	try := url.URL{Scheme: u.Scheme, Host: u.Host, Path: path}
	return fmt.Sprintf("; check the url: nothing answers MCP at the root of %s, and servers usually serve it at a path: try %s", u.Host, try.String())
}
