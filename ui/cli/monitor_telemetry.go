package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"mcpdeck/runtime"
	"mcpdeck/runtime/telemetry"
)

// Traces: every command that talks to servers exports a span per request
// when --otlp (a global flag) or the standard OTEL_* variables ask for it,
// and flushes them before mcpdeck exits. The command line's run holds the
// invocation's telemetry (invocation, in the command's context) and shuts
// it down after the command returns, bounded by the OTLP timeout, so a
// one-shot command's spans reach the collector whatever way it ends.

// otlpFlag is the global flag that sends traces to a collector.
const otlpFlag = "otlp"

// addOTLPFlag defines the global --otlp.
func addOTLPFlag(root *cobra.Command) {
	root.PersistentFlags().String(otlpFlag, "", "export a span per MCP request over OTLP/HTTP to the collector at `URL` (like OTEL_EXPORTER_OTLP_ENDPOINT; /v1/traces is appended)")
}

// invocation is one run of the command line: the telemetry its command
// built, flushed when the command returns.
type invocation struct {
	root *cobra.Command
	mu   sync.Mutex
	tels []*telemetry.Telemetry
	// shared is commandTelemetry's, built once however many sessions the
	// command opens (a test run's suites, a check's servers).
	shared *telemetry.Telemetry
}

type invocationKey struct{}

// withInvocation is ctx carrying inv, for the command's context.
func withInvocation(ctx context.Context, inv *invocation) context.Context {
	return context.WithValue(ctx, invocationKey{}, inv)
}

func invocationOf(ctx context.Context) *invocation {
	inv, _ := ctx.Value(invocationKey{}).(*invocation)
	return inv
}

// otlp is the --otlp value given to this run.
func (inv *invocation) otlp() string {
	if inv == nil || inv.root == nil {
		return ""
	}
	v, _ := inv.root.PersistentFlags().GetString(otlpFlag)
	return v
}

func (inv *invocation) hold(tel *telemetry.Telemetry) {
	if inv == nil || !tel.Enabled() {
		return
	}
	inv.mu.Lock()
	inv.tels = append(inv.tels, tel)
	inv.mu.Unlock()
}

// flush shuts down every telemetry the command built, exporting the spans
// still queued: at most the OTLP timeout (OTEL_EXPORTER_OTLP_TIMEOUT,
// default 10 s) however many there are.
func (inv *invocation) flush() {
	inv.mu.Lock()
	tels := inv.tels
	inv.tels = nil
	inv.mu.Unlock()
	if len(tels) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), telemetry.FlushTimeout())
	defer cancel()
	for _, tel := range tels {
		_ = tel.Shutdown(ctx) // failures were logged by the telemetry's logger
	}
}

// commandTelemetry is the trace-only telemetry of a command that talks to
// servers (call, servers, tools, check, ...): spans for every request when
// --otlp or OTEL_* ask for them, nothing (and no cost) otherwise. Its
// diagnostics (a collector that fails) go to stderr as text. It is flushed
// when the command returns.
func commandTelemetry(cmd *cobra.Command) (*telemetry.Telemetry, error) {
	inv := invocationOf(cmd.Context())
	if inv != nil {
		inv.mu.Lock()
		defer inv.mu.Unlock()
		if inv.shared != nil {
			return inv.shared, nil
		}
	}
	log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	tel, err := telemetry.New(telemetry.Options{OTLPEndpoint: inv.otlp(), ServiceVersion: version(), Logger: log})
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	if inv != nil && tel.Enabled() {
		inv.shared = tel
		inv.tels = append(inv.tels, tel)
	}
	return tel, nil
}

// telemetryFlags are the flags that serve metrics. They are separate so
// the TUI, watch, monitor and gateway can take the same ones
// (addTelemetryFlags).
type telemetryFlags struct {
	metrics     string
	allowRemote bool
	// metricsURL is the /metrics URL served, once startTelemetry has.
	metricsURL string
}

// addTelemetryFlags defines --metrics and --metrics-allow-remote.
func addTelemetryFlags(fl *pflag.FlagSet, f *telemetryFlags) {
	fl.StringVar(&f.metrics, "metrics", "", "serve Prometheus metrics at http://`ADDR`/metrics, e.g. 127.0.0.1:9464 (loopback unless --metrics-allow-remote)")
	fl.BoolVar(&f.allowRemote, "metrics-allow-remote", false, "allow a --metrics address outside the loopback network (anyone who reaches it reads server and tool names)")
}

// startTelemetry builds telemetry from the flags, the global --otlp and the
// OTEL_* variables and serves /metrics when asked; the invocation in ctx
// flushes it when the command returns (the caller may shut it down
// earlier). With nothing asked for it returns telemetry that does nothing.
func (f *telemetryFlags) startTelemetry(ctx context.Context, log *slog.Logger) (*telemetry.Telemetry, error) {
	if f.metrics != "" {
		if err := telemetry.CheckMetricsAddr(f.metrics, f.allowRemote); err != nil {
			return nil, withCode(ExitUsage, fmt.Errorf("--metrics: %w", err))
		}
	}
	inv := invocationOf(ctx)
	tel, err := telemetry.New(telemetry.Options{
		Metrics:        f.metrics != "",
		OTLPEndpoint:   inv.otlp(),
		ServiceVersion: version(),
		States:         stateNames(),
		Logger:         log,
	})
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	inv.hold(tel)
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
	for s := runtime.State(0); !strings.HasPrefix(s.Name(), "State("); s++ {
		out = append(out, s.Name())
	}
	return out
}

// shutdownTelemetry flushes what is left to export, bounded in time.
func shutdownTelemetry(tel *telemetry.Telemetry) {
	ctx, cancel := context.WithTimeout(context.Background(), telemetry.FlushTimeout())
	defer cancel()
	_ = tel.Shutdown(ctx)
}
