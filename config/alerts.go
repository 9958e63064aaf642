package config

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tailscale/hujson"
)

// Defaults of the alerts block.
const (
	// DefaultAlertRepeatInterval is how often a firing alert is sent again,
	// as Alertmanager's repeat_interval.
	DefaultAlertRepeatInterval = 4 * time.Hour
	// DefaultAlertEvaluationInterval is how often mcpdeck monitor evaluates
	// the rules.
	DefaultAlertEvaluationInterval = 5 * time.Second
	// DefaultAlertWebhookTimeout bounds one webhook POST.
	DefaultAlertWebhookTimeout = 10 * time.Second
	// DefaultAlertLatencyWindow is the window a latency rule's p95 is
	// taken over.
	DefaultAlertLatencyWindow = 5 * time.Minute
)

// AlertCondition is what an alert rule watches.
type AlertCondition string

// The conditions a rule can watch.
const (
	// AlertFailed: the server is failed.
	AlertFailed AlertCondition = "failed"
	// AlertDegraded: the server missed health checks and is degraded.
	AlertDegraded AlertCondition = "degraded"
	// AlertGaveUp: automatic reconnecting gave up on the server.
	AlertGaveUp AlertCondition = "reconnects_given_up"
	// AlertLatency: the p95 latency of the server's requests (or of its
	// health checks) over the rule's window is above the threshold.
	AlertLatency AlertCondition = "latency_p95"
	// AlertToolChanged: a tool's definition changed.
	AlertToolChanged AlertCondition = "tool_changed"
	// AlertLoginExpired: the server needs an MCP authorization login.
	AlertLoginExpired AlertCondition = "login_expired"
)

// AlertConditions lists every condition, for messages and documentation.
var AlertConditions = []AlertCondition{AlertFailed, AlertDegraded, AlertGaveUp, AlertLatency, AlertToolChanged, AlertLoginExpired}

// Alerts is the "alerts" block of mcp.json: the rules mcpdeck monitor
// evaluates and where it sends what fires. The nearest file's block is used.
type Alerts struct {
	// Webhook receives every firing and resolved alert (Alertmanager's
	// webhook payload); nil when none is configured here. Read only from
	// --config and user files.
	Webhook *AlertWebhook
	// RepeatInterval is how often a firing alert is sent again.
	RepeatInterval time.Duration
	// EvaluationInterval is how often the rules are evaluated.
	EvaluationInterval time.Duration
	// Labels are added to every alert (a team, an environment).
	Labels map[string]string
	// Rules are the rules in force. HasRules is false when the block names
	// none: then the defaults apply. "rules": [] turns every rule off.
	Rules    []AlertRule
	HasRules bool
	Source   string
	Pos      Position
}

// AlertWebhook is where alerts are POSTed.
type AlertWebhook struct {
	URL     string
	Headers map[string]string
	Timeout time.Duration
	Pos     Position
}

// AlertRule is one rule: fire Name when Condition holds for a server for
// at least For.
type AlertRule struct {
	// Name is the alert's name (its alertname label).
	Name      string
	Condition AlertCondition
	// For is how long the condition must hold before the alert fires
	// (until then it is pending); 0 fires at once.
	For time.Duration
	// Threshold is a latency rule's bound on the p95.
	Threshold time.Duration
	// Window is the span of time a latency rule's p95 is taken over.
	Window time.Duration
	// Method narrows a latency rule to one request method ("ping" for the
	// health checks, "tools/call", ...); "" takes every request.
	Method string
	// Servers are globs on server names the rule applies to; none means all.
	Servers []string
	// Severity is the severity label; "" means the condition's default.
	Severity    string
	Labels      map[string]string
	Annotations map[string]string
	Field       string // "alerts.rules[N]", for messages
	Pos         Position
}

// AppliesTo reports whether the rule watches the server called name.
func (r AlertRule) AppliesTo(name string) bool {
	if len(r.Servers) == 0 {
		return true
	}
	for _, g := range r.Servers {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

var (
	alertFields     = []string{"webhook", "repeatInterval", "evaluationInterval", "labels", "rules"}
	alertRuleFields = []string{"alert", "condition", "for", "threshold", "window", "method", "servers", "severity", "labels", "annotations"}
	webhookFields   = []string{"url", "headers", "timeout"}
	// labelName is Prometheus's label name rule, which Alertmanager keeps.
	labelName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
)

// parseAlerts reads the "alerts" block of a file.
func (p *parser) parseAlerts(m *member) *Alerts {
	if m == nil {
		return nil
	}
	const field = "alerts"
	obj, ok := p.object(m.value, "", field, `an object like {"webhook": "https://...", "rules": [...]}`)
	if !ok {
		return nil
	}
	a := &Alerts{Source: p.path, Pos: p.pos(m.keyOff), RepeatInterval: DefaultAlertRepeatInterval, EvaluationInterval: DefaultAlertEvaluationInterval}
	for _, am := range p.members(obj, "", field) {
		f := field + "." + am.name
		switch am.name {
		case "webhook":
			if p.untrusted(am, f, "a project must not choose where alerts are sent; put it in your user mcp.json or a --config file, or use monitor --alert-webhook") {
				continue
			}
			a.Webhook = p.alertWebhook(am.value, f)
		case "repeatInterval":
			a.RepeatInterval, _ = p.duration(am.value, "", f, DefaultAlertRepeatInterval, false)
		case "evaluationInterval":
			a.EvaluationInterval, _ = p.duration(am.value, "", f, DefaultAlertEvaluationInterval, false)
		case "labels":
			a.Labels = p.alertLabels(am.value, f)
		case "rules":
			a.Rules, a.HasRules = p.alertRules(am.value, f), true
		default:
			p.unknown(am.keyOff, "", f, am.name, alertFields, "known: "+strings.Join(alertFields, ", "))
		}
	}
	return a
}

// alertWebhook reads "webhook": a URL, or {"url", "headers", "timeout"}.
func (p *parser) alertWebhook(v *hujson.Value, field string) *AlertWebhook {
	w := &AlertWebhook{Timeout: DefaultAlertWebhookTimeout, Pos: p.pos(v.StartOffset)}
	if lit, ok := v.Value.(hujson.Literal); ok && lit.Kind() == '"' {
		w.URL = p.webhookURL(v, lit.String(), field)
		if w.URL == "" {
			return nil
		}
		return w
	}
	obj, ok := p.object(v, "", field, `a URL or an object like {"url": "https://...", "headers": {"Authorization": "Bearer ${env:TOKEN}"}}`)
	if !ok {
		return nil
	}
	for _, m := range p.members(obj, "", field) {
		f := field + "." + m.name
		switch m.name {
		case "url":
			if s, ok := p.str(m.value, "", f); ok {
				w.URL = p.webhookURL(m.value, s, f)
			}
		case "headers":
			ms, hs, _ := p.stringMap(m.value, "", f)
			w.Headers = map[string]string{}
			for _, hm := range ms {
				x := p.exp.expand(hs[hm.name], false)
				for _, msg := range x.problems {
					p.errorf(hm.value.StartOffset, "", f+"."+hm.name, "%s", msg)
				}
				w.Headers[hm.name] = x.value
			}
		case "timeout":
			w.Timeout, _ = p.duration(m.value, "", f, DefaultAlertWebhookTimeout, false)
		default:
			p.unknown(m.keyOff, "", f, m.name, webhookFields, "known: "+strings.Join(webhookFields, ", "))
		}
	}
	if w.URL == "" {
		p.errorf(v.StartOffset, "", field, `has no usable "url": give the http:// or https:// URL alerts are POSTed to`)
		return nil
	}
	return w
}

// webhookURL expands and checks a webhook URL; "" when it is unusable.
func (p *parser) webhookURL(v *hujson.Value, raw, field string) string {
	x := p.exp.expand(raw, false)
	for _, msg := range x.problems {
		p.errorf(v.StartOffset, "", field, "%s", msg)
	}
	u, err := url.Parse(x.value)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.errorf(v.StartOffset, "", field, "%q is not an http:// or https:// URL", raw)
		return ""
	}
	return x.value
}

// alertLabels reads a labels object; names follow Prometheus's rule.
func (p *parser) alertLabels(v *hujson.Value, field string) map[string]string {
	ms, out, _ := p.stringMap(v, "", field)
	for _, m := range ms {
		if !labelName().MatchString(m.name) {
			p.errorf(m.keyOff, "", field+"."+m.name, "%q is not a label name: use letters, digits and _, not starting with a digit", m.name)
			delete(out, m.name)
		}
	}
	return out
}

// alertRules reads "rules": an array of rule objects.
func (p *parser) alertRules(v *hujson.Value, field string) []AlertRule {
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		p.errorf(v.StartOffset, "", field, `must be an array of {"alert": NAME, "condition": ...} objects, not %s`, kindName(v.Value.Kind()))
		return nil
	}
	out := []AlertRule{}
	names := map[string]string{}
	for i := range arr.Elements {
		el := &arr.Elements[i]
		f := fmt.Sprintf("%s[%d]", field, i)
		r, ok := p.alertRule(el, f)
		if !ok {
			continue
		}
		if prev, dup := names[r.Name]; dup {
			p.errorf(el.StartOffset, "", f+".alert", "%q is already the name of %s; give each rule its own name", r.Name, prev)
			continue
		}
		names[r.Name] = f
		out = append(out, r)
	}
	return out
}

func (p *parser) alertRule(v *hujson.Value, field string) (AlertRule, bool) {
	obj, ok := p.object(v, "", field, `an object like {"alert": "MCPServerDown", "condition": "failed", "for": "1m"}`)
	if !ok {
		return AlertRule{}, false
	}
	r := AlertRule{Field: field, Pos: p.pos(v.StartOffset)}
	good := true
	thresholdOff := -1
	for _, m := range p.members(obj, "", field) {
		f := field + "." + m.name
		switch m.name {
		case "alert":
			s, ok := p.str(m.value, "", f)
			if ok && !labelName().MatchString(s) {
				p.errorf(m.value.StartOffset, "", f, "%q is not a usable alert name: use letters, digits and _ (e.g. MCPServerDown)", s)
				ok = false
			}
			good = good && ok
			r.Name = s
		case "condition":
			s, ok := p.str(m.value, "", f)
			if !ok {
				good = false
				continue
			}
			r.Condition = AlertCondition(s)
			if !slices.Contains(AlertConditions, r.Condition) {
				hint := "use one of " + conditionList()
				if near := nearest(s, strings.Split(conditionList(), ", ")); near != "" {
					hint = "did you mean " + near + "?"
				}
				p.errorf(m.value.StartOffset, "", f, "%q is not a condition; %s", s, hint)
				good = false
			}
		case "for":
			d, ok := p.duration(m.value, "", f, 0, false)
			good = good && ok
			r.For = d
		case "threshold":
			d, ok := p.duration(m.value, "", f, 0, false)
			good = good && ok
			r.Threshold, thresholdOff = d, m.value.StartOffset
		case "window":
			d, ok := p.duration(m.value, "", f, DefaultAlertLatencyWindow, false)
			good = good && ok
			r.Window = d
		case "method":
			r.Method, _ = p.str(m.value, "", f)
			p.checkAlertMethod(m.value.StartOffset, f, r.Method)
		case "servers":
			list, offs, ok := p.stringList(m.value, "", f)
			good = good && ok
			for i, g := range list {
				if _, err := path.Match(g, ""); err != nil || g == "" {
					p.errorf(offs[i], "", fmt.Sprintf("%s[%d]", f, i), "%q is not a valid glob (use *, ? and [a-z])", g)
					good = false
				}
			}
			r.Servers = list
		case "severity":
			r.Severity, _ = p.str(m.value, "", f)
		case "labels":
			r.Labels = p.alertLabels(m.value, f)
		case "annotations":
			_, r.Annotations, _ = p.stringMap(m.value, "", f)
		default:
			p.unknown(m.keyOff, "", f, m.name, alertRuleFields, "known: "+strings.Join(alertRuleFields, ", "))
		}
	}
	switch {
	case r.Name == "" && good:
		p.errorf(v.StartOffset, "", field, `has no "alert": name the alert, e.g. "MCPServerDown"`)
		return r, false
	case r.Condition == "" && good:
		p.errorf(v.StartOffset, "", field, `has no "condition": say what it watches (%s)`, conditionList())
		return r, false
	case !good:
		return r, false
	}
	if r.Condition == AlertLatency {
		if r.Threshold <= 0 {
			p.errorf(v.StartOffset, "", field, `a latency_p95 rule needs "threshold", the bound on the p95, e.g. "2s"`)
			return r, false
		}
		if r.Window == 0 {
			r.Window = DefaultAlertLatencyWindow
		}
	} else if thresholdOff >= 0 || r.Method != "" {
		p.errorf(v.StartOffset, "", field, `"threshold" and "method" apply to latency_p95 rules only, not %s`, r.Condition)
		return r, false
	}
	if r.Window > 0 && r.Condition != AlertLatency {
		p.errorf(v.StartOffset, "", field, `"window" applies to latency_p95 rules only, not %s`, r.Condition)
		return r, false
	}
	return r, true
}

// alertMethods are the methods whose round trips a latency rule can
// watch: "health" (the health checks), and the requests mcpdeck sends.
var alertMethods = []string{"health", "ping", "server/discover", "initialize", "tools/list", "tools/call",
	"prompts/list", "prompts/get", "resources/list", "resources/templates/list", "resources/read",
	"resources/subscribe", "resources/unsubscribe", "completion/complete", "logging/setLevel",
	"subscriptions/listen", "tasks/get", "tasks/result", "tasks/list", "tasks/cancel"}

// checkAlertMethod warns of a latency rule's method that mcpdeck never
// sends ("tools/cal"): the rule would watch nothing and never fire. A
// warning, not an error: a later revision may add methods.
func (p *parser) checkAlertMethod(off int, field, method string) {
	if method == "" || slices.Contains(alertMethods, method) {
		return
	}
	if near := nearest(method, alertMethods); near != "" {
		p.warnf(off, "", field, "%q is no method mcpdeck sends (did you mean %s?): the rule watches nothing", method, near)
	} else {
		p.warnf(off, "", field, "%q is no method mcpdeck sends (%s): the rule watches nothing", method, strings.Join(alertMethods, ", "))
	}
	p.warns[len(p.warns)-1].Loud = true
}

func conditionList() string {
	var out []string
	for _, c := range AlertConditions {
		out = append(out, string(c))
	}
	return strings.Join(out, ", ")
}
