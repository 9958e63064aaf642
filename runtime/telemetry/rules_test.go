package telemetry

import (
	"regexp"
	"testing"

	"github.com/goccy/go-yaml"

	"mcpdeck/assets"
)

// templateLabel is a label an alert's annotation reads.
var templateLabel = regexp.MustCompile(`\$labels\.([A-Za-z_][A-Za-z0-9_]*)`)

// TestPrometheusRules: every metric the shipped alerting rules query is
// one this package exports, every label they filter, group by or print
// exists on it in a real scrape, and the rules cover what an operator
// expects to be paged for. (promtool checks the syntax and runs the
// rules' unit tests: ui/cli's TestShippedPrometheusRules.)
func TestPrometheusRules(t *testing.T) {
	var doc struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(assets.PrometheusRules, &doc); err != nil {
		t.Fatalf("the rules are not YAML: %v", err)
	}
	e := newExposition(t)
	alerts := map[string]bool{}
	for _, g := range doc.Groups {
		for _, r := range g.Rules {
			alerts[r.Alert] = true
			if r.Labels["severity"] != "critical" && r.Labels["severity"] != "warning" {
				t.Errorf("%s: severity %q", r.Alert, r.Labels["severity"])
			}
			if r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("%s: no summary or description", r.Alert)
			}
			var labels []string
			for _, a := range r.Annotations {
				for _, m := range templateLabel.FindAllStringSubmatch(a, -1) {
					labels = append(labels, m[1])
				}
			}
			if metrics, _ := e.check(t, "alert "+r.Alert, r.Expr, labels); len(metrics) == 0 && r.Alert != "MCPDeckMonitorDown" {
				t.Errorf("%s queries none of mcpdeck's metrics: %s", r.Alert, r.Expr)
			}
		}
	}
	for _, want := range []string{"MCPServerFailed", "MCPServerDegraded", "MCPServerReconnectsGivenUp", "MCPServerLoginExpired",
		"MCPServerHealthCheckSlow", "MCPServerRequestsSlow", "MCPToolErrorsHigh", "MCPDeckMonitorDown"} {
		if !alerts[want] {
			t.Errorf("no rule %s", want)
		}
	}
}
