package telemetry

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// dashboardPath is the Grafana dashboard shipped for these metrics.
var dashboardPath = filepath.Join("..", "..", "assets", "grafana", "mcpdeck.json")

// query is one PromQL expression of the dashboard, with the legend that
// names its series.
type query struct{ where, expr, legend string }

// dashboardQueries walks the dashboard's panels (rows included) and
// template variables.
func dashboardQueries(t *testing.T, raw []byte) []query {
	t.Helper()
	var d struct {
		Title      string            `json:"title"`
		UID        string            `json:"uid"`
		Panels     []json.RawMessage `json:"panels"`
		Templating struct {
			List []struct {
				Name  string          `json:"name"`
				Type  string          `json:"type"`
				Query json.RawMessage `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("%s is not valid JSON: %v", dashboardPath, err)
	}
	if d.Title == "" || d.UID == "" || len(d.Panels) == 0 {
		t.Fatalf("dashboard lacks a title, uid or panels")
	}
	var out []query
	type panel struct {
		Title   string            `json:"title"`
		Type    string            `json:"type"`
		Panels  []json.RawMessage `json:"panels"`
		Targets []struct {
			Expr   string `json:"expr"`
			Legend string `json:"legendFormat"`
		} `json:"targets"`
	}
	var walk func([]json.RawMessage)
	walk = func(ps []json.RawMessage) {
		for _, r := range ps {
			var p panel
			if err := json.Unmarshal(r, &p); err != nil {
				t.Fatalf("panel: %v", err)
			}
			if p.Type != "row" && len(p.Targets) == 0 {
				t.Errorf("panel %q has no query", p.Title)
			}
			for _, tg := range p.Targets {
				if strings.TrimSpace(tg.Expr) == "" {
					t.Errorf("panel %q has an empty query", p.Title)
				}
				out = append(out, query{where: "panel " + p.Title, expr: tg.Expr, legend: tg.Legend})
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q struct {
			Query string `json:"query"`
		}
		if json.Unmarshal(v.Query, &q) != nil {
			_ = json.Unmarshal(v.Query, &q.Query)
		}
		out = append(out, query{where: "variable " + v.Name, expr: q.Query})
	}
	return out
}

var (
	matcherBlock = regexp.MustCompile(`\{([^{}]*)\}`)
	matcherLabel = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)`)
	grouping     = regexp.MustCompile(`\b(?:by|without)\s*\(([^)]*)\)`)
	labelValues  = regexp.MustCompile(`label_values\((.*),\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)`)
	ourMetric    = regexp.MustCompile(`\b(?:mcp|mcpdeck)_[A-Za-z0-9_]+\b`)
	legendLabel  = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)
)

// parseQuery splits a PromQL expression into the metric names and the
// label names it uses.
func parseQuery(expr string) (metrics, labels []string) {
	if m := labelValues.FindStringSubmatch(expr); m != nil {
		labels = append(labels, m[2])
		expr = m[1]
	}
	for _, m := range matcherBlock.FindAllStringSubmatch(expr, -1) {
		for _, l := range matcherLabel.FindAllStringSubmatch(m[1], -1) {
			labels = append(labels, l[1])
		}
	}
	expr = matcherBlock.ReplaceAllString(expr, " ")
	for _, m := range grouping.FindAllStringSubmatch(expr, -1) {
		for _, l := range strings.Split(m[1], ",") {
			if l = strings.TrimSpace(l); l != "" {
				labels = append(labels, l)
			}
		}
	}
	expr = grouping.ReplaceAllString(expr, " ")
	metrics = ourMetric.FindAllString(expr, -1)
	return metrics, labels
}

// TestGrafanaDashboard: the dashboard is valid JSON, every metric it
// queries is one this package exports with that type, and every label it
// filters, groups or names series by exists on those metrics in a real
// scrape.
func TestGrafanaDashboard(t *testing.T) {
	raw, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	queries := dashboardQueries(t, raw)

	// A scrape where every metric and label exists.
	clearOTelEnv(t)
	src := &fakeSource{gw: GatewayStats{Clients: 1, Calls: 1}}
	src.set(ServerStats{Server: "demo", State: "ready", Transport: "stdio", ProtocolVersion: "2025-11-25", Era: EraLegacy,
		LastError: "demo: ping timed out", LastErrorKind: "timeout", LastErrorAt: time.Now()})
	tel := newTelemetry(t, Options{Metrics: true, Source: src.servers, Gateway: src.gateway})
	recordSample(tel)
	ms, err := tel.ServeMetrics(t.Context(), "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	fams := scrape(t, ms.URL())
	types := map[string]string{}
	for _, pm := range PromNames() {
		types[pm.Name] = pm.Type
	}
	// family resolves a series name to its family: a histogram's _bucket,
	// _count and _sum belong to it.
	family := func(name string) (*dto.MetricFamily, bool) {
		if _, ok := types[name]; ok {
			return fams[name], true
		}
		for _, suffix := range []string{"_bucket", "_count", "_sum"} {
			base, ok := strings.CutSuffix(name, suffix)
			if ok && types[base] == "histogram" {
				return fams[base], true
			}
		}
		return nil, false
	}

	used := map[string]bool{}
	covers := map[string]bool{}
	for _, q := range queries {
		metrics, labels := parseQuery(q.expr)
		if len(metrics) == 0 {
			t.Errorf("%s: %q queries none of mcpdeck's metrics", q.where, q.expr)
		}
		for _, m := range legendLabel.FindAllStringSubmatch(q.legend, -1) {
			labels = append(labels, m[1])
		}
		have := map[string]bool{"instance": true, "job": true}
		for _, name := range metrics {
			fam, ok := family(name)
			if !ok {
				t.Errorf("%s: %s is not a metric mcpdeck exports (%q)", q.where, name, q.expr)
				continue
			}
			if fam == nil {
				t.Errorf("%s: %s is missing from the scrape", q.where, name)
				continue
			}
			used[fam.GetName()] = true
			if fam.GetType() == dto.MetricType_HISTOGRAM {
				have["le"] = true
			}
			for _, m := range fam.GetMetric() {
				for l := range labelsOf(m) {
					have[l] = true
				}
			}
		}
		for _, l := range labels {
			if !have[l] {
				t.Errorf("%s: label %s is on none of %v (%q)", q.where, l, metrics, q.expr)
			}
		}
		switch {
		case strings.Contains(q.expr, "mcpdeck_server_state"):
			covers["server states"] = true
		case strings.Contains(q.expr, "histogram_quantile(0.95") && slices.Contains(labels, "mcpdeck_server_name"):
			covers["p95 per server"] = true
		case strings.Contains(q.expr, "histogram_quantile(0.5") && slices.Contains(labels, "mcpdeck_server_name"):
			covers["p50 per server"] = true
		case strings.Contains(q.expr, `error_type!=""`) && slices.Contains(labels, "gen_ai_tool_name") && strings.Contains(q.expr, " / "):
			covers["error rate per tool"] = true
		}
	}
	for _, want := range []string{"server states", "p50 per server", "p95 per server", "error rate per tool"} {
		if !covers[want] {
			t.Errorf("no panel shows %s", want)
		}
	}
	for _, pm := range PromNames() {
		if !used[pm.Name] {
			t.Errorf("the dashboard never shows %s", pm.Name)
		}
	}
}

// TestParseQuery keeps the dashboard check honest: metric names and label
// names are told apart, including in label_values.
func TestParseQuery(t *testing.T) {
	m, l := parseQuery(`sum by (mcpdeck_server_name, le) (rate(mcp_client_operation_duration_seconds_bucket{mcp_method_name="tools/call", error_type!=""}[5m]))`)
	if !slices.Equal(m, []string{"mcp_client_operation_duration_seconds_bucket"}) {
		t.Errorf("metrics %v", m)
	}
	if !slices.Equal(l, []string{"mcp_method_name", "error_type", "mcpdeck_server_name", "le"}) {
		t.Errorf("labels %v", l)
	}
	m, l = parseQuery(`label_values(mcpdeck_server_state{instance=~"$instance"}, mcpdeck_server_name)`)
	if !slices.Equal(m, []string{"mcpdeck_server_state"}) || !slices.Equal(l, []string{"mcpdeck_server_name", "instance"}) {
		t.Errorf("label_values: metrics %v labels %v", m, l)
	}
}
