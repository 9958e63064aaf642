package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/trace"
)

// Sentinel errors of the package.
var (
	// ErrConfig: the telemetry settings (flags or OTEL_* variables) cannot
	// be used.
	ErrConfig = errors.New("invalid telemetry configuration")
	// ErrMetricsOff: /metrics was asked for, but metrics are off.
	ErrMetricsOff = errors.New("metrics are off")
	// ErrNotLoopback: a metrics address outside the loopback network was
	// given without allowing it.
	ErrNotLoopback = errors.New("metrics address is not loopback")
)

// Options configure New. The zero value turns everything off unless the
// standard OTEL_* variables ask for trace export.
type Options struct {
	// Metrics builds the meters and the Prometheus registry that
	// ServeMetrics and Handler expose.
	Metrics bool
	// OTLPEndpoint (--otlp URL) enables trace export to this base URL,
	// like OTEL_EXPORTER_OTLP_ENDPOINT ("/v1/traces" is appended), and
	// overrides the variables. Without it, OTEL_EXPORTER_OTLP_ENDPOINT,
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_TRACES_EXPORTER=otlp enable
	// export. The other OTEL_EXPORTER_OTLP_[TRACES_]* variables apply as the
	// specification describes them: HEADERS, TIMEOUT, COMPRESSION (gzip),
	// CERTIFICATE, CLIENT_CERTIFICATE and CLIENT_KEY; PROTOCOL may be
	// http/json, http/protobuf (sent as http/json, with a warning) or unset (grpc
	// are refused with ErrConfig).
	OTLPEndpoint string
	// ServiceName is service.name; default "mcpdeck" (OTEL_SERVICE_NAME
	// wins, as the specification says).
	ServiceName string
	// ServiceVersion is service.version.
	ServiceVersion string
	// ResourceAttributes are added to the resource (OTEL_RESOURCE_ATTRIBUTES
	// is read too).
	ResourceAttributes map[string]string
	// Source reports every server's stats at collection time; see SetSource.
	Source func() []ServerStats
	// Gateway reports the gateway's stats; nil exports no gateway metrics.
	Gateway func() GatewayStats
	// States are every state a server can be in, for the state gauge;
	// default DefaultStates.
	States []string
	// Logger receives the SDK's own errors and export failures; nil
	// discards them. Nothing is ever written to the terminal.
	Logger *slog.Logger
}

// Telemetry is mcpdeck's metrics and traces. Every method is safe for
// concurrent use and safe on a nil *Telemetry.
type Telemetry struct {
	log *slog.Logger

	// meters is nil when metrics are off; set once by New.
	meters *meters
	// tracer and tp are nil when trace export is off; set once by New.
	tracer trace.Tracer
	tp     interface{ Shutdown(context.Context) error }
	queue  *exportQueue
	// endpoint is the OTLP traces URL in use, for logs.
	endpoint string

	// source and gateway are swapped by SetSource while scrapes read them.
	source  atomic.Pointer[func() []ServerStats]
	gateway atomic.Pointer[func() GatewayStats]

	// mu guards servers (the /metrics listeners Shutdown closes) and closed.
	mu      sync.Mutex
	servers []*MetricsServer
	closed  bool
}

// New builds telemetry from opts and the OTEL_* environment. With neither
// metrics nor trace export configured, or with OTEL_SDK_DISABLED=true, it
// returns a Telemetry that does nothing and starts nothing.
//
// When anything is on, New routes the OpenTelemetry SDK's global error
// handler and logger to opts.Logger: by default the SDK prints to stderr,
// which the TUI owns. That setting is process-wide.
func New(opts Options) (*Telemetry, error) {
	t := &Telemetry{log: opts.Logger}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	if isTrue(os.Getenv("OTEL_SDK_DISABLED")) {
		return t, nil
	}
	endpoint, traces, err := traceEndpoint(opts.OTLPEndpoint)
	if err != nil {
		return nil, err
	}
	if !opts.Metrics && !traces {
		return t, nil
	}
	t.SetSource(opts.Source)
	t.SetGatewaySource(opts.Gateway)
	routeSDKErrors(t.log)

	res, err := newResource(opts, t.log)
	if err != nil {
		return nil, err
	}
	if traces {
		if v, p := otlpProtocol(); p == "http/protobuf" {
			t.log.Warn("spans go out as OTLP/HTTP with JSON bodies (http/json), the only encoding mcpdeck's exporter has; an OpenTelemetry Collector accepts both on one port, a receiver that takes protobuf only will refuse them",
				"variable", v, "value", p, "endpoint", endpoint)
		}
		if err := t.startTraces(res, endpoint); err != nil {
			return nil, err
		}
	}
	if opts.Metrics {
		m, err := newMeters(t, res, opts.States)
		if err != nil {
			_ = t.Shutdown(context.Background())
			return nil, err
		}
		t.meters = m
	}
	return t, nil
}

// Enabled reports whether metrics or traces are on.
func (t *Telemetry) Enabled() bool { return t != nil && (t.meters != nil || t.tracer != nil) }

// MetricsEnabled reports whether metrics are collected (and /metrics can
// be served).
func (t *Telemetry) MetricsEnabled() bool { return t != nil && t.meters != nil }

// TracesEnabled reports whether spans are exported.
func (t *Telemetry) TracesEnabled() bool { return t != nil && t.tracer != nil }

// TraceEndpoint is the OTLP URL spans are sent to, "" when traces are off.
func (t *Telemetry) TraceEndpoint() string {
	if t == nil {
		return ""
	}
	return t.endpoint
}

// SetSource replaces the function that reports server stats; the runtime
// is usually built after its telemetry, so it plugs itself in here. Nil
// stops reporting servers.
func (t *Telemetry) SetSource(src func() []ServerStats) {
	if t == nil {
		return
	}
	t.source.Store(&src)
}

// SetGatewaySource replaces the function that reports gateway stats. Nil
// stops reporting gateway metrics.
func (t *Telemetry) SetGatewaySource(src func() GatewayStats) {
	if t == nil {
		return
	}
	t.gateway.Store(&src)
}

// Shutdown stops the /metrics servers, flushes the spans waiting for
// export (within ctx) and stops the export goroutine. Later calls do
// nothing; methods keep working as no-ops for spans.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	servers := t.servers
	t.servers = nil
	already := t.closed
	t.closed = true
	t.mu.Unlock()
	var errs []error
	for _, s := range servers {
		errs = append(errs, s.Close())
	}
	if t.tp != nil && !already {
		if err := t.tp.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("flushing spans to %s: %w", t.endpoint, err))
		}
	}
	if t.meters != nil && !already {
		errs = append(errs, t.meters.provider.Shutdown(ctx))
	}
	return errors.Join(errs...)
}

// traceEndpoint decides whether spans are exported, and where: the flag
// wins over the variables.
func traceEndpoint(flag string) (string, bool, error) {
	if flag != "" {
		u, err := url.Parse(flag)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", false, fmt.Errorf("--otlp %q: %w: give the collector's OTLP/HTTP base URL, e.g. http://localhost:4318", flag, ErrConfig)
		}
		u.Path = path.Join("/", u.Path, "v1/traces")
		return u.String(), true, protocolOK()
	}
	exporter := strings.ToLower(strings.TrimSpace(os.Getenv("OTEL_TRACES_EXPORTER")))
	switch exporter {
	case "none":
		return "", false, nil
	case "", "otlp":
	default:
		return "", false, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: %w: mcpdeck exports traces over OTLP only; use otlp or none", exporter, ErrConfig)
	}
	if os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && exporter != "otlp" {
		return "", false, nil
	}
	// As the specification says: the traces variable is the URL itself,
	// the general one a base to which /v1/traces is appended.
	if endpoint := strings.TrimSpace(os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")); endpoint != "" {
		u, err := url.Parse(endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", false, fmt.Errorf("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=%s: %w: give the collector's URL, e.g. http://localhost:4318/v1/traces", endpoint, ErrConfig)
		}
		return u.String(), true, protocolOK()
	}
	base := strings.TrimSpace(os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT"))
	if base == "" {
		base = "http://localhost:4318"
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false, fmt.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT=%s: %w: give the collector's base URL, e.g. http://localhost:4318", base, ErrConfig)
	}
	u.Path = path.Join("/", u.Path, "v1/traces")
	return u.String(), true, protocolOK()
}

// protocolOK checks the protocol variables against what the exporter
// speaks: OTLP/HTTP with JSON bodies (http/json). http/protobuf, the
// specification's default, is often set for a whole host, so it is not
// refused (every mcpdeck command would fail): the spans go as http/json,
// which the OpenTelemetry Collector accepts on the same port, and
// protobufSet says so for New to log. grpc (another port and transport)
// and unknown values are refused with what to set instead. The
// traces-specific variable wins over the general one.
func protocolOK() error {
	v, p := otlpProtocol()
	switch p {
	case "", "http/json", "http/protobuf":
		return nil
	case "grpc":
		return fmt.Errorf("%s=%s: %w: mcpdeck exports OTLP over HTTP (JSON bodies), not gRPC; set it to http/json and use the collector's OTLP/HTTP port (4318)", v, p, ErrConfig)
	}
	return fmt.Errorf("%s=%s: %w: not an OTLP protocol; mcpdeck speaks http/json", v, p, ErrConfig)
}

// otlpProtocol is the protocol variable that applies to traces, and its
// value.
func otlpProtocol() (name, value string) {
	name = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	value = strings.TrimSpace(os.Getenv(name))
	if value == "" {
		name = "OTEL_EXPORTER_OTLP_PROTOCOL"
		value = strings.TrimSpace(os.Getenv(name))
	}
	return name, value
}

func isTrue(s string) bool { return strings.EqualFold(strings.TrimSpace(s), "true") }

func newResource(opts Options, log *slog.Logger) (*resource.Resource, error) {
	name := opts.ServiceName
	if name == "" {
		name = "mcpdeck"
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", name)}
	if opts.ServiceVersion != "" {
		attrs = append(attrs, attribute.String("service.version", opts.ServiceVersion))
	}
	for k, v := range opts.ResourceAttributes {
		attrs = append(attrs, attribute.String(k, v))
	}
	// FromEnv comes last so OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
	// win, as the specification asks.
	res, err := resource.New(context.Background(),
		resource.WithAttributes(attrs...),
		resource.WithHost(),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(),
	)
	if err != nil && res == nil {
		return nil, fmt.Errorf("building the telemetry resource: %w: %w", ErrConfig, err)
	}
	// A partial resource (an unparsable OTEL_RESOURCE_ATTRIBUTES entry) is
	// still usable; say what was skipped.
	if err != nil {
		log.Warn("some resource attributes were skipped", "err", err)
	}
	return res, nil
}

// routeSDKErrors sends the SDK's global errors and logs to log, never to
// stderr.
func routeSDKErrors(log *slog.Logger) {
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn("telemetry error", "err", err)
	}))
	otel.SetLogger(logr.FromSlogHandler(log.Handler()))
}

// exportTimeout bounds one export, as OTEL_BSP_EXPORT_TIMEOUT (default 30 s).
func exportTimeout() time.Duration { return envMillis("OTEL_BSP_EXPORT_TIMEOUT", 30*time.Second) }

// FlushTimeout bounds the flush of the spans left when a command ends: the
// OTLP exporter's own timeout (OTEL_EXPORTER_OTLP_TRACES_TIMEOUT, else
// OTEL_EXPORTER_OTLP_TIMEOUT, in ms; default 10 s), so a collector that
// does not answer delays mcpdeck's exit by at most that.
func FlushTimeout() time.Duration {
	if v, _ := otlpEnv("TIMEOUT"); v != "" {
		if ms, err := strconv.Atoi(v); err == nil && ms > 0 {
			return time.Duration(ms) * time.Millisecond
		}
	}
	return 10 * time.Second
}
