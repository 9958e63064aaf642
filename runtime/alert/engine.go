package alert

import (
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"mcpdeck/config"
)

// Statuses of an alert, as Alertmanager spells them.
const (
	StatusFiring   = "firing"
	StatusResolved = "resolved"
)

// Alert is one alert as it is sent.
type Alert struct {
	Status      string
	Labels      map[string]string
	Annotations map[string]string
	// StartsAt is when it began firing; EndsAt when it resolved (zero
	// while firing).
	StartsAt, EndsAt time.Time
	// Fingerprint identifies the alert by its labels, computed as
	// Alertmanager computes it: the dedup key of its notifications.
	Fingerprint string
}

// Settings configure an Engine.
type Settings struct {
	// Rules are evaluated in order; nil means DefaultRules.
	Rules []config.AlertRule
	// Labels go on every alert (instance, team, ...); a rule's own labels
	// win over them.
	Labels map[string]string
	// Repeat is how often a firing alert is delivered again; 0 means
	// config.DefaultAlertRepeatInterval.
	Repeat time.Duration
}

// Engine evaluates the rules. It is not safe for concurrent use: one
// goroutine (the Runner's) owns it.
type Engine struct {
	rules  []config.AlertRule
	labels map[string]string
	repeat time.Duration
	lat    *Latencies

	// active are the alerts pending or firing, by key.
	active map[string]*state
	// undelivered are resolved alerts whose delivery has not succeeded
	// yet, by fingerprint: they are due until Delivered says otherwise.
	undelivered map[string]Alert
}

// state is one pending or firing alert.
type state struct {
	alert Alert
	// since is when the condition began to hold (pending from then on).
	since time.Time
	// firing is set once it has held for the rule's "for".
	firing bool
	// delivered is when the firing alert was last delivered; zero
	// when it has not been yet.
	delivered time.Time
}

// NewEngine builds an engine over s, reading latencies from lat (which may
// be nil when no rule needs them).
func NewEngine(s Settings, lat *Latencies) *Engine {
	rules := s.Rules
	if rules == nil {
		rules = DefaultRules()
	}
	if lat == nil {
		lat = NewLatencies()
	}
	if s.Repeat <= 0 {
		s.Repeat = config.DefaultAlertRepeatInterval
	}
	return &Engine{rules: rules, labels: s.Labels, repeat: s.Repeat, lat: lat, active: map[string]*state{}, undelivered: map[string]Alert{}}
}

// Rules are the rules in force.
func (e *Engine) Rules() []config.AlertRule { return e.rules }

// Result is what one evaluation found.
type Result struct {
	// Changed are the alerts that began firing or resolved at this
	// evaluation, for the log.
	Changed []Alert
	// Due are the alerts to deliver now: the changed ones, firing ones
	// whose repeat interval has passed since they were last delivered,
	// and every one whose delivery has not succeeded yet.
	Due []Alert
}

// finding is one alert a rule raises at an evaluation.
type finding struct {
	key         string
	labels      map[string]string
	annotations map[string]string
}

// Evaluate applies every rule to servers at now.
func (e *Engine) Evaluate(now time.Time, servers []Server) Result {
	var res Result
	seen := map[string]bool{}
	for _, r := range e.rules {
		for _, s := range servers {
			if !r.AppliesTo(s.Name) {
				continue
			}
			for _, f := range e.check(r, s, now) {
				seen[f.key] = true
				st := e.active[f.key]
				if st == nil {
					st = &state{since: now}
					e.active[f.key] = st
				}
				st.alert.Labels, st.alert.Annotations = f.labels, f.annotations
				st.alert.Fingerprint = fingerprint(f.labels)
				if !st.firing && now.Sub(st.since) >= r.For {
					st.firing = true
					st.alert.Status, st.alert.StartsAt = StatusFiring, now
					res.Changed = append(res.Changed, st.alert)
					// A resolution not yet delivered is stale now: the
					// receiver must end on this firing, not on it.
					delete(e.undelivered, st.alert.Fingerprint)
				}
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(e.active)) {
		st := e.active[key]
		if seen[key] {
			continue
		}
		delete(e.active, key)
		if !st.firing {
			continue // pending only: nothing was said, nothing to take back
		}
		a := st.alert
		a.Status, a.EndsAt = StatusResolved, now
		res.Changed = append(res.Changed, a)
		e.undelivered[a.Fingerprint] = a
	}
	for _, key := range slices.Sorted(maps.Keys(e.active)) {
		st := e.active[key]
		if st.firing && (st.delivered.IsZero() || now.Sub(st.delivered) >= e.repeat) {
			res.Due = append(res.Due, st.alert)
		}
	}
	for _, fp := range slices.Sorted(maps.Keys(e.undelivered)) {
		res.Due = append(res.Due, e.undelivered[fp])
	}
	return res
}

// Delivered records that a has reached the receiver at at: a firing alert
// is not due again until the repeat interval has passed, a resolved one
// never.
func (e *Engine) Delivered(a Alert, at time.Time) {
	if a.Status == StatusResolved {
		if u, ok := e.undelivered[a.Fingerprint]; ok && u.EndsAt.Equal(a.EndsAt) {
			delete(e.undelivered, a.Fingerprint)
		}
		return
	}
	for _, st := range e.active {
		if st.firing && st.alert.Fingerprint == a.Fingerprint && st.alert.StartsAt.Equal(a.StartsAt) {
			st.delivered = at
		}
	}
}

// Firing returns the alerts firing now, by name then labels.
func (e *Engine) Firing() []Alert {
	var out []Alert
	for _, key := range slices.Sorted(maps.Keys(e.active)) {
		if st := e.active[key]; st.firing {
			out = append(out, st.alert)
		}
	}
	return out
}

// maxUndelivered bounds the resolved alerts kept for a receiver that is
// down: past it the oldest are forgotten.
const maxUndelivered = 1024

// Forget drops resolved alerts that could not be delivered for longer
// than keep, and the oldest beyond maxUndelivered.
func (e *Engine) Forget(now time.Time, keep time.Duration) {
	var fps []string
	for fp, a := range e.undelivered {
		if now.Sub(a.EndsAt) > keep {
			delete(e.undelivered, fp)
			continue
		}
		fps = append(fps, fp)
	}
	if len(fps) <= maxUndelivered {
		return
	}
	sort.Slice(fps, func(i, j int) bool { return e.undelivered[fps[i]].EndsAt.Before(e.undelivered[fps[j]].EndsAt) })
	for _, fp := range fps[:len(fps)-maxUndelivered] {
		delete(e.undelivered, fp)
	}
}

// check applies one rule to one server.
func (e *Engine) check(r config.AlertRule, s Server, now time.Time) []finding {
	one := func(summary, description string) []finding {
		return []finding{e.finding(r, s, "", summary, description)}
	}
	switch r.Condition {
	case config.AlertFailed:
		if s.State == "failed" {
			return one(fmt.Sprintf("MCP server %s has failed", s.Name), withReason(fmt.Sprintf("%s is in the failed state", s.Name), s.Reason))
		}
	case config.AlertDegraded:
		if s.State == "degraded" {
			return one(fmt.Sprintf("MCP server %s is degraded", s.Name), fmt.Sprintf("%s is missing health checks", s.Name))
		}
	case config.AlertGaveUp:
		if s.GaveUp {
			return one(fmt.Sprintf("mcpdeck gave up reconnecting MCP server %s", s.Name),
				withReason(fmt.Sprintf("automatic reconnects of %s stopped; it stays down until reconnected or reloaded", s.Name), s.Reason))
		}
	case config.AlertLoginExpired:
		if s.NeedsLogin {
			return one(fmt.Sprintf("MCP server %s needs a new login", s.Name),
				fmt.Sprintf("%s requires MCP authorization and no usable token is stored; run: mcpdeck auth login %s", s.Name, s.Name))
		}
	case config.AlertLatency:
		p95, n := e.lat.P95(s.Name, r.Method, r.Window, now)
		if n > 0 && p95 > r.Threshold {
			what := "requests"
			switch r.Method {
			case HealthMethod:
				what = "health checks"
			case "":
			default:
				what = r.Method + " requests"
			}
			return one(fmt.Sprintf("MCP server %s is slow", s.Name),
				fmt.Sprintf("the p95 latency of %s's %s over %s is %s (%d samples), above %s", s.Name, what, r.Window, p95.Round(time.Millisecond), n, r.Threshold))
		}
	case config.AlertToolChanged:
		var out []finding
		for _, tool := range s.ChangedTools {
			out = append(out, e.finding(r, s, tool, fmt.Sprintf("tool %s of MCP server %s changed its definition", tool, s.Name),
				fmt.Sprintf("the definition of %s on %s is not the one approved; review it before agents use it", tool, s.Name)))
		}
		return out
	}
	return nil
}

func withReason(s, reason string) string {
	if reason == "" {
		return s
	}
	return s + ": " + reason
}

// finding builds one alert's labels and annotations: the engine's labels,
// then the rule's, then the identity labels nobody may override.
func (e *Engine) finding(r config.AlertRule, s Server, tool, summary, description string) finding {
	labels := map[string]string{}
	maps.Copy(labels, e.labels)
	maps.Copy(labels, r.Labels)
	severity := r.Severity
	if severity == "" {
		severity = defaultSeverity(r.Condition)
	}
	if _, set := r.Labels[LabelSeverity]; !set {
		labels[LabelSeverity] = severity
	}
	labels[LabelAlertName] = r.Name
	labels[LabelServer] = s.Name
	key := r.Name + "\x00" + s.Name
	if tool != "" {
		labels[LabelTool] = tool
		key += "\x00" + tool
	}
	annotations := map[string]string{"summary": summary, "description": description}
	maps.Copy(annotations, r.Annotations)
	return finding{key: key, labels: labels, annotations: annotations}
}

// fingerprint is Alertmanager's fingerprint of a label set (prometheus/
// common/model's LabelSet.Fingerprint, which linked the protobuf runtime
// into every mcpdeck start): FNV-1a 64 over each name and value in name
// order, each followed by the separator byte 0xff, as 16 hex digits.
func fingerprint(labels map[string]string) string {
	h := fnv.New64a()
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		h.Write([]byte(k))
		h.Write([]byte{0xff})
		h.Write([]byte(labels[k]))
		h.Write([]byte{0xff})
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// groupKey is the groupKey of an alert's notification: Alertmanager's form
// for the root route grouped by every label ("{}:{k=\"v\", ...}"), so each
// alert is its own group.
func groupKey(labels map[string]string) string {
	keys := slices.Sorted(maps.Keys(labels))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%q", k, labels[k])
	}
	return "{}:{" + strings.Join(parts, ", ") + "}"
}
