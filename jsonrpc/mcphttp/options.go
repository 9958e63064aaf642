package mcphttp

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"mcpdeck/internal/cause"
	"mcpdeck/jsonrpc"
)

// Options configure Dial.
type Options struct {
	// URL is the server's endpoint: the Streamable HTTP endpoint, or with
	// Legacy the SSE URL.
	URL string
	// Headers are sent on every request (POST, GET, DELETE). They usually
	// hold credentials: their values never appear in errors.
	Headers map[string]string
	// HeadersAdvice says where the server's headers are set, for the
	// advice of a 401 or 403 when none were sent ("add the credentials it
	// expects " + HeadersAdvice); "" means under "headers" in its entry.
	HeadersAdvice string
	// Client sends the requests. Nil means a client over a clone of
	// net/http's default transport, so proxies from the environment
	// (HTTP_PROXY, HTTPS_PROXY, NO_PROXY) apply. The client should have no
	// overall Timeout: a tools/call may stream for minutes.
	Client *http.Client
	// Transport, when set and Client is nil, carries every exchange (it
	// becomes the Transport of the client Dial builds): the caller's way to
	// add per-request behaviour such as MCP authorization (the
	// runtime/auth Transport) without giving up the stream's own client.
	// An error it returns that wraps ErrUnauthorized (runtime/auth's
	// NeedsLoginError does) ends the stream with that error, its chain
	// intact, so errors.Is and errors.As on what Read and every outstanding
	// call return find it.
	Transport http.RoundTripper
	// MaxMessageSize bounds one message (a JSON body or an SSE event); 0
	// means jsonrpc.DefaultMaxMessageSize.
	MaxMessageSize int
	// Legacy selects the HTTP+SSE transport of protocol 2024-11-05
	// (configuration type "sse").
	Legacy bool
	// AutoFallback is for a url whose type was not configured: when POST
	// initialize is answered 400, 404 or 405 the stream retries with the
	// legacy transport, as the specification's backwards-compatibility
	// section says.
	AutoFallback bool
	// OnFallback, if set, is told why the fallback happened; the runtime
	// shows it in the server's overview. It runs on the stream's goroutine
	// and must return quickly.
	OnFallback func(reason string)
	// Modern selects the Streamable HTTP of protocol 2026-07-28 (see
	// modern.go); nil is the legacy Streamable HTTP of 2025-03-26 to
	// 2025-11-25. The caller decides the era first, with Probe.
	Modern *ModernOptions
	// AckTimeout bounds how long a notification or a response POST waits
	// for the server's acknowledgement (the Write blocks meanwhile); 0
	// means 30 seconds. Requests have no such bound: their callers time
	// them out.
	AckTimeout time.Duration
}

// Defaults the zero Options values stand for.
const (
	defaultAckTimeout = 30 * time.Second
	// standaloneWait bounds how long the Write of notifications/initialized
	// waits for the standalone GET stream to be established, so that a
	// server slow to answer GET does not stall the client for long.
	standaloneWait = 5 * time.Second
	// deleteTimeout bounds the DELETE that ends the session on Close.
	deleteTimeout = 2 * time.Second
	// endpointTimeout bounds the wait for the legacy endpoint event during
	// an automatic fallback (Dial's context bounds it otherwise).
	endpointTimeout = 30 * time.Second
)

// String renders the options for logs and debugging with every header
// value redacted, so that printing Options never leaks a credential.
func (o Options) String() string {
	var b strings.Builder
	u := o.URL
	if pu, err := url.Parse(o.URL); err == nil {
		u = safeURL(pu)
	}
	fmt.Fprintf(&b, "url=%s", u)
	if o.Legacy {
		b.WriteString(" transport=sse")
	} else {
		b.WriteString(" transport=streamable-http")
	}
	if len(o.Headers) > 0 {
		keys := make([]string, 0, len(o.Headers))
		for k := range o.Headers {
			keys = append(keys, http.CanonicalHeaderKey(k)+": [redacted]")
		}
		sort.Strings(keys)
		fmt.Fprintf(&b, " headers={%s}", strings.Join(keys, ", "))
	}
	return b.String()
}

// withDefaults validates o and fills in defaults.
func (o Options) withDefaults() (Options, *url.URL, error) {
	if o.URL == "" {
		return o, nil, fmt.Errorf("%w: no url given; set the server's \"url\"", ErrBadOptions)
	}
	u, err := url.Parse(o.URL)
	if err != nil {
		return o, nil, fmt.Errorf("%w: parsing the url: %v", ErrBadOptions, cause.Of(err))
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return o, nil, fmt.Errorf("%w: %s is not an absolute http:// or https:// url", ErrBadOptions, safeURL(u))
	}
	if o.Client == nil && o.Transport != nil {
		o.Client = &http.Client{Transport: o.Transport}
	}
	if o.Modern != nil && (o.Legacy || o.AutoFallback) {
		return o, nil, fmt.Errorf("%w: the 2026-07-28 transport has no HTTP+SSE fallback; probe first and choose one", ErrBadOptions)
	}
	if o.MaxMessageSize <= 0 {
		o.MaxMessageSize = jsonrpc.DefaultMaxMessageSize
	}
	if o.AckTimeout <= 0 {
		o.AckTimeout = defaultAckTimeout
	}
	return o, u, nil
}
