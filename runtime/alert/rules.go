// Package alert owns mcpdeck monitor's alerting: rules over the servers'
// states, health-check and request latencies, tool definitions and logins
// (config.AlertRule), evaluated the way Prometheus evaluates alerting rules
// (pending until the condition has held for the rule's "for", then firing,
// then resolved), and every firing and resolved alert sent to a webhook in
// Alertmanager's webhook payload, so whatever already receives
// Alertmanager's notifications receives mcpdeck's.
//
// The Engine is pure: it is given the time and what the runtime looks like
// and returns what changed and what is due for delivery; it does no I/O and
// starts nothing. The Runner drives it on a ticker and delivers through a
// Webhook on a goroutine of its own, so a slow or dead receiver never holds
// up the evaluation.
package alert

import (
	"time"

	"mcpdeck/config"
)

// Labels this package puts on every alert.
const (
	LabelAlertName = "alertname"
	LabelSeverity  = "severity"
	// LabelServer is the server's name, spelled as on mcpdeck's metrics so
	// an alert and its series join on it.
	LabelServer = "mcpdeck_server_name"
	// LabelTool names the tool of a tool_changed alert, as on the metrics.
	LabelTool = "gen_ai_tool_name"
	// LabelInstance is the host monitor runs on (its host name unless
	// the alerts block's labels say otherwise), as Prometheus's instance.
	LabelInstance = "instance"
)

// Severities of the default rules.
const (
	SeverityCritical = "critical"
	SeverityWarning  = "warning"
)

// HealthMethod is a latency rule's method for the health checks (ping, or
// server/discover on servers without ping).
const HealthMethod = "health"

// DefaultRules are the rules in force when the configuration names none.
// Their names are those of the shipped Prometheus rules that watch the
// same thing, so one alert reads the same from either source.
func DefaultRules() []config.AlertRule {
	return []config.AlertRule{
		{Name: "MCPServerFailed", Condition: config.AlertFailed, For: time.Minute, Severity: SeverityCritical},
		{Name: "MCPServerDegraded", Condition: config.AlertDegraded, For: 2 * time.Minute, Severity: SeverityWarning},
		{Name: "MCPServerReconnectsGivenUp", Condition: config.AlertGaveUp, Severity: SeverityCritical},
		{Name: "MCPServerHealthCheckSlow", Condition: config.AlertLatency, Method: HealthMethod, Threshold: time.Second,
			Window: config.DefaultAlertLatencyWindow, For: 5 * time.Minute, Severity: SeverityWarning},
		{Name: "MCPServerRequestsSlow", Condition: config.AlertLatency, Threshold: 10 * time.Second,
			Window: config.DefaultAlertLatencyWindow, For: 5 * time.Minute, Severity: SeverityWarning},
		{Name: "MCPToolDefinitionChanged", Condition: config.AlertToolChanged, Severity: SeverityWarning},
		{Name: "MCPServerLoginExpired", Condition: config.AlertLoginExpired, Severity: SeverityCritical},
	}
}

// defaultSeverity is a rule's severity when it names none.
func defaultSeverity(c config.AlertCondition) string {
	switch c {
	case config.AlertFailed, config.AlertGaveUp, config.AlertLoginExpired:
		return SeverityCritical
	}
	return SeverityWarning
}

// Server is what the Engine needs to know of one server at an evaluation.
type Server struct {
	Name string
	// State is the runtime's state name (ready, degraded, failed, ...).
	State string
	// Reason is why it failed, for the alert's description.
	Reason string
	// GaveUp: automatic reconnecting stopped trying.
	GaveUp bool
	// NeedsLogin: the server requires an MCP authorization login (the
	// stored token expired or was revoked, or there never was one).
	NeedsLogin bool
	// ChangedTools are the tools whose definition changed (see the
	// monitor's ToolWatch for where that comes from).
	ChangedTools []string
}
