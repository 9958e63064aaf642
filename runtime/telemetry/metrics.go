package telemetry

import (
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/exemplar"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
)

// durationBuckets are the conventions' bucket boundaries for
// mcp.client.operation.duration and mcp.client.session.duration, in s.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// pingBuckets are finer: a healthy stdio server answers a ping in well
// under a millisecond, where the conventions' first bucket (10 ms) would
// hide every difference that matters.
var pingBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// meters are the instruments. They are built once by New and only read
// afterwards.
type meters struct {
	t        *Telemetry
	provider *sdkmetric.MeterProvider
	reader   *sdkmetric.ManualReader
	// target is target_info, built once from the resource.
	target promFamily

	opDuration, sessionDuration, pingDuration metric.Float64Histogram

	state, info, attempts, gaveUp, outstanding, gatewayClients, lastError metric.Int64ObservableGauge
	restarts, notifications, dropped, late, noise                         metric.Int64ObservableCounter
	gatewayCalls, spansDropped                                            metric.Int64ObservableCounter

	states     []string
	knownState map[string]bool

	// opSets caches operation-duration attribute sets by opKey; End reads
	// and fills it from any goroutine.
	opSets     sync.Map
	opSetCount atomic.Int32
}

func newMeters(t *Telemetry, res *resource.Resource, states []string) (*meters, error) {
	if len(states) == 0 {
		states = DefaultStates
	}
	m := &meters{t: t, states: states, knownState: map[string]bool{}, reader: sdkmetric.NewManualReader(), target: targetInfo(res)}
	for _, s := range states {
		m.knownState[s] = true
	}
	m.provider = sdkmetric.NewMeterProvider(
		sdkmetric.WithReader(m.reader),
		sdkmetric.WithResource(res),
		// Exemplars are never shown (no OpenMetrics) and cost every record.
		sdkmetric.WithExemplarFilter(exemplar.AlwaysOffFilter),
	)
	if err := m.instruments(m.provider.Meter("mcpdeck")); err != nil {
		return nil, fmt.Errorf("creating the metric instruments: %w", err)
	}
	return m, nil
}

func (m *meters) instruments(meter metric.Meter) error {
	var err error
	must := func(e error) {
		if err == nil {
			err = e
		}
	}
	hist := func(name, desc, unit string, buckets []float64) metric.Float64Histogram {
		h, e := meter.Float64Histogram(name, metric.WithDescription(desc), metric.WithUnit(unit), metric.WithExplicitBucketBoundaries(buckets...))
		must(e)
		return h
	}
	gauge := func(name, desc, unit string) metric.Int64ObservableGauge {
		g, e := meter.Int64ObservableGauge(name, metric.WithDescription(desc), metric.WithUnit(unit))
		must(e)
		return g
	}
	counter := func(name, desc, unit string) metric.Int64ObservableCounter {
		c, e := meter.Int64ObservableCounter(name, metric.WithDescription(desc), metric.WithUnit(unit))
		must(e)
		return c
	}
	m.opDuration = hist(MetricOperationDuration, "The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.", "s", durationBuckets)
	m.sessionDuration = hist(MetricSessionDuration, "The duration of the MCP session as observed on the MCP client.", "s", durationBuckets)
	m.pingDuration = hist(MetricPingDuration, "Round trip of mcpdeck's health check (ping, or server/discover on 2026-07-28 servers); error.type is set on a missed check.", "s", pingBuckets)

	m.state = gauge(MetricServerState, "1 for the state each server is in, 0 for every other state.", "")
	m.info = gauge(MetricServerInfo, "Always 1; its attributes say each server's transport, protocol version and era.", "")
	m.attempts = gauge(MetricReconnectAttempts, "Consecutive automatic reconnect attempts; back to 0 once the server is healthy.", "{attempt}")
	m.gaveUp = gauge(MetricReconnectGaveUp, "1 while automatic reconnecting has given up on the server (it stays down until reconnected by hand or reloaded), else 0.", "")
	m.outstanding = gauge(MetricOutstanding, "Requests waiting for a response.", "{request}")
	m.lastError = gauge(MetricLastError, "When each server's last error happened (Unix time); its attributes say the error's kind and message. Absent while a server has had none.", "s")
	m.restarts = counter(MetricRestarts, "Connections replaced after a failure or by request.", "{restart}")
	m.notifications = counter(MetricNotifications, "Notifications received from the server.", "{notification}")
	m.dropped = counter(MetricNotificationsDrop, "Notifications dropped because a subscriber was too slow.", "{notification}")
	m.late = counter(MetricLateResponses, "Responses that arrived after their request was cancelled.", "{response}")
	m.noise = counter(MetricNoiseLines, "Lines on a stdio server's stdout that were not JSON-RPC.", "{line}")
	m.gatewayClients = gauge(MetricGatewayClients, "Clients attached to mcpdeck's gateway.", "{client}")
	m.gatewayCalls = counter(MetricGatewayCalls, "Calls the gateway served.", "{call}")
	m.spansDropped = counter(MetricSpansDropped, "Spans dropped instead of exported: the export queue was full or the collector failed.", "{span}")
	if err != nil {
		return err
	}
	_, err = meter.RegisterCallback(m.observe,
		m.state, m.info, m.attempts, m.gaveUp, m.outstanding, m.lastError, m.restarts, m.notifications, m.dropped, m.late, m.noise,
		m.gatewayClients, m.gatewayCalls, m.spansDropped)
	return err
}

// Handler serves the Prometheus exposition of every metric, for a server
// that already listens (the gateway's --http). It answers 404 when
// metrics are off.
func (t *Telemetry) Handler() http.Handler {
	if !t.MetricsEnabled() {
		return http.NotFoundHandler()
	}
	return t.meters
}

// ServeHTTP collects every metric and writes the text exposition
// (expo.go): the SDK's instruments, target_info, and the Go runtime's and
// the process's own metrics (procstats.go), which cost nothing until a
// scrape and are what an operator looks at first when a host misbehaves.
// A collection error is logged and what was collected is served, as
// client_golang's ContinueOnError did.
func (m *meters) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var rm metricdata.ResourceMetrics
	if err := m.reader.Collect(r.Context(), &rm); err != nil {
		m.t.log.Warn("collecting metrics for /metrics", "err", err)
	}
	fams := make([]promFamily, 0, 64)
	fams = append(fams, m.target)
	fams = sdkFamilies(&rm, fams)
	fams = goFamilies(fams)
	fams = processFamilies(fams)
	buf := expoBuffers.Get().(*[]byte)
	defer expoBuffers.Put(buf)
	body := writeExposition((*buf)[:0], fams)
	*buf = body

	w.Header().Set("Content-Type", expoContentType)
	if !acceptsGzip(r.Header.Get("Accept-Encoding")) {
		_, _ = w.Write(body)
		return
	}
	w.Header().Set("Content-Encoding", "gzip")
	zw := gzip.NewWriter(w)
	_, _ = zw.Write(body)
	_ = zw.Close()
}

// expoBuffers keep the last scrapes' buffers: an exposition is a few
// hundred KB, grown by doubling every time otherwise.
var expoBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// acceptsGzip reports whether an Accept-Encoding header lists gzip (with
// a non-zero q), as Prometheus' scrapes do.
func acceptsGzip(h string) bool {
	for part := range strings.SplitSeq(h, ",") {
		enc, params, _ := strings.Cut(part, ";")
		if !strings.EqualFold(strings.TrimSpace(enc), "gzip") {
			continue
		}
		q := strings.ReplaceAll(params, " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}

// RecordPing records one health check of server: its round trip, or, when
// ok is false, a missed check (error.type "timeout"), so p50 and p95 come
// from answered checks and the miss rate from the others.
func (t *Telemetry) RecordPing(server string, d time.Duration, ok bool) {
	if !t.MetricsEnabled() {
		return
	}
	set := attribute.NewSet(KeyServer.String(server))
	if !ok {
		set = attribute.NewSet(KeyServer.String(server), KeyErrorType.String(ErrorTypeTimeout))
	}
	t.meters.pingDuration.Record(context.Background(), d.Seconds(), metric.WithAttributeSet(set))
}

// SessionEnd describes a session that ended, for RecordSession.
type SessionEnd struct {
	Server          string
	Transport       string // stdio, http, sse
	ProtocolVersion string
	Duration        time.Duration
	// ErrorType is "" when the session was closed by request, else why it
	// ended (ErrorTypeClosed, ErrorTypeTimeout for missed pings, ...).
	ErrorType string
}

// RecordSession records mcp.client.session.duration for a session that
// ended (the runtime calls it when a connection closes).
func (t *Telemetry) RecordSession(s SessionEnd) {
	if !t.MetricsEnabled() {
		return
	}
	attrs := []attribute.KeyValue{KeyServer.String(s.Server)}
	attrs = appendTransport(attrs, s.Transport)
	attrs = appendSet(attrs, KeyProtocolVersion, s.ProtocolVersion)
	attrs = appendSet(attrs, KeyErrorType, s.ErrorType)
	t.meters.sessionDuration.Record(context.Background(), s.Duration.Seconds(), metric.WithAttributeSet(attribute.NewSet(attrs...)))
}

// appendTransport adds network.transport and, for HTTP transports,
// network.protocol.name, as the conventions' transport table asks.
func appendTransport(attrs []attribute.KeyValue, transport string) []attribute.KeyValue {
	switch nt := networkTransport(transport); nt {
	case "":
		return attrs
	case "pipe":
		return append(attrs, KeyTransport.String(nt))
	default:
		return append(attrs, KeyTransport.String(nt), KeyProtocolName.String("http"))
	}
}
