package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"mcpdeck/runtime"
	"mcpdeck/runtime/telemetry"
)

// telemetryFlags are the flags that turn telemetry on. They are separate so
// the TUI, watch and gateway can take the same ones (addTelemetryFlags).
type telemetryFlags struct {
	metrics     string
	allowRemote bool
	otlp        string
}

// addTelemetryFlags defines --metrics, --metrics-allow-remote and --otlp.
func addTelemetryFlags(fl *pflag.FlagSet, f *telemetryFlags) {
	fl.StringVar(&f.metrics, "metrics", "", "serve Prometheus metrics at http://`ADDR`/metrics, e.g. 127.0.0.1:9464 (loopback unless --metrics-allow-remote)")
	fl.BoolVar(&f.allowRemote, "metrics-allow-remote", false, "allow a --metrics address outside the loopback network (anyone who reaches it reads server and tool names)")
	fl.StringVar(&f.otlp, "otlp", "", "export traces over OTLP/HTTP to the collector at `URL` (like OTEL_EXPORTER_OTLP_ENDPOINT; /v1/traces is appended)")
}

// startTelemetry builds telemetry from the flags and the OTEL_* variables
// and serves /metrics when asked; the caller shuts it down. With nothing
// asked for it returns telemetry that does nothing.
func (f *telemetryFlags) startTelemetry(ctx context.Context, log *slog.Logger) (*telemetry.Telemetry, error) {
	if f.metrics != "" {
		if err := telemetry.CheckMetricsAddr(f.metrics, f.allowRemote); err != nil {
			return nil, withCode(ExitUsage, fmt.Errorf("--metrics: %w", err))
		}
	}
	tel, err := telemetry.New(telemetry.Options{
		Metrics:        f.metrics != "",
		OTLPEndpoint:   f.otlp,
		ServiceVersion: version(),
		States:         stateNames(),
		Logger:         log,
	})
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	if tel.TracesEnabled() {
		log.Info("exporting traces", "endpoint", tel.TraceEndpoint())
	}
	if f.metrics == "" {
		return tel, nil
	}
	ms, err := tel.ServeMetrics(ctx, f.metrics, f.allowRemote)
	switch {
	case errors.Is(err, telemetry.ErrMetricsOff):
		log.Warn("not serving metrics: OTEL_SDK_DISABLED=true turns telemetry off", "addr", f.metrics)
	case err != nil:
		_ = tel.Shutdown(context.Background())
		return nil, withCode(ExitUsage, fmt.Errorf("--metrics %s: %w", f.metrics, err))
	default:
		log.Info("serving metrics", "url", ms.URL())
	}
	return tel, nil
}

// stateNames are the runtime's server states, in order, for the state gauge.
func stateNames() []string {
	var out []string
	for s := runtime.State(0); !strings.HasPrefix(s.String(), "State("); s++ {
		out = append(out, s.String())
	}
	return out
}

// serverStats is what telemetry reads at every scrape: the counters the
// runtime keeps, so nothing is counted twice.
func serverStats(snap *runtime.Snapshot) []telemetry.ServerStats {
	out := make([]telemetry.ServerStats, 0, len(snap.Servers))
	for _, v := range snap.Servers {
		out = append(out, telemetry.ServerStats{
			Server:               v.Name,
			State:                v.State.String(),
			Transport:            v.Transport,
			ProtocolVersion:      v.ProtocolVersion,
			Era:                  eraOf(v.ProtocolVersion),
			Restarts:             uint64(max(v.Restarts, 0)),
			Attempts:             uint64(max(v.Attempts, 0)),
			Notifications:        v.Counters.Notifications,
			DroppedNotifications: v.Counters.DroppedEvents,
			LateResponses:        v.Counters.LateResponses,
			NoiseLines:           v.Counters.NoiseLines,
			Outstanding:          len(v.Outstanding),
		})
	}
	return out
}

// eraOf names the protocol era of a negotiated version: revisions from
// 2026-07-28 on are the stateless ("modern") ones. Versions are dates, so
// they compare as strings.
func eraOf(version string) string {
	switch {
	case version == "":
		return ""
	case version >= "2026-07-28":
		return telemetry.EraModern
	default:
		return telemetry.EraLegacy
	}
}

// healthRecorder is what healthBridge feeds; *telemetry.Telemetry is one.
type healthRecorder interface {
	RecordPing(server string, d time.Duration, ok bool)
	RecordSession(telemetry.SessionEnd)
}

// healthBridge turns the health checks and sessions visible in snapshots
// into telemetry's duration measurements, until the runtime records them
// itself (then delete it). It samples once a second: a second health check
// within one sample is missed, which at the default 15 s interval never
// happens. Used by one goroutine.
type healthBridge struct {
	rec  healthRecorder
	seen map[string]serverSeen
}

// serverSeen is what the previous sample saw of a server.
type serverSeen struct {
	pingAt    time.Time
	missed    int
	started   time.Time // the live session's start; zero when not live
	transport string
	version   string
}

func newHealthBridge(rec healthRecorder) *healthBridge {
	return &healthBridge{rec: rec, seen: map[string]serverSeen{}}
}

// sample compares snap with the previous sample and records what
// happened in between.
func (b *healthBridge) sample(snap *runtime.Snapshot, now time.Time) {
	present := map[string]bool{}
	for _, v := range snap.Servers {
		present[v.Name] = true
		prev := b.seen[v.Name]
		cur := serverSeen{pingAt: v.Ping.LastAt, missed: v.Ping.Missed, transport: v.Transport, version: v.ProtocolVersion}
		if v.State.Live() {
			cur.started = v.StartedAt
		}
		if !v.Ping.LastAt.IsZero() && v.Ping.LastAt != prev.pingAt {
			switch {
			case v.Ping.Missed == 0:
				b.rec.RecordPing(v.Name, v.Ping.Last, true)
			default:
				misses := v.Ping.Missed - prev.missed
				if misses <= 0 || prev.started != cur.started {
					misses = v.Ping.Missed // a new session counts from zero
				}
				for range misses {
					b.rec.RecordPing(v.Name, 0, false)
				}
			}
		}
		if !prev.started.IsZero() && prev.started != cur.started {
			b.endSession(v.Name, prev, now, v.State)
		}
		b.seen[v.Name] = cur
	}
	for name, prev := range b.seen {
		if !present[name] {
			if !prev.started.IsZero() {
				b.endSession(name, prev, now, runtime.StateStopped)
			}
			delete(b.seen, name)
		}
	}
}

// endSession records a session that ended by now; a failed server's
// session ended with its transport closing.
func (b *healthBridge) endSession(name string, prev serverSeen, now time.Time, state runtime.State) {
	errType := ""
	if state == runtime.StateFailed {
		errType = telemetry.ErrorTypeClosed
	}
	b.rec.RecordSession(telemetry.SessionEnd{
		Server: name, Transport: prev.transport, ProtocolVersion: prev.version,
		Duration: now.Sub(prev.started), ErrorType: errType,
	})
}
