// Package fleettest runs a real Prometheus server for tests: Debian's
// prometheus package (`.ci/run` installs it), started on a loopback port
// with a scrape configuration the test writes, stopped when the test
// ends. Tests of the fleet view point it at real /metrics endpoints (a
// monitor's, or runtime/telemetry's) and query it as mcpdeck fleet does.
package fleettest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mcpdeck/runtime/internal/daemontest"
)

// Target is one scrape target: host:port of a /metrics endpoint, and
// extra labels Prometheus puts on its series.
type Target struct {
	Addr   string
	Labels map[string]string
}

// Prometheus is a running Prometheus server.
type Prometheus struct {
	// URL is its HTTP API base, http://127.0.0.1:PORT.
	URL string
	// Daemon is the process; Output is what Prometheus printed.
	*daemontest.Daemon
}

// Binary returns the prometheus executable, skipping the test when there
// is none (failing under CI=true, where .ci/run installs it).
func Binary(t testing.TB) string {
	t.Helper()
	return Tool(t, "prometheus", "prometheus")
}

// Tool returns the executable name from Debian's package pkg (prometheus,
// promtool, prometheus-alertmanager), skipping the test when there is
// none, and failing under CI=true, where .ci/run installs them.
func Tool(t testing.TB, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	msg := fmt.Sprintf("no %s on PATH: install Debian's %s package (apt-get install %s); .ci/run does", name, pkg, pkg)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// Start runs Prometheus scraping targets every interval, and waits until
// it answers queries. It is stopped (SIGTERM, then SIGKILL) when t ends.
func Start(t testing.TB, interval time.Duration, targets ...Target) *Prometheus {
	t.Helper()
	return StartWithRules(t, interval, nil, targets...)
}

// StartWithRules is Start with rule files loaded, evaluated every interval.
func StartWithRules(t testing.TB, interval time.Duration, ruleFiles []string, targets ...Target) *Prometheus {
	t.Helper()
	bin := Binary(t)
	dir := t.TempDir()
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "global:\n  scrape_interval: %s\n  scrape_timeout: %s\n  evaluation_interval: %s\n", interval, interval, interval)
	if len(ruleFiles) > 0 {
		cfg.WriteString("rule_files:\n")
		for _, f := range ruleFiles {
			fmt.Fprintf(&cfg, "  - %q\n", f)
		}
	}
	cfg.WriteString("scrape_configs:\n  - job_name: mcpdeck\n    static_configs:\n")
	for _, tg := range targets {
		fmt.Fprintf(&cfg, "      - targets: [%q]\n", tg.Addr)
		if len(tg.Labels) > 0 {
			cfg.WriteString("        labels:\n")
			for k, v := range tg.Labels {
				fmt.Fprintf(&cfg, "          %s: %q\n", k, v)
			}
		}
	}
	cfgPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	// A port free a moment ago; Prometheus cannot report one it picked.
	port := daemontest.FreePort(t)
	p := &Prometheus{URL: fmt.Sprintf("http://127.0.0.1:%d", port)}
	p.Daemon = daemontest.Start(t, "prometheus", bin, "--config.file="+cfgPath, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port), "--log.level=warn")
	p.WaitReady(t, 30*time.Second, func(c *http.Client) (*http.Response, error) { return c.Get(p.URL + "/-/ready") })
	return p
}

// WaitUp waits until Prometheus has scraped n targets successfully.
func (p *Prometheus) WaitUp(t testing.TB, n int) {
	t.Helper()
	p.WaitQuery(t, fmt.Sprintf("up == 1 (%d targets)", n), "count(up == 1)", func(v float64) bool { return v >= float64(n) })
}

// WaitQuery waits until the scalar value of query (the first sample of
// its instant vector) satisfies ok, polling every 200 ms for 60 s.
func (p *Prometheus) WaitQuery(t testing.TB, what, query string, ok func(float64) bool) {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second}
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(60 * time.Second)
	// Polling an external process: Prometheus has no event to wait on.
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var last string
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"/api/v1/query?query="+url.QueryEscape(query), nil)
		resp, err := client.Do(req)
		if err == nil {
			var b bytes.Buffer
			_, _ = b.ReadFrom(resp.Body)
			resp.Body.Close()
			last = b.String()
			if v, found := firstValue(last); found && ok(v) {
				cancel()
				return
			}
		} else {
			last = err.Error()
		}
		cancel()
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s (%s): last answer %s\nprometheus output:\n%s", what, query, last, p.Output())
		}
		<-tick.C
	}
}

// firstValue reads the first sample's value of an instant-vector answer.
func firstValue(body string) (float64, bool) {
	i := strings.Index(body, `"value":[`)
	if i < 0 {
		return 0, false
	}
	rest := body[i+len(`"value":[`):]
	j := strings.Index(rest, `,"`)
	k := strings.Index(rest, `"]`)
	if j < 0 || k < j {
		return 0, false
	}
	var v float64
	_, err := fmt.Sscan(rest[j+2:k], &v)
	return v, err == nil
}
