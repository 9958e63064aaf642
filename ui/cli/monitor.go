package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"mcpdeck/config"
	"mcpdeck/runtime"
)

// monitorFlags are monitor's own flags.
type monitorFlags struct {
	telemetry    telemetryFlags
	alertWebhook string
	logLevel     string
	reloadEvery  time.Duration
	retryEvery   time.Duration
}

func newMonitorCmd() *cobra.Command {
	var tf targetFlags
	var mf monitorFlags
	cmd := &cobra.Command{
		Use:   "monitor [SERVER]...",
		Short: "Supervise servers headless, with metrics, traces and JSON logs",
		Long: `monitor is the headless mode for hosts: it turns MCP on, connects every
enabled server (or the named ones, or the ad-hoc one), keeps them healthy
(health checks, automatic reconnects, and a fresh reconnect every
--retry-every for a server whose automatic reconnects gave up), and runs
until SIGINT or SIGTERM, then stops every server and exits 0.

The configuration is reloaded on SIGHUP and when a configuration file
changes (checked every --reload-every): removed servers stop, changed ones
restart, added ones start, the rest keep their connections. An invalid
file is reported and the running set is kept.

Logs are JSON lines on stderr (log/slog): state changes, reloads, errors,
and with --log-level debug the servers' stderr and log messages.

--metrics ADDR serves Prometheus metrics at http://ADDR/metrics: the
OpenTelemetry MCP conventions' mcp.client.* metrics and mcpdeck's own
(server state, health-check latency, restarts, reconnect attempts,
notifications, drops, noise, late responses). Traces go over OTLP/HTTP to
--otlp URL, or where the standard OTEL_EXPORTER_OTLP_ENDPOINT or
OTEL_EXPORTER_OTLP_TRACES_ENDPOINT variables say; OTEL_SDK_DISABLED=true
turns all telemetry off.

Alert rules (the "alerts" block of mcp.json, or the defaults: a server
failed for 1m or degraded for 2m, reconnects given up, slow health checks
or requests, a tool whose definition changed, a login that expired) are
evaluated every few seconds; each alert that fires or resolves is logged,
and POSTed to --alert-webhook URL (or the block's webhook) in
Alertmanager's webhook payload, sent again every repeatInterval while it
fires.

Exit status: 0 when stopped by a signal; 2 for a usage or configuration
error at start.`,
		Example: `  mcpdeck monitor --metrics 127.0.0.1:9464
  OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 mcpdeck monitor --trust-project
  mcpdeck monitor --config /etc/mcpdeck/mcp.json --metrics 0.0.0.0:9464 --metrics-allow-remote
  mcpdeck monitor --alert-webhook http://alert-receiver.internal:8080/hook`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMonitor(cmd, &tf, &mf, args)
		},
	}
	addTargetFlags(cmd, &tf)
	fl := cmd.Flags()
	addTelemetryFlags(fl, &mf.telemetry)
	fl.StringVar(&mf.logLevel, "log-level", "info", "the least severe log `L`evel to write: debug, info, warn, error")
	fl.DurationVar(&mf.reloadEvery, "reload-every", 2*time.Second, "how often to check the configuration files for changes (`D`; 0: only on SIGHUP)")
	fl.DurationVar(&mf.retryEvery, "retry-every", time.Minute, "reconnect a failed server whose automatic reconnects gave up, every `D` (0: never)")
	fl.StringVar(&mf.alertWebhook, "alert-webhook", "", "POST every firing and resolved alert to `URL` in Alertmanager's webhook payload (overrides the alerts block's webhook)")
	return cmd
}

// monitor is one run of the monitor command. Its fields are used by the
// command's goroutine only, except rt and tel, which are safe for
// concurrent use.
type monitor struct {
	cmd   *cobra.Command
	tf    *targetFlags
	names []string
	log   *slog.Logger
	rt    *runtime.Controller
	// alerts evaluates the alert rules; nil until started.
	alerts *monitorAlerts
	// files is the fingerprint of the configuration files last applied.
	files string
}

func runMonitor(cmd *cobra.Command, tf *targetFlags, mf *monitorFlags, names []string) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(mf.logLevel)); err != nil {
		return withCode(ExitUsage, fmt.Errorf("--log-level %q: use debug, info, warn or error", mf.logLevel))
	}
	if mf.reloadEvery < 0 || mf.retryEvery < 0 {
		return withCode(ExitUsage, errors.New("--reload-every and --retry-every take a positive duration such as 30s, or 0"))
	}
	stderr := cmd.ErrOrStderr()
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level}))
	// What the shared code says on stderr while monitor runs (a
	// configuration's warnings, at start and at every reload) goes into
	// the JSON log too: a plain line would break it for whatever reads it.
	cmd.SetErr(logLines{log})
	defer cmd.SetErr(stderr)
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// SIGHUP is caught from the start, so one sent while servers start
	// reloads afterwards instead of killing the process.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)

	cfg, err := resolveTargets(cmd, tf, names)
	if err != nil {
		return err
	}
	m := &monitor{cmd: cmd, tf: tf, names: names, log: log, files: configFingerprint(cmd, tf)}
	tel, err := mf.telemetry.startTelemetry(ctx, log)
	if err != nil {
		return err
	}
	opts, err := sessionOptions(cmd, runtime.Options{Config: cfg, Elicitor: runtime.DeclineElicitor{}, ClientVersion: version(),
		Telemetry: tel, Auth: newAuthManager(cmd, 0)})
	if err != nil {
		shutdownTelemetry(tel)
		return err
	}
	m.rt = runtime.New(opts)
	if m.alerts, err = startAlerts(ctx, log, m.rt, cfg, mf.alertWebhook, mf.telemetry.metricsURL); err != nil {
		shutdownRuntime(m.rt)
		shutdownTelemetry(tel)
		return err
	}
	events, unsubscribe := m.rt.Subscribe(runtime.SubscribeOptions{})
	logged := make(chan struct{})
	go func() {
		defer close(logged)
		for ev := range events {
			logEvent(log, ev)
			m.alerts.event(ev)
		}
	}()

	log.Info("monitor starting", "version", version(), "servers", len(cfg.Servers), "sources", sourcesOf(cfg))
	if len(cfg.Servers) == 0 {
		log.Warn("no enabled server to supervise; waiting for a configuration change", "sources", sourcesOf(cfg))
	}
	if err := m.rt.SetEnabled(ctx, true); err != nil && ctx.Err() == nil {
		log.Error("turning MCP on failed", "err", err)
	}
	m.supervise(ctx, mf, hup)

	log.Info("monitor stopping: stopping every server")
	// The rules stop first: servers stopping for the shutdown are not an
	// alert, nor the end of one.
	m.alerts.stop()
	shutdownRuntime(m.rt)
	unsubscribe() // after Shutdown nothing publishes any more
	<-logged
	// The last state changes may not have reached the lossy subscription
	// before it closed; the snapshot has how each server stopped.
	for _, v := range m.rt.Snapshot().Servers {
		if v.LastStop.Step != 0 {
			log.Info("server stopped", "server", v.Name, "step", v.LastStop.Step, "exit", v.LastStop.Exit, "took", v.LastStop.Took.String())
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tel.Shutdown(sctx); err != nil {
		log.Warn("telemetry shutdown", "err", err)
	}
	log.Info("monitor stopped")
	return nil
}

// supervise runs until ctx ends: reloads on SIGHUP and on file changes,
// and reconnects servers that gave up. (The runtime itself reports health
// checks, requests and sessions to telemetry.)
func (m *monitor) supervise(ctx context.Context, mf *monitorFlags, hup <-chan os.Signal) {
	reload, stopReload := ticker(mf.reloadEvery)
	defer stopReload()
	retry, stopRetry := ticker(mf.retryEvery)
	defer stopRetry()
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			m.reload(ctx, "SIGHUP")
		case <-reload:
			if m.tf.url == "" && m.tf.stdio == "" {
				if fp := configFingerprint(m.cmd, m.tf); fp != m.files {
					m.reload(ctx, "configuration file changed")
				}
			}
		case <-retry:
			m.retryGivenUp(ctx)
		}
	}
}

// logLines is a writer that logs each line written to it as a warning
// of monitor's JSON log: warnf's "mcpdeck: warning: …" lines become
// {"level":"WARN","msg":"configuration warning","warning":"…"}.
type logLines struct{ log *slog.Logger }

func (l logLines) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		line = strings.TrimPrefix(strings.TrimPrefix(line, "mcpdeck: "), "warning: ")
		if strings.TrimSpace(line) != "" {
			l.log.Warn("configuration warning", "warning", line)
		}
	}
	return len(p), nil
}

// orEmpty makes a nil list print as [] rather than null.
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ticker ticks every d; for d = 0 its channel is nil and never fires.
func ticker(d time.Duration) (<-chan time.Time, func()) {
	if d <= 0 {
		return nil, func() {}
	}
	t := time.NewTicker(d)
	return t.C, t.Stop
}

// reload applies the configuration as it is now.
func (m *monitor) reload(ctx context.Context, why string) {
	m.files = configFingerprint(m.cmd, m.tf)
	cfg, err := resolveTargets(m.cmd, m.tf, m.names)
	if err != nil {
		m.log.Error("reload refused: the running servers are kept", "why", why, "err", err)
		return
	}
	m.alerts.reloaded(m.log, cfg)
	plan, err := m.rt.Reload(ctx, cfg)
	if err != nil {
		if ctx.Err() == nil {
			m.log.Error("reload failed", "why", why, "err", err)
		}
		return
	}
	m.log.Info("configuration reloaded", "why", why, "added", orEmpty(plan.Add), "removed", orEmpty(plan.Remove), "restarted", orEmpty(plan.Restart),
		"stopped", orEmpty(plan.Stop), "started", orEmpty(plan.Start), "updated", orEmpty(plan.Update), "kept", len(plan.Keep))
}

// retryGivenUp reconnects every enabled server that failed and has no
// automatic reconnect pending: a host daemon keeps trying.
func (m *monitor) retryGivenUp(ctx context.Context) {
	for _, v := range m.rt.Snapshot().Servers {
		if !v.Enabled || v.State != runtime.StateFailed || !v.Reconnectable || !v.NextRetry.IsZero() {
			continue
		}
		m.log.Info("reconnecting a failed server", "server", v.Name, "reason", v.Reason)
		if err := m.rt.Reconnect(ctx, v.Name); err != nil && ctx.Err() == nil {
			m.log.Warn("reconnect failed", "server", v.Name, "err", err)
		}
	}
}

// configFingerprint fingerprints the configuration files discovery finds
// now (path and content hash of each): a changed, added or removed file
// changes it. It loads through the same discovery as every command, so it
// sees what a reload would read. Polling, not fsnotify: it needs no
// watcher per directory, sees a file that appears where discovery looks,
// and works where inotify does not (bind mounts from other hosts,
// Kubernetes ConfigMaps swapped by symlink); reading a few small files
// every two seconds costs nothing.
func configFingerprint(cmd *cobra.Command, tf *targetFlags) string {
	if tf.url != "" || tf.stdio != "" {
		return ""
	}
	cfg, err := load(configFiles(cmd), true)
	if cfg == nil {
		return "error: " + fmt.Sprint(err)
	}
	h := sha256.New()
	for _, f := range cfg.Files {
		fmt.Fprintf(h, "%s\x00%s\x00", f.Path, f.Hash)
	}
	if err != nil {
		var errs config.Errors
		if !errors.As(err, &errs) {
			fmt.Fprintf(h, "%v", err)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// logEvent writes the events an operator wants in a host's logs.
func logEvent(log *slog.Logger, ev runtime.Event) {
	h := ev.Header()
	switch e := ev.(type) {
	case runtime.StateChanged:
		level := slog.LevelInfo
		if e.To == runtime.StateFailed || e.To == runtime.StateDegraded {
			level = slog.LevelWarn
		}
		attrs := []any{"server", h.Server, "from", e.From.String(), "to", e.To.String()}
		if e.Reason != "" {
			attrs = append(attrs, "reason", e.Reason)
		}
		log.Log(context.Background(), level, "server state changed", attrs...)
	case runtime.ProtocolAnomaly:
		log.Warn("protocol anomaly", "server", h.Server, "kind", e.Kind, "id", e.ID, "detail", e.Detail)
	case runtime.StdoutNoise:
		log.Debug("stdout noise", "server", h.Server, "line", e.Line, "detail", e.Detail)
	case runtime.StderrLine:
		log.Debug("server stderr", "server", h.Server, "line", e.Line)
	case runtime.LogMessage:
		log.Debug("server log", "server", h.Server, "level", e.Level, "logger", e.Logger, "data", string(e.Data))
	}
}
