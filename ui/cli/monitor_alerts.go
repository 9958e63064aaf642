package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"os"
	"slices"
	"sync"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/alert"
)

// monitorAlerts are the alert rules a monitor evaluates: the runner, the
// latency samples it reads (fed from the event stream), and the tool
// definitions it compares against.
type monitorAlerts struct {
	runner *alert.Runner
	lat    *alert.Latencies
	tools  *toolWatch
	// settings are the alerts block in force at start, to tell a reload
	// that changes it from one that does not.
	settings *config.Alerts
}

// startAlerts starts evaluating the alert rules of cfg (the defaults when
// it has none) over rt, delivering to webhookFlag, else the configured
// webhook, else nowhere (the log still says what fires and resolves).
// metricsURL, when monitor serves metrics, goes into the payload as where
// the alerts come from.
func startAlerts(ctx context.Context, log *slog.Logger, rt *runtime.Controller, cfg *config.Config, webhookFlag, metricsURL string) (*monitorAlerts, error) {
	a := &monitorAlerts{lat: alert.NewLatencies(), tools: newToolWatch(), settings: cfg.Alerts}
	settings := alert.Settings{Labels: map[string]string{alert.LabelInstance: hostName()}}
	interval := config.DefaultAlertEvaluationInterval
	var hook *config.AlertWebhook
	if al := cfg.Alerts; al != nil {
		if al.HasRules {
			settings.Rules = al.Rules
		}
		maps.Copy(settings.Labels, al.Labels)
		settings.Repeat, interval, hook = al.RepeatInterval, al.EvaluationInterval, al.Webhook
	}
	if webhookFlag != "" {
		u, err := url.Parse(webhookFlag)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, withCode(ExitUsage, fmt.Errorf("--alert-webhook %q: give the receiver's http:// or https:// URL", webhookFlag))
		}
		hook = &config.AlertWebhook{URL: webhookFlag, Timeout: config.DefaultAlertWebhookTimeout}
		if cfg.Alerts != nil && cfg.Alerts.Webhook != nil {
			hook.Headers = cfg.Alerts.Webhook.Headers
		}
	}
	opts := alert.Options{
		Settings: settings, Interval: interval, Latencies: a.lat, Logger: log,
		Servers:  func() []alert.Server { return a.observe(rt.Snapshot()) },
		OnChange: func(al alert.Alert) { logAlert(log, al) },
	}
	if hook != nil {
		opts.Webhook = &alert.Webhook{URL: hook.URL, Headers: hook.Headers, Timeout: hook.Timeout,
			UserAgent: "mcpdeck/" + version(), ExternalURL: metricsURL, GeneratorURL: metricsURL}
	}
	a.runner = alert.Start(ctx, opts)
	names := make([]string, 0, len(a.runner.Rules()))
	for _, r := range a.runner.Rules() {
		names = append(names, r.Name)
	}
	attrs := []any{"rules", names, "defaults", settings.Rules == nil}
	if hook != nil {
		attrs = append(attrs, "webhook", alert.RedactURL(hook.URL))
	}
	log.Info("evaluating alert rules", attrs...)
	return a, nil
}

// stop stops the evaluation; an alert being delivered is given up.
func (a *monitorAlerts) stop() {
	if a != nil {
		a.runner.Stop()
	}
}

// reloaded warns when a reload changed the alerts block: the rules in
// force are those read at start.
func (a *monitorAlerts) reloaded(log *slog.Logger, cfg *config.Config) {
	if a == nil || alertsEqual(a.settings, cfg.Alerts) {
		return
	}
	log.Warn("the alerts block changed; restart monitor to apply it (the rules read at start stay in force)")
	a.settings = cfg.Alerts
}

func alertsEqual(x, y *config.Alerts) bool {
	if x == nil || y == nil {
		return x == y
	}
	a, b := *x, *y
	a.Pos, b.Pos = config.Position{}, config.Position{}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// event feeds the latency rules from the runtime's events.
func (a *monitorAlerts) event(ev runtime.Event) {
	if a == nil {
		return
	}
	switch e := ev.(type) {
	case runtime.HealthChecked:
		if e.OK {
			a.lat.Observe(e.Server, e.Method, true, e.Latency, e.Time)
		}
	case runtime.RequestFinished:
		if e.Err == "" {
			a.lat.Observe(e.Server, e.Method, false, e.Duration, e.Time)
		}
	}
}

// observe turns a snapshot into what the rules look at.
func (a *monitorAlerts) observe(snap *runtime.Snapshot) []alert.Server {
	out := make([]alert.Server, 0, len(snap.Servers))
	for _, v := range snap.Servers {
		if !v.Enabled {
			continue
		}
		s := alert.Server{Name: v.Name, State: v.State.Name(), Reason: v.Reason, GaveUp: v.GaveUp,
			NeedsLogin:   v.State == runtime.StateFailed && v.LastError != nil && v.LastError.Kind == runtime.KindNeedsLogin,
			ChangedTools: a.tools.changed(v)}
		out = append(out, s)
	}
	return out
}

// toolWatch is the tool_changed rule's hook: which of a server's tools
// differ from the definition approved (pinned) for them, as the runtime
// marks them (Tool.Changed): a change made while monitor was not running
// fires too, and accepting it (mcpdeck tools accept) resolves it.
type toolWatch struct {
	mu sync.Mutex
	// last is each server's answer while it was live: a server that is
	// reconnecting lists no tools for a moment, and its changed tools
	// stay changed meanwhile rather than resolving.
	last map[string][]string
}

func newToolWatch() *toolWatch {
	return &toolWatch{last: map[string][]string{}}
}

// changed returns the tools of v changed since they were approved.
func (w *toolWatch) changed(v runtime.ServerSnapshot) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !v.State.Live() {
		return w.last[v.Name]
	}
	var out []string
	for _, t := range v.Tools {
		if t.Changed != nil {
			out = append(out, t.ServerTool)
		}
	}
	slices.Sort(out)
	w.last[v.Name] = out
	return out
}

// logAlert writes an alert that began firing or resolved.
func logAlert(log *slog.Logger, a alert.Alert) {
	level, msg := slog.LevelWarn, "alert firing"
	if a.Status == alert.StatusResolved {
		level, msg = slog.LevelInfo, "alert resolved"
	}
	log.Log(context.Background(), level, msg, "alert", a.Labels[alert.LabelAlertName], "server", a.Labels[alert.LabelServer],
		"severity", a.Labels[alert.LabelSeverity], "summary", a.Annotations["summary"], "description", a.Annotations["description"],
		"fingerprint", a.Fingerprint, "labels", a.Labels)
}

// hostName is the instance label of monitor's alerts.
func hostName() string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "unknown"
}
