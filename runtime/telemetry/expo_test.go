package telemetry

import (
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// exposition.golden is what client_golang v1.25.0 and the SDK's Prometheus
// exporter v0.69.0 served for this test's telemetry, captured before
// expo.go replaced them: the names, HELP and TYPE lines, label names,
// escaping, series order and histogram buckets must stay byte for byte.
// Regenerate it only from those libraries (MCPDECK_EXPOSITION_GOLDEN=path
// writes what this build serves, for comparing).
const expositionGolden = "testdata/exposition.golden"

// volatile masks what differs between runs: the measured operation
// durations, the Go runtime's and the process's values, and the host and
// SDK version in target_info.
var volatile = regexp.MustCompile(`(?m)^((?:mcp_client_operation_duration_seconds_sum|go_|process_)\S*) \S+$|(host_name|telemetry_sdk_version)="[^"]*"`)

func maskVolatile(s string) string {
	return volatile.ReplaceAllStringFunc(s, func(m string) string {
		if i := strings.IndexByte(m, '='); i > 0 && strings.HasSuffix(m, `"`) {
			return m[:i] + `="X"`
		}
		return m[:strings.LastIndexByte(m, ' ')] + " X"
	})
}

// TestExpositionMatchesClientGolang scrapes a /metrics with every kind of
// series over real HTTP and compares it with what client_golang served.
// The last error's message and a resource attribute carry a quote, a
// backslash and a line feed; two resource attributes translate to one
// label name.
func TestExpositionMatchesClientGolang(t *testing.T) {
	clearOTelEnv(t)
	src := &fakeSource{gw: GatewayStats{Clients: 2, Calls: 17}}
	src.set(
		ServerStats{Server: "demo", State: "ready", Transport: "stdio", ProtocolVersion: "2025-11-25", Era: EraLegacy,
			Restarts: 3, Notifications: 120, DroppedNotifications: 4, LateResponses: 1, NoiseLines: 2, Outstanding: 5},
		ServerStats{Server: "remote", State: "failed", Transport: "http", Attempts: 2,
			LastError: "remote: \"connection\" refused\\ \n x" + strings.Repeat(" and more", 40), LastErrorKind: "transport", LastErrorAt: time.Unix(1_790_000_000, 0)},
	)
	tel := newTelemetry(t, Options{Metrics: true, Source: src.servers, Gateway: src.gateway, ServiceVersion: "1.2.3",
		ResourceAttributes: map[string]string{"x.odd": "a\"b\\c\nd", "x_odd": "second"}})
	recordSample(tel)
	ms, err := tel.ServeMetrics(t.Context(), "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(ms.URL())
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	got := "Content-Type: " + resp.Header.Get("Content-Type") + "\n" + maskVolatile(string(body))
	if path := os.Getenv("MCPDECK_EXPOSITION_GOLDEN"); path != "" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(expositionGolden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("line %d differs from client_golang's exposition:\n got %s\nwant %s", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%d lines, client_golang served %d", len(gl), len(wl))
	}
}

// TestExpositionEscapingAndValues writes families with what hand-written
// writers get wrong (escapes in HELP and label values, infinities, NaN,
// large integers, a summary) and reads them back with Prometheus' own
// parser.
func TestExpositionEscapingAndValues(t *testing.T) {
	fams := []promFamily{
		{name: "z_total", help: `back\slash and` + "\n" + `line "quoted"`, typ: "counter",
			series: []promSeries{{labels: []promLabel{{"v", "q\"b\\n\nl"}}, value: 1 << 53}}},
		{name: "a_gauge", help: "g", typ: "gauge", series: []promSeries{
			{labels: []promLabel{{"k", "pos"}}, value: math.Inf(1)},
			{labels: []promLabel{{"k", "neg"}}, value: math.Inf(-1)},
			{labels: []promLabel{{"k", "nan"}}, value: math.NaN()},
			{value: 0.1},
		}},
		{name: "h_seconds", help: "h", typ: "histogram", series: []promSeries{{dist: &promDist{bounds: []float64{0.5, 1}, cumulated: []uint64{1, 3}, sum: 2.5, count: 4}}}},
		{name: "s_seconds", help: "s", typ: "summary", series: []promSeries{{dist: &promDist{quantiles: [][2]float64{{0, 0.1}, {1, 0.3}}, sum: 0.4, count: 2}}}},
	}
	out := string(writeExposition(nil, fams))
	for _, want := range []string{
		"# HELP z_total back\\\\slash and\\nline \"quoted\"\n",
		`z_total{v="q\"b\\n\nl"} 9.007199254740992e+15` + "\n",
		"a_gauge 0.1\na_gauge{k=\"nan\"} NaN\na_gauge{k=\"neg\"} -Inf\na_gauge{k=\"pos\"} +Inf\n",
		"h_seconds_bucket{le=\"0.5\"} 1\nh_seconds_bucket{le=\"1\"} 3\nh_seconds_bucket{le=\"+Inf\"} 4\nh_seconds_sum 2.5\nh_seconds_count 4\n",
		"s_seconds{quantile=\"0\"} 0.1\ns_seconds{quantile=\"1\"} 0.3\ns_seconds_sum 0.4\ns_seconds_count 2\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("exposition lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "# HELP a_gauge") > strings.Index(out, "# HELP z_total") {
		t.Errorf("families not sorted by name:\n%s", out)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	parsed, err := parser.TextToMetricFamilies(strings.NewReader(out))
	if err != nil {
		t.Fatalf("Prometheus' parser refuses it: %v\n%s", err, out)
	}
	z := parsed["z_total"]
	if z.GetHelp() != "back\\slash and\nline \"quoted\"" || z.GetMetric()[0].GetLabel()[0].GetValue() != "q\"b\\n\nl" || z.GetMetric()[0].GetCounter().GetValue() != 1<<53 {
		t.Errorf("z_total read back as %v", z)
	}
	if h := parsed["h_seconds"].GetMetric()[0].GetHistogram(); h.GetSampleCount() != 4 || len(h.GetBucket()) != 3 || !math.IsInf(h.GetBucket()[2].GetUpperBound(), 1) {
		t.Errorf("h_seconds read back as %v", h)
	}
}

// TestMetricsGzip: a scrape that accepts gzip gets it, as from
// client_golang, and the same exposition inside.
func TestMetricsGzip(t *testing.T) {
	clearOTelEnv(t)
	tel := newTelemetry(t, Options{Metrics: true})
	ms, err := tel.ServeMetrics(t.Context(), "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, ms.URL(), nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Content-Type") != expoContentType {
		t.Fatalf("headers %v, want gzip and %s", resp.Header, expoContentType)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil || !bytes.Contains(body, []byte("\n# TYPE target_info gauge\n")) {
		t.Fatalf("gunzipped body (%v):\n%s", err, body)
	}
	for h, want := range map[string]bool{"gzip": true, "deflate, gzip;q=1.0, *;q=0.5": true, "identity": false, "gzip;q=0": false, "": false} {
		if acceptsGzip(h) != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", h, !want, want)
		}
	}
}
