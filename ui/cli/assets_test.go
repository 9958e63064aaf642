package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mcpdeck/assets"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/fleet/fleettest"
)

// TestAssetsCommand: mcpdeck assets prints each shipped file as it is
// embedded, lists them without a name, and refuses an unknown one.
func TestAssetsCommand(t *testing.T) {
	h := newHeadless(t, map[string]map[string]any{})
	for name, want := range map[string][]byte{
		"prometheus-rules": assets.PrometheusRules, "prometheus-rules-tests": assets.PrometheusRulesTests, "grafana-dashboard": assets.GrafanaDashboard,
	} {
		r := h.run(t, "", "assets", name)
		if r.code != ExitOK || r.stdout != string(want) {
			t.Errorf("assets %s: exit %d, %d bytes, want %d", name, r.code, len(r.stdout), len(want))
		}
	}
	var d map[string]any
	if err := json.Unmarshal(assets.GrafanaDashboard, &d); err != nil || d["uid"] != "mcpdeck-servers" {
		t.Errorf("dashboard: %v", err)
	}
	if r := h.run(t, "", "assets"); r.code != ExitOK || !strings.Contains(r.stdout, "prometheus-rules") || !strings.Contains(r.stdout, "grafana-dashboard") {
		t.Errorf("assets: exit %d\n%s", r.code, r.stdout)
	}
	if r := h.run(t, "", "assets", "grafana"); r.code != ExitUsage || !strings.Contains(r.stderr, "did you mean grafana-dashboard?") {
		t.Errorf("assets grafana: exit %d, %s", r.code, r.stderr)
	}
}

// TestShippedPrometheusRules: the rules mcpdeck assets prints pass
// promtool check rules, and their unit tests (each alert pending, then
// firing, on series shaped like monitor's) pass promtool test rules.
func TestShippedPrometheusRules(t *testing.T) {
	bin := fleettest.Tool(t, "promtool", "prometheus")
	h := newHeadless(t, map[string]map[string]any{})
	dir := t.TempDir()
	rules, tests := filepath.Join(dir, "mcpdeck-alerts.yml"), filepath.Join(dir, "mcpdeck-alerts.test.yml")
	if err := os.WriteFile(rules, []byte(h.run(t, "", "assets", "prometheus-rules").stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tests, []byte(h.run(t, "", "assets", "prometheus-rules-tests").stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "check", "rules", rules).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SUCCESS") {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "test", "rules", tests)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules: %v\n%s", err, out)
	}
}

// TestShippedRulesFireInPrometheus loads the shipped rules, unchanged,
// into a real Prometheus that scrapes a real mcpdeck monitor supervising
// a server that exits at once and gives up reconnecting: the
// MCPServerReconnectsGivenUp alert fires (Prometheus's /api/v1/alerts),
// and MCPServerFailed is at least pending (it waits 1m before firing).
func TestShippedRulesFireInPrometheus(t *testing.T) {
	t.Parallel()
	fleettest.Binary(t)
	flaky := srvFake(jsonrpctest.ExitEarly)
	flaky["autoReconnect"] = map[string]any{"maxAttempts": 1, "initialBackoff": "10ms", "maxBackoff": "10ms"}
	h := newHeadless(t, map[string]map[string]any{"flaky": flaky})
	r, metricsURL := startMonitor(t, h, "--retry-every", "0")
	r.waitLog(t, "server state changed", map[string]string{"server": "flaky", "to": "failed"})

	rules := filepath.Join(t.TempDir(), "mcpdeck-alerts.yml")
	if err := os.WriteFile(rules, assets.PrometheusRules, 0o600); err != nil {
		t.Fatal(err)
	}
	host := strings.TrimSuffix(strings.TrimPrefix(metricsURL, "http://"), "/metrics")
	if _, _, err := net.SplitHostPort(host); err != nil {
		t.Fatal(err)
	}
	prom := fleettest.StartWithRules(t, time.Second, []string{rules}, fleettest.Target{Addr: host})
	prom.WaitUp(t, 1)

	states := waitAlerts(t, prom.URL, func(s map[string]string) bool {
		return s["MCPServerReconnectsGivenUp"] == "firing" && (s["MCPServerFailed"] == "pending" || s["MCPServerFailed"] == "firing")
	})
	t.Logf("alerts in Prometheus: %v", states)
	r.stop(t)
}

// waitAlerts polls Prometheus's /api/v1/alerts until ok holds of the
// alerts about the server flaky (alertname → state), for 60 s.
func waitAlerts(t *testing.T, promURL string, ok func(map[string]string) bool) map[string]string {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second}
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(60 * time.Second)
	// Polling an external process: Prometheus has no event to wait on.
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var last []byte
	for {
		resp, err := client.Get(promURL + "/api/v1/alerts")
		if err == nil {
			last, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			var body struct {
				Data struct {
					Alerts []struct {
						Labels map[string]string `json:"labels"`
						State  string            `json:"state"`
					} `json:"alerts"`
				} `json:"data"`
			}
			if json.Unmarshal(last, &body) == nil {
				states := map[string]string{}
				for _, a := range body.Data.Alerts {
					if a.Labels["mcpdeck_server_name"] == "flaky" {
						states[a.Labels["alertname"]] = a.State
					}
				}
				if ok(states) {
					return states
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the alerts never got there in 60s; last answer: %s", bytes.TrimSpace(last))
		}
		<-tick.C
	}
}
