package telemetry

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"mcpdeck/runtime/telemetry/otelcoltest"
)

// exportTo builds telemetry exporting to the real collector, records a
// tool call named tool (an isError result when failed), and shuts the
// telemetry down, which flushes it.
func exportTo(t *testing.T, opts Options, tool string, failed bool) {
	t.Helper()
	tel, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	info := RequestInfo{Method: "tools/call", Target: tool, Server: "demo", Transport: "stdio", ProtocolVersion: "2025-11-25",
		Era: EraLegacy, RequestID: "7"}
	_, sp := tel.StartRequest(context.Background(), info)
	sp.Progress(1, 2, "half")
	if failed {
		sp.End(nil, ErrorTypeToolError)
	} else {
		sp.End(nil, "")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tel.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

func spanNamed(spans []otelcoltest.Span, name string) (otelcoltest.Span, bool) {
	for _, s := range spans {
		if s.Name == name {
			return s, true
		}
	}
	return otelcoltest.Span{}, false
}

func has(name string) func([]otelcoltest.Span) bool {
	return func(spans []otelcoltest.Span) bool { _, ok := spanNamed(spans, name); return ok }
}

// TestRealCollector exports to a real OpenTelemetry Collector (its otlp
// receiver decodes what mcpdeck sends, its file exporter writes it out):
// the span arrives with the conventions' attributes, its events and
// status, and the resource, over each way of naming the collector
// (--otlp, OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
// gzip-compressed as OTEL_EXPORTER_OTLP_COMPRESSION asks.
func TestRealCollector(t *testing.T) {
	col := otelcoltest.Start(t)

	clearOTelEnv(t)
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test")
	exportTo(t, Options{OTLPEndpoint: col.Endpoint, ServiceVersion: "1.2.3"}, "by_flag", true)
	spans := col.WaitSpans(t, "the span exported with --otlp", has("tools/call by_flag"))
	s, _ := spanNamed(spans, "tools/call by_flag")
	for k, want := range map[string]string{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "by_flag", "gen_ai.operation.name": "execute_tool",
		"jsonrpc.request.id": "7", "mcp.protocol.version": "2025-11-25", "network.transport": "pipe",
		"error.type": "tool_error", "mcpdeck.server.name": "demo",
	} {
		if got := s.Attr(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if s.Kind != 3 || s.StatusCode != 2 || len(s.Events) != 1 || s.Events[0] != "notifications/progress" || len(s.TraceID) != 32 || !s.End.After(s.Start) {
		t.Errorf("span %+v", s)
	}
	if s.ResourceAttr("service.name") != "mcpdeck" || s.ResourceAttr("service.version") != "1.2.3" || s.ResourceAttr("deployment.environment") != "test" {
		t.Errorf("resource %v", s.Resource)
	}

	clearOTelEnv(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", col.Endpoint)
	t.Setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip")
	t.Setenv("OTEL_SERVICE_NAME", "mcpdeck-host-7")
	exportTo(t, Options{}, "by_env", false)
	spans = col.WaitSpans(t, "the span exported with OTEL_EXPORTER_OTLP_ENDPOINT, gzipped", has("tools/call by_env"))
	if s, _ := spanNamed(spans, "tools/call by_env"); s.ResourceAttr("service.name") != "mcpdeck-host-7" || s.StatusCode == 2 || s.Attr("error.type") != "" {
		t.Errorf("by env: %+v", s)
	}

	clearOTelEnv(t)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", col.Endpoint+"/v1/traces")
	exportTo(t, Options{}, "by_traces_env", false)
	col.WaitSpans(t, "the span exported with OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", has("tools/call by_traces_env"))
}

// TestSamplerFromEnv: OTEL_TRACES_SAMPLER is honoured (the SDK reads it):
// always_off and a ratio of 0 export nothing, while the same telemetry
// otherwise exports; the span that follows them is the proof the
// collector was listening.
func TestSamplerFromEnv(t *testing.T) {
	col := otelcoltest.Start(t)
	for _, tc := range []struct{ sampler, arg string }{{"always_off", ""}, {"traceidratio", "0"}, {"parentbased_traceidratio", "0"}} {
		clearOTelEnv(t)
		t.Setenv("OTEL_TRACES_SAMPLER", tc.sampler)
		t.Setenv("OTEL_TRACES_SAMPLER_ARG", tc.arg)
		exportTo(t, Options{OTLPEndpoint: col.Endpoint}, "sampled_out_"+tc.sampler, false)
	}
	clearOTelEnv(t)
	t.Setenv("OTEL_TRACES_SAMPLER", "always_on")
	exportTo(t, Options{OTLPEndpoint: col.Endpoint}, "sampled_in", false)
	spans := col.WaitSpans(t, "the sampled span", has("tools/call sampled_in"))
	for _, s := range spans {
		if s.Name != "tools/call sampled_in" {
			t.Errorf("a sampled-out span reached the collector: %s", s.Name)
		}
	}
}

// A collector that is not there costs the flush at most the OTLP timeout,
// and the failure is an error of Shutdown, not a hang.
func TestFlushBoundedWhenCollectorIsDown(t *testing.T) {
	clearOTelEnv(t)
	t.Setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "300")
	if FlushTimeout() != 300*time.Millisecond {
		t.Fatalf("FlushTimeout %s", FlushTimeout())
	}
	tel, err := New(Options{OTLPEndpoint: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	_, sp := tel.StartRequest(context.Background(), RequestInfo{Method: "ping", Server: "s"})
	sp.End(nil, "")
	ctx, cancel := context.WithTimeout(context.Background(), FlushTimeout())
	defer cancel()
	if err := tel.Shutdown(ctx); err == nil || !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("shutdown with the collector down: %v; want the failure", err)
	}
}
