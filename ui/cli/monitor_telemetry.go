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
	// metricsURL is the /metrics URL served, once startTelemetry has.
	metricsURL string
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
		f.metricsURL = ms.URL()
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

// shutdownTelemetry flushes what is left to export, bounded in time.
func shutdownTelemetry(tel *telemetry.Telemetry) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = tel.Shutdown(ctx)
}
