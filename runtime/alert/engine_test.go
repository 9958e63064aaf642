package alert

import (
	"testing"
	"time"

	"mcpdeck/config"
)

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func names(as []Alert) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Status+" "+a.Labels[LabelAlertName]+" "+a.Labels[LabelServer]+tool(a))
	}
	return out
}

func tool(a Alert) string {
	if t := a.Labels[LabelTool]; t != "" {
		return " " + t
	}
	return ""
}

func equal(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %q, want %q", what, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: got %q, want %q", what, got, want)
		}
	}
}

// A condition is pending until it has held for "for", then fires once,
// is due again only after the repeat interval, and resolves when it stops
// holding.
func TestEngineForRepeatResolve(t *testing.T) {
	e := NewEngine(Settings{Rules: []config.AlertRule{{Name: "Down", Condition: config.AlertFailed, For: time.Minute}},
		Labels: map[string]string{"instance": "host1"}, Repeat: time.Hour}, nil)
	failed := []Server{{Name: "db", State: "failed", Reason: "exited with status 1"}, {Name: "web", State: "ready"}}

	r := e.Evaluate(t0, failed)
	equal(t, "pending", names(r.Changed))
	equal(t, "pending due", names(r.Due))
	r = e.Evaluate(t0.Add(59*time.Second), failed)
	equal(t, "still pending", names(r.Changed))

	r = e.Evaluate(t0.Add(time.Minute), failed)
	equal(t, "fires", names(r.Changed), "firing Down db")
	equal(t, "fires due", names(r.Due), "firing Down db")
	a := r.Changed[0]
	if a.Labels["instance"] != "host1" || a.Labels[LabelSeverity] != SeverityCritical || a.StartsAt != t0.Add(time.Minute) ||
		a.Annotations["description"] != "db is in the failed state: exited with status 1" || a.Fingerprint == "" {
		t.Errorf("alert %+v", a)
	}

	// Not delivered: due at every evaluation.
	r = e.Evaluate(t0.Add(70*time.Second), failed)
	equal(t, "undelivered firing stays due", names(r.Due), "firing Down db")
	e.Delivered(r.Due[0], t0.Add(70*time.Second))
	r = e.Evaluate(t0.Add(80*time.Second), failed)
	equal(t, "delivered: not due", names(r.Due))
	r = e.Evaluate(t0.Add(70*time.Second+time.Hour), failed)
	equal(t, "repeat interval passed", names(r.Due), "firing Down db")
	e.Delivered(r.Due[0], t0.Add(70*time.Second+time.Hour))

	ok := []Server{{Name: "db", State: "ready"}, {Name: "web", State: "ready"}}
	end := t0.Add(2 * time.Hour)
	r = e.Evaluate(end, ok)
	equal(t, "resolves", names(r.Changed), "resolved Down db")
	if r.Changed[0].EndsAt != end || r.Changed[0].StartsAt != a.StartsAt || r.Changed[0].Fingerprint != a.Fingerprint {
		t.Errorf("resolved %+v", r.Changed[0])
	}
	equal(t, "resolved due", names(r.Due), "resolved Down db")
	r = e.Evaluate(end.Add(time.Second), ok)
	equal(t, "resolved stays due until delivered", names(r.Due), "resolved Down db")
	e.Delivered(r.Due[0], end.Add(time.Second))
	r = e.Evaluate(end.Add(2*time.Second), ok)
	equal(t, "nothing left", names(r.Due))

	// A condition that stops holding while pending says nothing.
	e.Evaluate(end.Add(3*time.Second), failed)
	r = e.Evaluate(end.Add(4*time.Second), ok)
	equal(t, "pending dropped silently", append(names(r.Changed), names(r.Due)...))
}

// Every condition, on the fields that raise it; default rules apply
// without configuration; servers globs narrow a rule.
func TestEngineConditions(t *testing.T) {
	lat := NewLatencies()
	for i := range 20 {
		lat.Observe("slow", "ping", true, 2*time.Second, t0.Add(-time.Duration(i)*time.Second))
		lat.Observe("slow", "tools/call", false, 100*time.Millisecond, t0.Add(-time.Duration(i)*time.Second))
		lat.Observe("fast", "ping", true, time.Millisecond, t0.Add(-time.Duration(i)*time.Second))
	}
	// An old slow ping outside the window changes nothing.
	lat.Observe("fast", "ping", true, time.Minute, t0.Add(-time.Hour))
	rules := []config.AlertRule{
		{Name: "Failed", Condition: config.AlertFailed},
		{Name: "Degraded", Condition: config.AlertDegraded},
		{Name: "GaveUp", Condition: config.AlertGaveUp},
		{Name: "Login", Condition: config.AlertLoginExpired},
		{Name: "Changed", Condition: config.AlertToolChanged},
		{Name: "SlowHealth", Condition: config.AlertLatency, Method: HealthMethod, Threshold: time.Second, Window: 5 * time.Minute},
		{Name: "SlowCalls", Condition: config.AlertLatency, Method: "tools/call", Threshold: time.Second, Window: 5 * time.Minute},
		{Name: "ProdOnly", Condition: config.AlertFailed, Servers: []string{"prod-*"}},
	}
	e := NewEngine(Settings{Rules: rules}, lat)
	r := e.Evaluate(t0, []Server{
		{Name: "a", State: "failed", GaveUp: true},
		{Name: "b", State: "degraded"},
		{Name: "c", State: "failed", NeedsLogin: true},
		{Name: "d", State: "ready", ChangedTools: []string{"echo", "add"}},
		{Name: "slow", State: "ready"},
		{Name: "fast", State: "ready"},
		{Name: "prod-1", State: "failed"},
	})
	equal(t, "conditions", names(r.Changed),
		"firing Failed a", "firing Failed c", "firing Failed prod-1",
		"firing Degraded b",
		"firing GaveUp a",
		"firing Login c",
		"firing Changed d echo", "firing Changed d add",
		"firing SlowHealth slow",
		"firing ProdOnly prod-1")
	for _, a := range r.Changed {
		if a.Labels[LabelAlertName] == "SlowHealth" && a.Annotations["description"] != "the p95 latency of slow's health checks over 5m0s is 2s (20 samples), above 1s" {
			t.Errorf("latency description %q", a.Annotations["description"])
		}
	}

	if got := len(NewEngine(Settings{}, nil).Rules()); got != len(DefaultRules()) || got < 6 {
		t.Errorf("default rules: %d", got)
	}
}

// A rule's labels and severity go on its alerts; the identity labels
// (alertname, server) cannot be overridden; annotations add to the
// defaults.
func TestEngineLabels(t *testing.T) {
	e := NewEngine(Settings{
		Rules: []config.AlertRule{{Name: "Down", Condition: config.AlertFailed, Severity: "page",
			Labels:      map[string]string{"team": "db", LabelServer: "spoof", "instance": "override"},
			Annotations: map[string]string{"runbook_url": "https://runbooks.example/down", "summary": "custom"}}},
		Labels: map[string]string{"instance": "host1", "env": "prod"},
	}, nil)
	a := e.Evaluate(t0, []Server{{Name: "db", State: "failed"}}).Changed[0]
	want := map[string]string{"alertname": "Down", "severity": "page", "team": "db", "env": "prod", "instance": "override", LabelServer: "db"}
	if len(a.Labels) != len(want) {
		t.Errorf("labels %v, want %v", a.Labels, want)
	}
	for k, v := range want {
		if a.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, a.Labels[k], v)
		}
	}
	if a.Annotations["summary"] != "custom" || a.Annotations["runbook_url"] == "" || a.Annotations["description"] == "" {
		t.Errorf("annotations %v", a.Annotations)
	}
}

// An alert that fires again before its resolution was delivered ends on
// the new firing: the stale resolution is dropped.
func TestEngineRefireDropsStaleResolution(t *testing.T) {
	e := NewEngine(Settings{Rules: []config.AlertRule{{Name: "Down", Condition: config.AlertFailed}}}, nil)
	down, up := []Server{{Name: "db", State: "failed"}}, []Server{{Name: "db", State: "ready"}}
	e.Evaluate(t0, down)
	e.Evaluate(t0.Add(time.Second), up)
	r := e.Evaluate(t0.Add(2*time.Second), down)
	equal(t, "due", names(r.Due), "firing Down db")
	if !r.Due[0].StartsAt.Equal(t0.Add(2 * time.Second)) {
		t.Errorf("startsAt %s", r.Due[0].StartsAt)
	}
}

// A receiver that stays down does not make the engine hold resolved
// alerts without bound.
func TestEngineForgetsUndelivered(t *testing.T) {
	e := NewEngine(Settings{Rules: []config.AlertRule{{Name: "Changed", Condition: config.AlertToolChanged}}}, nil)
	var tools []string
	for i := range maxUndelivered + 10 {
		tools = append(tools, "t"+time.Duration(i).String())
	}
	e.Evaluate(t0, []Server{{Name: "s", ChangedTools: tools}})
	e.Evaluate(t0.Add(time.Second), []Server{{Name: "s"}})
	e.Forget(t0.Add(time.Second), time.Hour)
	if n := len(e.undelivered); n != maxUndelivered {
		t.Errorf("kept %d undelivered, want %d", n, maxUndelivered)
	}
	e.Forget(t0.Add(2*time.Hour), time.Hour)
	if n := len(e.undelivered); n != 0 {
		t.Errorf("kept %d undelivered after a day", n)
	}
}

func TestLatencyP95(t *testing.T) {
	l := NewLatencies()
	for i := 1; i <= 100; i++ {
		l.Observe("s", "tools/call", false, time.Duration(i)*time.Millisecond, t0)
	}
	if p, n := l.P95("s", "", time.Minute, t0); p != 95*time.Millisecond || n != 100 {
		t.Errorf("p95 %s of %d", p, n)
	}
	if p, n := l.P95("s", HealthMethod, time.Minute, t0); p != 0 || n != 0 {
		t.Errorf("health p95 %s of %d", p, n)
	}
	l.Prune(t0.Add(time.Second))
	if _, n := l.P95("s", "", time.Hour, t0); n != 0 {
		t.Errorf("pruned, still %d", n)
	}
	for i := range maxSamples + 5 {
		l.Observe("s", "x", false, time.Duration(i), t0)
	}
	if _, n := l.P95("s", "", time.Minute, t0); n != maxSamples {
		t.Errorf("bounded to %d, kept %d", maxSamples, n)
	}
}
