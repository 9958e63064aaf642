// Package fleet reads every host's MCP servers out of Prometheus: the
// metrics each `mcpdeck monitor --metrics` exports (runtime/telemetry),
// scraped by a Prometheus (or anything that speaks its HTTP query API:
// Thanos, Mimir, VictoriaMetrics), queried with PromQL and put together
// as one read-only View per refresh, grouped by a host label. It owns the
// queries and their reading; the fleet command and the TUI show a View.
//
// It only reads. Nothing here talks to an MCP server or to a monitor.
package fleet

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Defaults of Options.
const (
	DefaultHostLabel = "instance"
	DefaultWindow    = 2 * time.Minute
	DefaultHistory   = 30 * time.Minute
	DefaultPoints    = 30
	DefaultLookback  = 10 * time.Minute
	DefaultTimeout   = 15 * time.Second
)

// Options say which Prometheus to ask and how to read it.
type Options struct {
	// URL is the Prometheus HTTP API's base (http://prometheus:9090, or a
	// Thanos Query, Mimir's /prometheus prefix, VictoriaMetrics' root).
	URL string
	// HostLabel groups series by host: "instance" (default), or a label
	// the scrape configuration sets ("host", "node").
	HostLabel string
	// Selector narrows every query: label matchers as inside braces,
	// `job="mcpdeck", env="prod"`. Empty: every series of mcpdeck's metrics.
	Selector string
	// Window is the rate window for the ping latency (default 2m): at
	// least a few of the monitors' health checks and of Prometheus's
	// scrapes must fall inside it.
	Window time.Duration
	// History is how far back the latency sparkline goes (default 30m),
	// in Points steps (default 30).
	History time.Duration
	Points  int
	// Lookback is how long a server that stopped reporting (its host
	// down, its monitor stopped, the server removed) is still listed, as
	// "unknown" (default 10m).
	Lookback time.Duration
	// Timeout bounds one refresh (default 15s).
	Timeout time.Duration
	// Header is sent with every request (Authorization, X-Scope-OrgID for
	// Mimir's tenants).
	Header http.Header
	// Transport carries the requests; nil means http.DefaultTransport.
	Transport http.RoundTripper
}

// Sentinel errors.
var (
	// ErrUnreachable: Prometheus could not be reached at all.
	ErrUnreachable = errors.New("prometheus is unreachable")
	// ErrRejected: Prometheus answered, with an error.
	ErrRejected = errors.New("prometheus rejected the query")
	// ErrBadQuery: Prometheus could not parse or run a query: the selector
	// or the host label is wrong. It is also an ErrRejected.
	ErrBadQuery = errors.New("bad query")
	// ErrRedirected: Prometheus answered with a redirect to another origin
	// (or too many), which is not followed: the configured headers would go
	// there. Give the final URL.
	ErrRedirected = errors.New("redirect not followed")
	// ErrBadOptions: the options cannot work.
	ErrBadOptions = errors.New("invalid fleet options")
)

// Fleet queries one Prometheus. Safe for concurrent use.
type Fleet struct {
	api  *promAPI
	opts Options
	q    queries
}

var labelName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`) })

// New checks opts and builds the client; it sends nothing.
func New(opts Options) (*Fleet, error) {
	u, err := url.Parse(opts.URL)
	switch {
	case opts.URL == "":
		return nil, fmt.Errorf("%w: no Prometheus URL: pass --prometheus http://HOST:9090", ErrBadOptions)
	case !strings.Contains(opts.URL, "://"):
		// "127.0.0.1:9090" or "prometheus:9090", as a scrape target is
		// written: Go reads it as no URL, or as a URL of scheme
		// "prometheus", and says so in words that do not help.
		return nil, fmt.Errorf("%w: Prometheus URL %q has no scheme: pass --prometheus http://%s", ErrBadOptions, opts.URL, opts.URL)
	case err != nil:
		return nil, fmt.Errorf("%w: Prometheus URL %q: %v", ErrBadOptions, opts.URL, err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return nil, fmt.Errorf("%w: Prometheus URL %q must be http:// or https:// with a host, like http://127.0.0.1:9090", ErrBadOptions, opts.URL)
	}
	if opts.HostLabel == "" {
		opts.HostLabel = DefaultHostLabel
	}
	if !labelName().MatchString(opts.HostLabel) {
		return nil, fmt.Errorf("%w: host label %q is not a Prometheus label name (letters, digits and _, not starting with a digit)", ErrBadOptions, opts.HostLabel)
	}
	sel := strings.TrimSpace(opts.Selector)
	sel = strings.TrimSuffix(strings.TrimPrefix(sel, "{"), "}")
	opts.Selector = strings.TrimSpace(sel)
	opts.Window = positive(opts.Window, DefaultWindow)
	opts.History = positive(opts.History, DefaultHistory)
	opts.Lookback = positive(opts.Lookback, DefaultLookback)
	opts.Timeout = positive(opts.Timeout, DefaultTimeout)
	if opts.Points <= 0 {
		opts.Points = DefaultPoints
	}
	if opts.Points > 11000 {
		return nil, fmt.Errorf("%w: %d sparkline points: Prometheus answers at most 11000 per series", ErrBadOptions, opts.Points)
	}
	rt := opts.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	if len(opts.Header) > 0 {
		rt = headerTransport{h: opts.Header, next: rt}
	}
	c, err := newPromAPI(strings.TrimSuffix(opts.URL, "/"), rt)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadOptions, err)
	}
	return &Fleet{api: c, opts: opts, q: newQueries(opts)}, nil
}

func positive(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Options returns the options in force, defaults filled in.
func (f *Fleet) Options() Options { return f.opts }

// Queries lists the PromQL the fleet sends, by what each reads, for
// documentation and for people who want the same panel elsewhere.
func (f *Fleet) Queries() map[string]string { return f.q.byName() }

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	h    http.Header
	next http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range t.h {
		r.Header[k] = vs
	}
	return t.next.RoundTrip(r)
}

// explain turns a client error into what happened, where and what to do.
func (f *Fleet) explain(what, query string, err error) error {
	var perr *promError
	if errors.As(err, &perr) {
		switch {
		case strings.Contains(perr.Msg, "401") || strings.Contains(perr.Msg, "403"):
			return fmt.Errorf("%w: %s at %s: %s: send credentials with --header 'Authorization: Bearer TOKEN' (or the tenant header your store needs)", ErrRejected, what, f.opts.URL, perr.Msg)
		case perr.Type == promErrBadData:
			return fmt.Errorf("%w (%w): %s: Prometheus at %s says: %s (query %s); check --selector and --host-label", ErrRejected, ErrBadQuery, what, f.opts.URL, perr.Msg, query)
		}
		detail := perr.Msg
		if d := strings.TrimSpace(perr.Detail); d != "" && len(d) < 300 {
			detail += ": " + d
		}
		return fmt.Errorf("%w: %s at %s: %s; is %s the Prometheus HTTP API's base URL (it serves /api/v1/query)?", ErrRejected, what, f.opts.URL, detail, f.opts.URL)
	}
	var uerr *url.Error
	if errors.Is(err, ErrRedirected) && errors.As(err, &uerr) {
		// It answered: "is Prometheus running there?" would be wrong advice.
		return fmt.Errorf("%s at %s: %w", what, f.opts.URL, uerr.Err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %s at %s: no answer within %s", ErrUnreachable, what, f.opts.URL, f.opts.Timeout)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("%w: %s at %s: %v; is Prometheus running there?", ErrUnreachable, what, f.opts.URL, err)
}
