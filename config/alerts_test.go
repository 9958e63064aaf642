package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAlertsBlock(t *testing.T) {
	cfg, err := loadGateway(t, "mon.json", `{
  "mcpServers": {"a": {"command": "x"}},
  "alerts": {
    "webhook": {"url": "https://hooks.example/${env:HOOK}", "headers": {"Authorization": "Bearer ${env:HOOK_TOKEN}"}, "timeout": "3s"},
    "repeatInterval": "1h",
    "evaluationInterval": 1000,
    "labels": {"team": "platform"},
    "rules": [
      {"alert": "Down", "condition": "failed", "for": "30s", "servers": ["prod-*"], "severity": "page"},
      {"alert": "Slow", "condition": "latency_p95", "threshold": "1.5s", "method": "ping",
       "labels": {"tier": "1"}, "annotations": {"runbook_url": "https://runbooks.example/slow"}}
    ]
  }
}`, map[string]string{"HOOK": "abc", "HOOK_TOKEN": "s3cret-token"})
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.Alerts
	if a == nil || a.Webhook == nil {
		t.Fatalf("alerts %+v", a)
	}
	if a.Webhook.URL != "https://hooks.example/abc" || a.Webhook.Headers["Authorization"] != "Bearer s3cret-token" || a.Webhook.Timeout != 3*time.Second {
		t.Errorf("webhook %+v", a.Webhook)
	}
	if a.RepeatInterval != time.Hour || a.EvaluationInterval != time.Second || a.Labels["team"] != "platform" {
		t.Errorf("repeat %s evaluation %s labels %v", a.RepeatInterval, a.EvaluationInterval, a.Labels)
	}
	if !a.HasRules || len(a.Rules) != 2 {
		t.Fatalf("rules %+v", a.Rules)
	}
	down, slow := a.Rules[0], a.Rules[1]
	if down.Name != "Down" || down.Condition != AlertFailed || down.For != 30*time.Second || down.Severity != "page" ||
		!down.AppliesTo("prod-db") || down.AppliesTo("dev-db") || down.Field != "alerts.rules[0]" || down.Pos.Line != 9 {
		t.Errorf("down %+v", down)
	}
	if slow.Threshold != 1500*time.Millisecond || slow.Window != DefaultAlertLatencyWindow || slow.Method != "ping" ||
		slow.Labels["tier"] != "1" || slow.Annotations["runbook_url"] == "" || !slow.AppliesTo("anything") {
		t.Errorf("slow %+v", slow)
	}
}

// No block: no alerts settings; a block without rules keeps the defaults
// (HasRules false); "rules": [] turns them off.
func TestAlertsDefaults(t *testing.T) {
	cfg, err := loadGateway(t, "a.json", `{"mcpServers": {"a": {"command": "x"}}}`, nil)
	if err != nil || cfg.Alerts != nil {
		t.Fatalf("no block: %+v %v", cfg.Alerts, err)
	}
	cfg, err = loadGateway(t, "a.json", `{"mcpServers": {}, "alerts": {"webhook": "http://127.0.0.1:9/hook"}}`, nil)
	if err != nil || cfg.Alerts.HasRules || cfg.Alerts.RepeatInterval != DefaultAlertRepeatInterval || cfg.Alerts.EvaluationInterval != DefaultAlertEvaluationInterval {
		t.Fatalf("webhook only: %+v %v", cfg.Alerts, err)
	}
	cfg, err = loadGateway(t, "a.json", `{"mcpServers": {}, "alerts": {"rules": []}}`, nil)
	if err != nil || !cfg.Alerts.HasRules || len(cfg.Alerts.Rules) != 0 {
		t.Fatalf("empty rules: %+v %v", cfg.Alerts, err)
	}
}

// Every mistake is reported at once, each with its file, line, column and
// field, and the message says what to write instead.
func TestAlertsErrors(t *testing.T) {
	_, err := loadGateway(t, "bad.json", `{
  "mcpServers": {},
  "alerts": {
    "webhook": "ftp://hooks.example",
    "repeatInterval": "often",
    "labels": {"9lives": "x"},
    "rules": [
      {"alert": "Down", "condition": "failed"},
      {"alert": "Typo", "condition": "faild"},
      {"condition": "failed"},
      {"alert": "Slow", "condition": "latency_p95"},
      {"alert": "Down", "condition": "degraded"},
      {"alert": "X", "condition": "failed", "threshold": "1s"},
      {"alert": "bad name", "condition": "failed"},
      {"alert": "G", "condition": "failed", "servers": ["[a-"]},
      "MCPServerDown"
    ]
  }
}`, nil)
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("want Errors, got %v", err)
	}
	text := err.Error()
	for _, want := range []string{
		`bad.json:4:16: field "alerts.webhook": "ftp://hooks.example" is not an http:// or https:// URL`,
		`bad.json:5:23: field "alerts.repeatInterval": "often" is not a duration`,
		`bad.json:6:16: field "alerts.labels.9lives": "9lives" is not a label name`,
		`bad.json:9:38: field "alerts.rules[1].condition": "faild" is not a condition; did you mean failed?`,
		`bad.json:10:7: field "alerts.rules[2]": has no "alert"`,
		`bad.json:11:7: field "alerts.rules[3]": a latency_p95 rule needs "threshold"`,
		`bad.json:12:7: field "alerts.rules[4].alert": "Down" is already the name of alerts.rules[0]`,
		`bad.json:13:7: field "alerts.rules[5]": "threshold" and "method" apply to latency_p95 rules only`,
		`bad.json:14:17: field "alerts.rules[6].alert": "bad name" is not a usable alert name`,
		`bad.json:15:57: field "alerts.rules[7].servers[0]": "[a-" is not a valid glob`,
		`bad.json:16:7: field "alerts.rules[8]": must be an object like`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in\n%s", want, text)
		}
	}
}

// A project file may bring rules but not a webhook (it would choose where
// a host's server names and errors go); the user's webhook still applies
// under the project's rules.
func TestAlertsWebhookNotFromProject(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user")
	if err := os.MkdirAll(user, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, ".mcp.json"), `{"mcpServers": {}, "alerts": {"webhook": "https://evil.example/", "rules": [{"alert": "P", "condition": "failed"}]}}`)
	write(filepath.Join(user, "mcp.json"), `{"mcpServers": {}, "alerts": {"webhook": "https://mine.example/hook"}}`)
	cfg, err := Load(LoadOptions{ProjectDir: dir, UserConfigDir: user, LookupEnv: fakeEnv(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Alerts == nil || cfg.Alerts.Webhook == nil || cfg.Alerts.Webhook.URL != "https://mine.example/hook" || len(cfg.Alerts.Rules) != 1 {
		t.Fatalf("alerts %+v webhook %+v", cfg.Alerts, cfg.Alerts.Webhook)
	}
	var warned bool
	for _, w := range cfg.Warnings {
		warned = warned || (w.Field == "alerts.webhook" && strings.Contains(w.Message, "a project must not choose where alerts are sent"))
	}
	if !warned {
		t.Errorf("no warning about the project's webhook: %v", cfg.Warnings)
	}
}

// A latency rule's method that mcpdeck never sends is a loud warning with
// the method meant: the rule would watch nothing and never fire.
func TestAlertsMethodTypo(t *testing.T) {
	cfg, err := loadGateway(t, "mon.json", `{
  "mcpServers": {"a": {"command": "x"}},
  "alerts": {"rules": [
    {"alert": "Slow", "condition": "latency_p95", "threshold": "1s", "method": "tools/cal"},
    {"alert": "Health", "condition": "latency_p95", "threshold": "1s", "method": "health"}
  ]}
}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	var warned []string
	for _, d := range cfg.Warnings {
		warned = append(warned, d.String())
		if !d.Loud {
			t.Errorf("not loud: %s", d)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], `mon.json:4:80: field "alerts.rules[0].method": "tools/cal" is no method mcpdeck sends (did you mean tools/call?)`) {
		t.Errorf("warnings: %q", warned)
	}
}
