package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/telemetry"
)

// logLine is one JSON line monitor writes to stderr.
type logLine map[string]any

func (l logLine) str(k string) string { s, _ := l[k].(string); return s }

// parseLog decodes a stderr line, failing the test on a line that is not
// a JSON object: monitor's logs are for machines.
func parseLog(t *testing.T, line string) logLine {
	t.Helper()
	var l logLine
	if err := json.Unmarshal([]byte(line), &l); err != nil {
		t.Fatalf("monitor wrote a stderr line that is not JSON: %v\n%s", err, line)
	}
	if l.str("time") == "" || l.str("level") == "" || l.str("msg") == "" {
		t.Fatalf("log line lacks time, level or msg: %s", line)
	}
	return l
}

// waitLog waits for a log line with msg whose fields include want. Each
// call matches a line no earlier call matched, whether it was read before
// or arrives later: the order of lines from different goroutines (the
// reload's log, the servers' state changes) is not defined.
func (r *monitorRun) waitLog(t *testing.T, msg string, want map[string]string) logLine {
	t.Helper()
	match := func(i int) (logLine, bool) {
		l := parseLog(t, r.seenErr[i])
		if r.matched[i] || l.str("msg") != msg {
			return nil, false
		}
		for k, v := range want {
			if l.str(k) != v {
				return nil, false
			}
		}
		r.matched[i] = true
		return l, true
	}
	for i := range r.seenErr {
		if l, ok := match(i); ok {
			return l
		}
	}
	var found logLine
	r.waitLine(t, true, fmt.Sprintf("log %q %v", msg, want), func(string) bool {
		l, ok := match(len(r.seenErr) - 1)
		found = l
		return ok
	})
	return found
}

// rewrite replaces the test's mcp.json, keeping the marker every server
// carries so assertReaped still finds them.
func (h *headless) rewrite(t *testing.T, servers map[string]map[string]any) {
	t.Helper()
	for name, s := range servers {
		env, _ := s["env"].(map[string]string)
		merged := map[string]string{headlessMarkEnv: h.mark}
		for k, v := range env {
			merged[k] = v
		}
		s["env"] = merged
		servers[name] = s
	}
	data, err := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, h.cfg, data)
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil { // as editors save: atomically
		t.Fatal(err)
	}
}

// withPing sets a server's health-check period.
func withPing(s map[string]any, d string) map[string]any {
	s["pingInterval"] = d
	return s
}

// monitorRun is a running monitor and the log lines waitLog matched.
type monitorRun struct {
	*running
	matched map[int]bool
}

// startMonitor runs monitor with --metrics on a free loopback port and
// returns it with the /metrics URL it logged.
func startMonitor(t *testing.T, h *headless, args ...string) (*monitorRun, string) {
	t.Helper()
	r := &monitorRun{running: h.start(t, append([]string{"monitor", "--metrics", "127.0.0.1:0"}, args...)...), matched: map[int]bool{}}
	url := r.waitLog(t, "serving metrics", nil).str("url")
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/metrics") {
		t.Fatalf("metrics URL %q", url)
	}
	return r, url
}

// stop sends SIGTERM and checks the clean exit the contract promises.
func (r *monitorRun) stop(t *testing.T) {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(t); code != ExitOK {
		t.Fatalf("monitor exited %d after SIGTERM, want 0; stderr:\n%s", code, strings.Join(r.seenErr, "\n"))
	}
	for _, s := range r.seenErr {
		parseLog(t, s)
	}
	if !slices.ContainsFunc(r.seenErr, func(s string) bool { return strings.Contains(s, `"msg":"monitor stopped"`) }) {
		t.Errorf("no \"monitor stopped\" line:\n%s", strings.Join(r.seenErr, "\n"))
	}
}

// scrapeMetrics GETs url and parses it with the Prometheus text parser.
func scrapeMetrics(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("scraping %s: %v", url, err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing %s: %v", url, err)
	}
	return fams
}

// metricValue is the value of the series of name with labels, and whether
// it exists; a histogram's value is its sample count.
func metricValue(fams map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	for _, m := range fams[name].GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range labels {
			if got[k] != v {
				match = false
			}
		}
		if match {
			if h := m.GetHistogram(); h != nil {
				return float64(h.GetSampleCount()), true
			}
			return m.GetGauge().GetValue() + m.GetCounter().GetValue(), true
		}
	}
	return 0, false
}

// waitMetrics scrapes until ok holds, or fails at the deadline with the
// last scrape.
func waitMetrics(t *testing.T, url, what string, ok func(map[string]*dto.MetricFamily) bool) map[string]*dto.MetricFamily {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		fams := scrapeMetrics(t, url)
		if ok(fams) {
			return fams
		}
		if time.Now().After(deadline) {
			var b strings.Builder
			for name, fam := range fams {
				if strings.HasPrefix(name, "mcp") {
					for _, m := range fam.GetMetric() {
						fmt.Fprintf(&b, "%s %v\n", name, m.GetLabel())
					}
				}
			}
			t.Fatalf("waiting for %s: not in the metrics after 30s; last scrape:\n%s", what, b.String())
		}
		<-tick.C
	}
}

// readyAndPinged holds once server is ready and a health check of it was
// recorded.
func readyAndPinged(server string) func(map[string]*dto.MetricFamily) bool {
	return func(f map[string]*dto.MetricFamily) bool {
		ready, _ := metricValue(f, "mcpdeck_server_state", map[string]string{"mcpdeck_server_name": server, "mcpdeck_server_state": "ready"})
		pings, _ := metricValue(f, "mcpdeck_server_ping_duration_seconds", map[string]string{"mcpdeck_server_name": server, "error_type": ""})
		return ready == 1 && pings >= 1
	}
}

// TestMonitorDemo runs monitor on the built binary against the demo
// server: JSON logs, the server ready and its ping latency in /metrics,
// every per-server metric present with the right type, and a clean exit
// on SIGTERM that leaves no process behind.
func TestMonitorDemo(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"demo": withPing(srvDemo(t, "0"), "200ms")})
	h.env = append(h.env, "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9")
	r, url := startMonitor(t, h)
	r.waitLog(t, "server state changed", map[string]string{"server": "demo", "to": "ready"})
	fams := waitMetrics(t, url, "demo ready with a ping recorded", readyAndPinged("demo"))

	names := telemetry.PromNames()
	for _, metric := range []string{
		telemetry.MetricServerState, telemetry.MetricServerInfo, telemetry.MetricPingDuration, telemetry.MetricRestarts,
		telemetry.MetricReconnectAttempts, telemetry.MetricNotifications, telemetry.MetricNotificationsDrop,
		telemetry.MetricOutstanding, telemetry.MetricNoiseLines, telemetry.MetricLateResponses, telemetry.MetricSpansDropped,
	} {
		pm := names[metric]
		fam := fams[pm.Name]
		if fam == nil {
			t.Errorf("%s missing from monitor's /metrics", pm.Name)
			continue
		}
		if got := strings.ToLower(fam.GetType().String()); got != pm.Type {
			t.Errorf("%s is a %s, want %s", pm.Name, got, pm.Type)
		}
	}
	if v, ok := metricValue(fams, "mcpdeck_server_info", map[string]string{"mcpdeck_server_name": "demo", "mcpdeck_transport": "stdio",
		"network_transport": "pipe", "mcp_protocol_version": "2025-11-25", "mcpdeck_protocol_era": "legacy"}); !ok || v != 1 {
		t.Errorf("server info for demo: %v %v", v, ok)
	}
	if v, _ := metricValue(fams, "mcpdeck_server_restarts_total", map[string]string{"mcpdeck_server_name": "demo"}); v != 0 {
		t.Errorf("restarts = %v, want 0", v)
	}
	if fams["go_goroutines"] == nil {
		t.Error("no Go runtime metrics")
	}
	if !slices.ContainsFunc(r.seenErr, func(s string) bool {
		l := parseLog(t, s)
		return l.str("msg") == "exporting traces" && l.str("endpoint") == "http://127.0.0.1:9/v1/traces"
	}) {
		t.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT did not turn trace export on:\n%s", strings.Join(r.seenErr, "\n"))
	}
	r.stop(t)
	if !slices.ContainsFunc(r.seenErr, func(s string) bool {
		l := parseLog(t, s)
		return l.str("msg") == "server stopped" && l.str("server") == "demo" && l.str("step") != ""
	}) {
		t.Errorf("how demo stopped is not logged:\n%s", strings.Join(r.seenErr, "\n"))
	}
}

// TestMonitorReloadOnSIGHUP: with file polling off, SIGHUP applies the
// edited configuration: an added server starts, a removed one stops (its
// session duration recorded), a server made invalid shows as invalid, and
// a file that cannot be read keeps the running set.
func TestMonitorReloadOnSIGHUP(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"a": withPing(srvDemo(t, "0"), "200ms")})
	r, url := startMonitor(t, h, "--reload-every", "0")
	r.waitLog(t, "server state changed", map[string]string{"server": "a", "to": "ready"})

	h.rewrite(t, map[string]map[string]any{"a": withPing(srvDemo(t, "0"), "200ms"), "b": withPing(srvDemo(t, "0"), "200ms")})
	if err := r.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	l := r.waitLog(t, "configuration reloaded", map[string]string{"why": "SIGHUP"})
	if added, _ := l["added"].([]any); len(added) != 1 || added[0] != "b" {
		t.Errorf("reload added %v, want [b]", l["added"])
	}
	r.waitLog(t, "server state changed", map[string]string{"server": "b", "to": "ready"})

	h.rewrite(t, map[string]map[string]any{"b": withPing(srvDemo(t, "0"), "200ms")})
	if err := r.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	l = r.waitLog(t, "configuration reloaded", map[string]string{"why": "SIGHUP"})
	if removed, _ := l["removed"].([]any); len(removed) != 1 || removed[0] != "a" {
		t.Errorf("reload removed %v, want [a]", l["removed"])
	}
	waitMetrics(t, url, "a's session recorded and a gone", func(f map[string]*dto.MetricFamily) bool {
		sessions, _ := metricValue(f, "mcp_client_session_duration_seconds", map[string]string{"mcpdeck_server_name": "a", "network_transport": "pipe"})
		_, stillThere := metricValue(f, "mcpdeck_server_state", map[string]string{"mcpdeck_server_name": "a"})
		return sessions == 1 && !stillThere
	})

	// One invalid server does not stop the reload: it shows as invalid.
	writeFile(t, h.cfg, []byte(`{"mcpServers": {"b": {"command": 3}}}`))
	if err := r.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	r.waitLog(t, "server state changed", map[string]string{"server": "b", "to": "invalid"})
	// A file that cannot be read at all is refused, and the servers kept.
	writeFile(t, h.cfg, []byte(`{"mcpServers": {"b": `))
	if err := r.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	l = r.waitLog(t, "reload refused: the running servers are kept", map[string]string{"why": "SIGHUP"})
	if l.str("level") != "ERROR" || !strings.Contains(l.str("err"), "mcp.json") {
		t.Errorf("refusal %v: want an error naming the file", l)
	}
	fams := scrapeMetrics(t, url)
	if v, _ := metricValue(fams, "mcpdeck_server_state", map[string]string{"mcpdeck_server_name": "b", "mcpdeck_server_state": "invalid"}); v != 1 {
		t.Errorf("b is no longer shown invalid after a refused reload")
	}
	r.stop(t)
}

// TestMonitorReloadOnFileChange: an edited file is picked up without a
// signal.
func TestMonitorReloadOnFileChange(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"a": srvDemo(t, "0")})
	r, url := startMonitor(t, h, "--reload-every", "100ms")
	r.waitLog(t, "server state changed", map[string]string{"server": "a", "to": "ready"})
	h.rewrite(t, map[string]map[string]any{"a": srvDemo(t, "0"), "c": srvDemo(t, "0")})
	l := r.waitLog(t, "configuration reloaded", map[string]string{"why": "configuration file changed"})
	if added, _ := l["added"].([]any); len(added) != 1 || added[0] != "c" {
		t.Errorf("reload added %v, want [c]", l["added"])
	}
	waitMetrics(t, url, "c ready", func(f map[string]*dto.MetricFamily) bool {
		v, _ := metricValue(f, "mcpdeck_server_state", map[string]string{"mcpdeck_server_name": "c", "mcpdeck_server_state": "ready"})
		return v == 1
	})
	r.stop(t)
}

// TestMonitorRetriesGivenUp: a server without automatic reconnects that
// fails is reconnected every --retry-every, and keeps being.
func TestMonitorRetriesGivenUp(t *testing.T) {
	t.Parallel()
	srv := srvFake(jsonrpctest.ExitEarly)
	srv["autoReconnect"] = false
	h := newHeadless(t, map[string]map[string]any{"flaky": srv})
	r, url := startMonitor(t, h, "--retry-every", "200ms")
	r.waitLog(t, "server state changed", map[string]string{"server": "flaky", "to": "failed"})
	r.waitLog(t, "reconnecting a failed server", map[string]string{"server": "flaky"})
	r.waitLog(t, "reconnecting a failed server", map[string]string{"server": "flaky"})
	fams := scrapeMetrics(t, url)
	if _, ok := metricValue(fams, "mcpdeck_server_state", map[string]string{"mcpdeck_server_name": "flaky"}); !ok {
		t.Error("no state series for flaky")
	}
	r.stop(t)
}

// TestMonitorEverything: the reference server under monitor.
func TestMonitorEverything(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"everything": withPing(srvEverything(t), "200ms")})
	r, url := startMonitor(t, h)
	fams := waitMetrics(t, url, "everything ready with a ping recorded", readyAndPinged("everything"))
	if _, ok := metricValue(fams, "mcpdeck_server_info", map[string]string{"mcpdeck_server_name": "everything", "network_transport": "pipe"}); !ok {
		t.Error("no server info for everything")
	}
	r.stop(t)
}

// TestMonitorProtocolFlag: the global --protocol reaches monitor's servers
// as it does every other command's (monitor built its session options
// without it): modern on the demo server, which speaks only the legacy
// revisions, fails it with the reason.
func TestMonitorProtocolFlag(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})
	r, _ := startMonitor(t, h, "--protocol", "modern")
	l := r.waitLog(t, "server state changed", map[string]string{"server": "demo", "to": "failed"})
	if !strings.Contains(l.str("reason"), "only the legacy revisions") {
		t.Errorf("demo failed for another reason than --protocol modern: %v", l)
	}
	r.stop(t)
}

// TestMonitorUsageErrors: bad flags are refused at start with exit 2 and
// a message that says what to do.
func TestMonitorUsageErrors(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--metrics", "0.0.0.0:0"}, "--metrics-allow-remote"},
		{[]string{"--metrics", "9464"}, "HOST:PORT"},
		{[]string{"--otlp", "collector:4318"}, "--otlp"},
		{[]string{"--log-level", "loud"}, "--log-level"},
		{[]string{"--reload-every", "-1s"}, "--reload-every"},
	} {
		r := h.run(t, "", append([]string{"monitor"}, tc.args...)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("monitor %v: exit %d, stderr %q; want %d naming %s", tc.args, r.code, r.stderr, ExitUsage, tc.want)
		}
	}
}
