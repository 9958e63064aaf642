package telemetry

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// fakeSource is a runtime stand-in whose stats a test changes between
// scrapes.
type fakeSource struct {
	mu    sync.Mutex
	stats []ServerStats
	gw    GatewayStats
}

func (f *fakeSource) servers() []ServerStats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]ServerStats(nil), f.stats...)
}

func (f *fakeSource) gateway() GatewayStats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gw
}

func (f *fakeSource) set(stats ...ServerStats) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stats = stats
}

// recordSample records one of every duration the runtime records: a
// successful and an isError tool call, a JSON-RPC error, pings (one
// missed) and a session.
func recordSample(tel *Telemetry) {
	base := RequestInfo{Server: "demo", Transport: "stdio", ProtocolVersion: "2025-11-25", Era: EraLegacy}
	call := func(tool, errType string, err error) {
		info := base
		info.Method, info.Target, info.RequestID = "tools/call", tool, "7"
		_, sp := tel.StartRequest(context.Background(), info)
		sp.End(err, errType)
	}
	call("echo", "", nil)
	call("echo", "", nil)
	call("fail", ErrorTypeToolError, nil)
	info := base
	info.Method, info.Target = "resources/read", "demo://status"
	_, sp := tel.StartRequest(context.Background(), info)
	sp.End(errors.New("resource not found"), ErrorTypeForCode(-32002))

	tel.RecordPing("demo", 400*time.Microsecond, true)
	tel.RecordPing("demo", 600*time.Microsecond, true)
	tel.RecordPing("demo", 5*time.Second, false)
	tel.RecordSession(SessionEnd{Server: "demo", Transport: "stdio", ProtocolVersion: "2025-11-25", Duration: 90 * time.Second, ErrorType: ErrorTypeClosed})
}

// TestMetricsExposition builds telemetry with a fake source and recorded
// durations, scrapes /metrics over real HTTP and checks every metric: its
// name, type, labels and values.
func TestMetricsExposition(t *testing.T) {
	clearOTelEnv(t)
	src := &fakeSource{gw: GatewayStats{Clients: 2, Calls: 17}}
	src.set(
		ServerStats{Server: "demo", State: "ready", Transport: "stdio", ProtocolVersion: "2025-11-25", Era: EraLegacy,
			Restarts: 3, Attempts: 0, Notifications: 120, DroppedNotifications: 4, LateResponses: 1, NoiseLines: 2, Outstanding: 5},
		ServerStats{Server: "remote", State: "failed", Transport: "http", Attempts: 2,
			LastError: "remote: connection refused" + strings.Repeat(" and more", 40), LastErrorKind: "transport", LastErrorAt: time.Unix(1_790_000_000, 0)},
	)
	tel := newTelemetry(t, Options{Metrics: true, Source: src.servers, Gateway: src.gateway, ServiceVersion: "1.2.3"})
	recordSample(tel)
	ms, err := tel.ServeMetrics(t.Context(), "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	fams := scrape(t, ms.URL())

	for name, want := range PromNames() {
		fam := fams[want.Name]
		if fam == nil {
			t.Errorf("%s: no %s in the exposition", name, want.Name)
			continue
		}
		if got := fam.GetType().String(); got != map[string]string{"counter": "COUNTER", "gauge": "GAUGE", "histogram": "HISTOGRAM"}[want.Type] {
			t.Errorf("%s: type %s, want %s", want.Name, got, want.Type)
		}
	}

	// mcp.client.operation.duration, with the conventions' attributes.
	op := fams["mcp_client_operation_duration_seconds"]
	ok := find(op, map[string]string{"mcp_method_name": "tools/call", "gen_ai_tool_name": "echo", "error_type": "",
		"gen_ai_operation_name": "execute_tool", "network_transport": "pipe", "mcp_protocol_version": "2025-11-25", "mcpdeck_server_name": "demo"})
	if ok == nil || ok.GetHistogram().GetSampleCount() != 2 {
		t.Errorf("echo calls: %v, want a histogram with 2 samples", ok)
	}
	if m := find(op, map[string]string{"gen_ai_tool_name": "fail", "error_type": "tool_error"}); m == nil || m.GetHistogram().GetSampleCount() != 1 {
		t.Errorf("fail call: %v, want 1 sample with error_type tool_error", m)
	}
	if m := find(op, map[string]string{"mcp_method_name": "resources/read", "error_type": "-32002", "rpc_response_status_code": "-32002"}); m == nil {
		t.Errorf("resources/read error: no series with error_type and rpc_response_status_code -32002")
	} else if _, has := labelsOf(m)["mcp_resource_uri"]; has {
		t.Errorf("resources/read: the URI is a label: %v", labelsOf(m))
	}
	wantBuckets(t, ok, durationBuckets)

	// mcp.client.session.duration.
	if m := find(fams["mcp_client_session_duration_seconds"], map[string]string{"mcpdeck_server_name": "demo", "error_type": "transport_closed", "network_transport": "pipe"}); m == nil ||
		m.GetHistogram().GetSampleSum() != 90 {
		t.Errorf("session duration: %v, want one 90 s session ended by transport_closed", m)
	}

	// Ping latency: answered pings without error_type, the miss with it.
	ping := fams["mcpdeck_server_ping_duration_seconds"]
	if m := find(ping, map[string]string{"mcpdeck_server_name": "demo", "error_type": ""}); m == nil ||
		m.GetHistogram().GetSampleCount() != 2 || m.GetHistogram().GetSampleSum() < 0.00099 || m.GetHistogram().GetSampleSum() > 0.00101 {
		t.Errorf("answered pings: %v, want 2 samples summing to 1 ms", m)
	}
	if m := find(ping, map[string]string{"mcpdeck_server_name": "demo", "error_type": "timeout"}); m == nil || m.GetHistogram().GetSampleCount() != 1 {
		t.Errorf("missed ping: %v, want 1 sample with error_type timeout", m)
	}

	// One state gauge per server and state: 1 for the current one.
	state := fams["mcpdeck_server_state"]
	for _, s := range DefaultStates {
		for server, current := range map[string]string{"demo": "ready", "remote": "failed"} {
			want := 0.0
			if s == current {
				want = 1
			}
			m := find(state, map[string]string{"mcpdeck_server_name": server, "mcpdeck_server_state": s})
			if m == nil || m.GetGauge().GetValue() != want {
				t.Errorf("state %s/%s = %v, want %v", server, s, m, want)
			}
		}
	}
	if n := len(state.GetMetric()); n != 2*len(DefaultStates) {
		t.Errorf("%d state series, want %d", n, 2*len(DefaultStates))
	}

	wantValue(t, fams, "mcpdeck_server_restarts_total", "demo", 3)
	wantValue(t, fams, "mcpdeck_server_reconnect_attempts", "remote", 2)
	wantValue(t, fams, "mcpdeck_server_notifications_total", "demo", 120)
	wantValue(t, fams, "mcpdeck_server_notifications_dropped_total", "demo", 4)
	wantValue(t, fams, "mcpdeck_server_responses_late_total", "demo", 1)
	wantValue(t, fams, "mcpdeck_server_stdout_noise_total", "demo", 2)
	wantValue(t, fams, "mcpdeck_server_requests_outstanding", "demo", 5)
	wantValue(t, fams, "mcpdeck_gateway_clients", "", 2)
	wantValue(t, fams, "mcpdeck_gateway_calls_total", "", 17)
	wantValue(t, fams, "mcpdeck_telemetry_spans_dropped_total", "", 0)

	// The last error: its time as the value, kind and bounded message as labels; none for demo.
	lastErr := fams["mcpdeck_server_last_error_timestamp_seconds"]
	if m := find(lastErr, map[string]string{"mcpdeck_server_name": "remote", "mcpdeck_error_kind": "transport"}); m == nil || m.GetGauge().GetValue() != 1_790_000_000 {
		t.Errorf("last error of remote: %v, want its time 1790000000", m)
	} else if msg := labelsOf(m)["mcpdeck_error_message"]; !strings.HasPrefix(msg, "remote: connection refused") || len(msg) > maxErrorLabel+len("…") {
		t.Errorf("last error message label %q: want the message, cut to %d bytes", msg, maxErrorLabel)
	}
	if m := find(lastErr, map[string]string{"mcpdeck_server_name": "demo"}); m != nil {
		t.Errorf("demo has had no error, yet: %v", m)
	}

	info := find(fams["mcpdeck_server_info"], map[string]string{"mcpdeck_server_name": "remote"})
	if l := labelsOf(info); l["mcpdeck_transport"] != "http" || l["network_transport"] != "tcp" {
		t.Errorf("server info labels %v, want transport http over tcp", l)
	}
	if l := labelsOf(find(fams["mcpdeck_server_info"], map[string]string{"mcpdeck_server_name": "demo"})); l["mcp_protocol_version"] != "2025-11-25" || l["mcpdeck_protocol_era"] != "legacy" {
		t.Errorf("server info labels %v, want version and era", l)
	}
	if ti := find(fams["target_info"], map[string]string{"service_name": "mcpdeck", "service_version": "1.2.3"}); ti == nil {
		t.Errorf("target_info lacks service.name and service.version: %v", fams["target_info"])
	}
	if fams["go_goroutines"] == nil || fams["process_cpu_seconds_total"] == nil {
		t.Error("no Go runtime or process metrics")
	}
}

// wantValue checks a counter's or gauge's value for server ("" for the
// gateway and telemetry metrics, which have no server label).
func wantValue(t *testing.T, fams map[string]*dto.MetricFamily, name, server string, want float64) {
	t.Helper()
	m := find(fams[name], map[string]string{"mcpdeck_server_name": server})
	if m == nil {
		t.Errorf("%s{server=%q}: missing", name, server)
		return
	}
	got := m.GetGauge().GetValue() + m.GetCounter().GetValue()
	if got != want {
		t.Errorf("%s{server=%q} = %v, want %v", name, server, got, want)
	}
}

// wantBuckets checks a histogram's upper bounds.
func wantBuckets(t *testing.T, m *dto.Metric, want []float64) {
	t.Helper()
	var got []float64
	for _, b := range m.GetHistogram().GetBucket() {
		got = append(got, b.GetUpperBound())
	}
	if len(got) < len(want) {
		t.Fatalf("buckets %v, want %v", got, want)
	}
	for i, w := range want {
		if got[i] != w {
			t.Fatalf("buckets %v, want %v", got, want)
		}
	}
}

// TestMetricsFollowTheSource: collection reads the source anew, so a
// server that is gone disappears and changed counters show at once.
func TestMetricsFollowTheSource(t *testing.T) {
	clearOTelEnv(t)
	src := &fakeSource{}
	src.set(ServerStats{Server: "a", State: "starting"}, ServerStats{Server: "b", State: "ready", Notifications: 1})
	tel := newTelemetry(t, Options{Metrics: true})
	tel.SetSource(src.servers)
	ms, err := tel.ServeMetrics(t.Context(), "localhost:0", false)
	if err != nil {
		t.Fatal(err)
	}
	fams := scrape(t, ms.URL())
	wantValue(t, fams, "mcpdeck_server_notifications_total", "b", 1)

	src.set(ServerStats{Server: "b", State: "degraded", Notifications: 9})
	fams = scrape(t, ms.URL())
	wantValue(t, fams, "mcpdeck_server_notifications_total", "b", 9)
	if m := find(fams["mcpdeck_server_state"], map[string]string{"mcpdeck_server_name": "a"}); m != nil {
		t.Errorf("removed server a still exported: %v", labelsOf(m))
	}
	if m := find(fams["mcpdeck_server_state"], map[string]string{"mcpdeck_server_name": "b", "mcpdeck_server_state": "degraded"}); m.GetGauge().GetValue() != 1 {
		t.Errorf("b degraded = %v, want 1", m)
	}
	if fams["mcpdeck_gateway_clients"] != nil {
		t.Error("gateway metrics exported without a gateway source")
	}
}

// TestUnknownStateStillShown: a state missing from Options.States is
// exported as the current one rather than lost.
func TestUnknownStateStillShown(t *testing.T) {
	clearOTelEnv(t)
	tel := newTelemetry(t, Options{Metrics: true, States: []string{"ready"}, Source: func() []ServerStats {
		return []ServerStats{{Server: "x", State: "hibernating"}}
	}})
	ms, err := tel.ServeMetrics(t.Context(), "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	fams := scrape(t, ms.URL())
	if m := find(fams["mcpdeck_server_state"], map[string]string{"mcpdeck_server_state": "hibernating"}); m.GetGauge().GetValue() != 1 {
		t.Errorf("hibernating = %v, want 1", m)
	}
	if m := find(fams["mcpdeck_server_state"], map[string]string{"mcpdeck_server_state": "ready"}); m.GetGauge().GetValue() != 0 {
		t.Errorf("ready = %v, want 0", m)
	}
}

func TestServeMetricsRefusesNonLoopback(t *testing.T) {
	clearOTelEnv(t)
	tel := newTelemetry(t, Options{Metrics: true})
	for _, addr := range []string{":0", "0.0.0.0:0", "[::]:0", "example.com:9464"} {
		if _, err := tel.ServeMetrics(t.Context(), addr, false); !errors.Is(err, ErrNotLoopback) {
			t.Errorf("%s: err = %v, want ErrNotLoopback", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:9464", "127.0.0.2:9464", "[::1]:9464", "localhost:9464"} {
		if err := CheckMetricsAddr(addr, false); err != nil {
			t.Errorf("%s: %v", addr, err)
		}
	}
	if err := CheckMetricsAddr("9464", false); err == nil {
		t.Error("an address without a host part was accepted")
	}
	// Allowed explicitly, a wildcard address serves.
	ms, err := tel.ServeMetrics(t.Context(), ":0", true)
	if err != nil {
		t.Fatal(err)
	}
	if fams := scrape(t, ms.URL()); fams["target_info"] == nil {
		t.Error("no target_info from the wildcard listener")
	}
}

// TestServeMetricsStops: the listener closes when ctx ends, and Shutdown
// closes the ones still open.
func TestServeMetricsStops(t *testing.T) {
	clearOTelEnv(t)
	tel, err := New(Options{Metrics: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	byCtx, err := tel.ServeMetrics(ctx, "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	byShutdown, err := tel.ServeMetrics(context.Background(), "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-byCtx.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop when its context ended")
	}
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-byShutdown.done:
	default:
		t.Fatal("Shutdown returned with a metrics server still running")
	}
	if _, err := tel.ServeMetrics(context.Background(), "127.0.0.1:0", false); !errors.Is(err, ErrMetricsOff) {
		t.Errorf("serving after Shutdown: %v, want ErrMetricsOff", err)
	}
}
