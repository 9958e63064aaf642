package runtime

import (
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"mcpdeck/runtime/telemetry"
	"mcpdeck/runtime/telemetry/otelcoltest"
)

// collector is an in-process OTLP/HTTP receiver keeping every span.
type collector struct {
	mu      sync.Mutex
	spans   []*tracepb.Span
	arrived chan struct{}
}

func newCollector(t *testing.T) (*collector, string) {
	c := &collector{arrived: make(chan struct{}, 256)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req, err := otelcoltest.DecodeTraces(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		for _, rs := range req.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				c.spans = append(c.spans, ss.GetSpans()...)
			}
		}
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("{}"))
		select {
		case c.arrived <- struct{}{}:
		default:
		}
	}))
	t.Cleanup(srv.Close)
	return c, srv.URL
}

func (c *collector) waitSpan(t *testing.T, name string) *tracepb.Span {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		c.mu.Lock()
		for _, s := range c.spans {
			if s.GetName() == name {
				c.mu.Unlock()
				return s
			}
		}
		c.mu.Unlock()
		select {
		case <-c.arrived:
		case <-deadline:
			t.Fatalf("no span %q arrived", name)
		}
	}
}

func scrapeHandler(t *testing.T, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parsing the exposition: %v", err)
	}
	return fams
}

func histogramCount(fam *dto.MetricFamily, labels map[string]string) uint64 {
	var n uint64
	for _, m := range fam.GetMetric() {
		match := true
		for _, l := range m.GetLabel() {
			if want, ok := labels[l.GetName()]; ok && want != l.GetValue() {
				match = false
			}
		}
		if match {
			n += m.GetHistogram().GetSampleCount()
		}
	}
	return n
}

// The runtime reports to telemetry itself: a span per request whose trace
// context reaches the server in _meta (the demo server echoes it back),
// the conventions' operation duration per tool, ping latencies, session
// durations, and the servers' counters at collection time.
func TestTelemetryThroughTheRuntime(t *testing.T) {
	demo := demoServer("demo")
	demo.PingInterval = 50 * time.Millisecond
	c, col := tracedController(t, demo)
	tel := c.opts.Telemetry
	rec := record(t, c)
	enable(t, c)
	if _, err := c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "demo", Tool: "echo", Arguments: json.RawMessage(`{"text":"traced"}`)}); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "a ping", func(e Event) bool { h, ok := e.(HealthChecked); return ok && h.OK })

	span := col.waitSpan(t, "tools/call echo")
	traceID := hex.EncodeToString(span.GetTraceId())
	// The server got the span's context: the result frame echoes it.
	rec.waitAny(t, "the echoed traceparent", func(e Event) bool {
		f, ok := e.(TrafficFrame)
		return ok && f.Frame.Dir == In && f.Frame.Kind == FrameResult && strings.Contains(string(f.Frame.Raw), traceID)
	})

	fams := scrapeHandler(t, tel.Handler())
	names := telemetry.PromNames()
	op := fams[names[telemetry.MetricOperationDuration].Name]
	if histogramCount(op, map[string]string{"mcp_method_name": "tools/call", "gen_ai_tool_name": "echo"}) != 1 {
		t.Fatalf("operation duration: %v", op)
	}
	if histogramCount(fams[names[telemetry.MetricPingDuration].Name], map[string]string{"mcpdeck_server_name": "demo"}) == 0 {
		t.Fatal("no ping latency recorded")
	}
	if st := fams[names[telemetry.MetricServerState].Name]; st == nil || !strings.Contains(st.String(), `value:"ready"`) {
		t.Fatalf("state gauge: %v", st)
	}
	if err := c.SetEnabled(ctxFor(t, 20*time.Second), false); err != nil {
		t.Fatal(err)
	}
	fams = scrapeHandler(t, tel.Handler())
	if histogramCount(fams[names[telemetry.MetricSessionDuration].Name], map[string]string{"mcpdeck_server_name": "demo"}) != 1 {
		t.Fatalf("session duration: %v", fams[names[telemetry.MetricSessionDuration].Name])
	}
}

func allStateNames() []string {
	var out []string
	for s := State(0); int(s) < len(stateNames); s++ {
		out = append(out, s.String())
	}
	return out
}
