package telemetry

import (
	"context"
	"math"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"mcpdeck/internal/clip"
)

// ServerStats is one server's counters and state as the runtime keeps them,
// read when metrics are collected (a scrape). Counters are totals since the
// server was configured; a counter that goes down is read as a reset.
type ServerStats struct {
	Server          string // configured name
	State           string // one of Options.States (DefaultStates)
	Transport       string // stdio, http, sse
	ProtocolVersion string // negotiated MCP version; "" before initialize
	Era             string // EraLegacy or EraModern; "" when not known yet

	Restarts             uint64 // connections replaced after a failure or by request
	Attempts             uint64 // consecutive reconnect attempts; reset once healthy, so a gauge
	GaveUp               bool   // automatic reconnecting stopped: down until reconnected by hand or reloaded
	Notifications        uint64 // notifications received
	DroppedNotifications uint64 // notifications dropped for slow subscribers
	LateResponses        uint64 // responses that arrived after their request was cancelled
	NoiseLines           uint64 // stdout lines that were not JSON-RPC
	Outstanding          int    // requests waiting for a response now

	// LastError is the server's most recent error ("" for none), with its
	// kind and when it happened: an info-style series whose value is the
	// time, so a fleet view (or an alert) reads what went wrong and when.
	LastError     string
	LastErrorKind string
	LastErrorAt   time.Time
}

// GatewayStats is the gateway's state, read at collection time.
type GatewayStats struct {
	Clients int    // clients attached now
	Calls   uint64 // calls served since the gateway started
}

// observe reports the current stats; it runs during every collection.
func (m *meters) observe(_ context.Context, o metric.Observer) error {
	if src := m.t.source.Load(); src != nil && *src != nil {
		for _, s := range (*src)() {
			m.observeServer(o, s)
		}
	}
	if gw := m.t.gateway.Load(); gw != nil && *gw != nil {
		g := (*gw)()
		o.ObserveInt64(m.gatewayClients, int64(g.Clients))
		o.ObserveInt64(m.gatewayCalls, clampInt64(g.Calls))
	}
	if q := m.t.queue; q != nil {
		o.ObserveInt64(m.spansDropped, clampInt64(q.dropped.Load()))
	} else {
		o.ObserveInt64(m.spansDropped, 0)
	}
	return nil
}

func (m *meters) observeServer(o metric.Observer, s ServerStats) {
	server := metric.WithAttributeSet(attribute.NewSet(KeyServer.String(s.Server)))
	for _, state := range m.states {
		v := int64(0)
		if state == s.State {
			v = 1
		}
		o.ObserveInt64(m.state, v, metric.WithAttributeSet(attribute.NewSet(KeyServer.String(s.Server), KeyState.String(state))))
	}
	if !m.knownState[s.State] && s.State != "" {
		// A state the list does not name still shows, as the current one.
		o.ObserveInt64(m.state, 1, metric.WithAttributeSet(attribute.NewSet(KeyServer.String(s.Server), KeyState.String(s.State))))
	}
	info := []attribute.KeyValue{KeyServer.String(s.Server)}
	if s.Transport != "" {
		info = append(info, KeyMCPTransport.String(s.Transport), KeyTransport.String(networkTransport(s.Transport)))
	}
	if s.ProtocolVersion != "" {
		info = append(info, KeyProtocolVersion.String(s.ProtocolVersion))
	}
	if s.Era != "" {
		info = append(info, KeyEra.String(s.Era))
	}
	o.ObserveInt64(m.info, 1, metric.WithAttributeSet(attribute.NewSet(info...)))
	o.ObserveInt64(m.restarts, clampInt64(s.Restarts), server)
	o.ObserveInt64(m.attempts, clampInt64(s.Attempts), server)
	gaveUp := int64(0)
	if s.GaveUp {
		gaveUp = 1
	}
	o.ObserveInt64(m.gaveUp, gaveUp, server)
	o.ObserveInt64(m.notifications, clampInt64(s.Notifications), server)
	o.ObserveInt64(m.dropped, clampInt64(s.DroppedNotifications), server)
	o.ObserveInt64(m.late, clampInt64(s.LateResponses), server)
	o.ObserveInt64(m.noise, clampInt64(s.NoiseLines), server)
	o.ObserveInt64(m.outstanding, int64(s.Outstanding), server)
	if s.LastError != "" && !s.LastErrorAt.IsZero() {
		o.ObserveInt64(m.lastError, s.LastErrorAt.Unix(), metric.WithAttributeSet(attribute.NewSet(
			KeyServer.String(s.Server), KeyErrorKind.String(s.LastErrorKind), KeyErrorMessage.String(clip.Text(s.LastError, maxErrorLabel)))))
	}
}

// maxErrorLabel bounds the error message label: a label is for reading
// at a glance, and every distinct value is a series in Prometheus.
const maxErrorLabel = 200

func clampInt64(v uint64) int64 {
	if v > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(v)
}

// networkTransport maps mcpdeck's transport to the conventions'
// network.transport: pipe for stdio, tcp for HTTP.
func networkTransport(t string) string {
	switch t {
	case "stdio":
		return "pipe"
	case "":
		return ""
	default:
		return "tcp"
	}
}
