package runtime

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/mcp"
	"mcpdeck/runtime/telemetry"
)

// attrs is a span's attributes as strings (ints in decimal).
func attrs(s *tracepb.Span) map[string]string {
	out := map[string]string{}
	for _, kv := range s.GetAttributes() {
		v := kv.GetValue()
		switch {
		case v.GetStringValue() != "":
			out[kv.GetKey()] = v.GetStringValue()
		default:
			out[kv.GetKey()] = json.Number(jsonInt(v.GetIntValue())).String()
		}
	}
	return out
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

// spansNamed returns the spans called name so far.
func (c *collector) spansNamed(name string) []*tracepb.Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*tracepb.Span
	for _, s := range c.spans {
		if s.GetName() == name {
			out = append(out, s)
		}
	}
	return out
}

func tracedController(t *testing.T, servers ...config.Server) (*Controller, *collector) {
	t.Helper()
	for _, k := range []string{"OTEL_SDK_DISABLED", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_SAMPLER"} {
		t.Setenv(k, "")
	}
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "10")
	col, url := newCollector(t)
	tel, err := telemetry.New(telemetry.Options{Metrics: true, OTLPEndpoint: url, States: allStateNames()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	c := New(Options{Config: configOf(servers...), StopGrace: time.Second, Telemetry: tel})
	t.Cleanup(func() { _ = c.Shutdown(ctxFor(t, 20*time.Second)) })
	return c, col
}

// Every request the runtime makes is a CLIENT span with the conventions'
// attributes, not only a caller's: the era probe, initialize and the
// listing are children of the connection attempt's "connect" span, health
// checks are spans of their own, and a call is one too.
func TestEveryRequestIsASpan(t *testing.T) {
	demo := demoServer("demo")
	demo.PingInterval = 50 * time.Millisecond
	demo.LogLevel = "debug"
	c, col := tracedController(t, demo)
	rec := record(t, c)
	enable(t, c)
	if _, err := c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "demo", Tool: "echo", Arguments: json.RawMessage(`{"text":"x"}`)}); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "a ping", func(e Event) bool { h, ok := e.(HealthChecked); return ok && h.OK })

	connect := col.waitSpan(t, "connect")
	if connect.GetKind() != tracepb.Span_SPAN_KIND_INTERNAL || attrs(connect)["mcpdeck.server.name"] != "demo" ||
		attrs(connect)["mcp.protocol.version"] == "" || connect.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("connect span: %v %v", connect.GetKind(), attrs(connect))
	}
	child := func(name string) *tracepb.Span {
		t.Helper()
		s := col.waitSpan(t, name)
		if hex.EncodeToString(s.GetParentSpanId()) != hex.EncodeToString(connect.GetSpanId()) || hex.EncodeToString(s.GetTraceId()) != hex.EncodeToString(connect.GetTraceId()) {
			t.Errorf("%s is not a child of connect", name)
		}
		return s
	}
	for _, name := range []string{"server/discover", "initialize", "tools/list", "prompts/list", "resources/list", "logging/setLevel"} {
		s := child(name)
		a := attrs(s)
		if s.GetKind() != tracepb.Span_SPAN_KIND_CLIENT || a["mcp.method.name"] != name || a["network.transport"] != "pipe" ||
			a["jsonrpc.request.id"] == "" || a["mcpdeck.server.name"] != "demo" {
			t.Errorf("%s: kind %v attributes %v", name, s.GetKind(), a)
		}
		if name == "tools/list" && a["mcp.protocol.version"] != "2025-11-25" {
			t.Errorf("tools/list: protocol version %q", a["mcp.protocol.version"])
		}
	}
	// The demo server is legacy: the probe was answered with an error,
	// which the span says (error.type is the code).
	if a := attrs(col.waitSpan(t, "server/discover")); a["error.type"] == "" || a["rpc.response.status_code"] != a["error.type"] {
		t.Errorf("server/discover: %v", a)
	}
	ping := col.waitSpan(t, "ping")
	if len(ping.GetParentSpanId()) != 0 || attrs(ping)["mcp.method.name"] != "ping" || attrs(ping)["jsonrpc.request.id"] == "" {
		t.Errorf("ping: parent %x attributes %v", ping.GetParentSpanId(), attrs(ping))
	}
	col.waitSpan(t, "tools/call echo")

	// Health checks count in the conventions' operation duration too.
	fams := scrapeHandler(t, c.opts.Telemetry.Handler())
	if histogramCount(fams["mcp_client_operation_duration_seconds"], map[string]string{"mcp_method_name": "ping"}) == 0 {
		t.Error("no operation duration for ping")
	}
}

// A session-era Streamable HTTP server's requests carry mcp.session.id,
// the MCP-Session-Id it assigned.
func TestSpansCarryTheHTTPSessionID(t *testing.T) {
	url, _ := sdkServer(t)
	srv := config.Server{Name: "remote", Transport: config.TransportHTTP, URL: url, Enabled: true, Protocol: "legacy",
		StartupTimeout: 10 * time.Second, CallTimeout: 10 * time.Second, PingInterval: 50 * time.Millisecond}
	c, col := tracedController(t, srv)
	rec := record(t, c)
	enable(t, c)
	if _, err := c.Call(ctxFor(t, 10*time.Second), CallRequest{Server: "remote", Tool: "echo", Arguments: json.RawMessage(`{"text":"x"}`)}); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "a ping", func(e Event) bool { h, ok := e.(HealthChecked); return ok && h.OK })
	call := attrs(col.waitSpan(t, "tools/call echo"))
	ping := attrs(col.waitSpan(t, "ping"))
	list := attrs(col.waitSpan(t, "tools/list"))
	sid := call["mcp.session.id"]
	if sid == "" || ping["mcp.session.id"] != sid || list["mcp.session.id"] != sid {
		t.Errorf("session ids: call %q ping %q list %q", sid, ping["mcp.session.id"], list["mcp.session.id"])
	}
	if call["network.transport"] != "tcp" || call["network.protocol.name"] != "http" || call["server.address"] != "127.0.0.1" || call["server.port"] == "" {
		t.Errorf("call attributes %v", call)
	}
}

// A modern (2026-07-28) server: server/discover answers and is a child of
// connect, the listen stream is a span of its own that is not counted as
// an operation's latency, and health checks (server/discover) are spans.
func TestModernRequestsAreSpans(t *testing.T) {
	srv := fakeServer("m", jsonrpctest.Modern)
	srv.PingInterval = 50 * time.Millisecond
	c, col := tracedController(t, srv)
	rec := record(t, c)
	enable(t, c)
	rec.waitAny(t, "the listen acknowledged", func(e Event) bool {
		l, ok := e.(ListenChanged)
		return ok && l.Listen.State == ListenOpen
	})
	rec.waitFor(t, "a health check", func(e Event) bool { h, ok := e.(HealthChecked); return ok && h.OK })
	connect := col.waitSpan(t, "connect")
	if attrs(connect)["mcpdeck.protocol.era"] != "modern" {
		t.Errorf("connect: %v", attrs(connect))
	}
	discovers := func() []*tracepb.Span { return col.spansNamed("server/discover") }
	col.waitSpan(t, "tools/list")
	if len(discovers()) == 0 || attrs(discovers()[0])["error.type"] != "" {
		t.Fatalf("server/discover spans %v", discovers())
	}
	// The listen stream ends with the session: its span comes then.
	if err := c.SetEnabled(ctxFor(t, 20*time.Second), false); err != nil {
		t.Fatal(err)
	}
	listen := col.waitSpan(t, "subscriptions/listen")
	if a := attrs(listen); a["mcp.method.name"] != "subscriptions/listen" || a["jsonrpc.request.id"] == "" || a["mcp.protocol.version"] != mcp.LatestModern {
		t.Errorf("listen: %v", a)
	}
	fams := scrapeHandler(t, c.opts.Telemetry.Handler())
	if n := histogramCount(fams["mcp_client_operation_duration_seconds"], map[string]string{"mcp_method_name": "subscriptions/listen"}); n != 0 {
		t.Errorf("the listen stream's length was recorded as an operation duration %d times", n)
	}
	if n := histogramCount(fams["mcp_client_operation_duration_seconds"], map[string]string{"mcp_method_name": "server/discover"}); n == 0 {
		t.Error("no operation duration for server/discover")
	}
}

// The HTTP era probe (a server/discover sent as a raw exchange, before
// any connection) is a span under connect too.
func TestHTTPProbeIsASpan(t *testing.T) {
	url, _ := sdkServer(t)
	srv := config.Server{Name: "remote", Transport: config.TransportHTTP, URL: url, Enabled: true,
		StartupTimeout: 10 * time.Second, CallTimeout: 10 * time.Second}
	c, col := tracedController(t, srv)
	enable(t, c)
	connect := col.waitSpan(t, "connect")
	probe := col.waitSpan(t, "server/discover")
	a := attrs(probe)
	if hex.EncodeToString(probe.GetParentSpanId()) != hex.EncodeToString(connect.GetSpanId()) || a["network.transport"] != "tcp" ||
		a["jsonrpc.request.id"] != "0" || a["mcpdeck.server.name"] != "remote" {
		t.Errorf("probe span: parent %x (connect %x) attributes %v", probe.GetParentSpanId(), connect.GetSpanId(), a)
	}
	t.Logf("probe: %v; connect: %v", a, attrs(connect))
}
