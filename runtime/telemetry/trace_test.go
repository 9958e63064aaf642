package telemetry

import (
	"context"
	"errors"
	"fmt"
	"testing"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// wantAttrs fails when a span lacks an attribute or has another value;
// a nil value means the attribute must be absent.
func wantAttrs(t *testing.T, s *tracepb.Span, want map[string]any) {
	t.Helper()
	got := attrs(s.GetAttributes())
	for k, v := range want {
		if v == nil {
			if g, ok := got[k]; ok {
				t.Errorf("span %q: %s = %v, want it absent", s.GetName(), k, g)
			}
			continue
		}
		if g := got[k]; fmt.Sprint(g) != fmt.Sprint(v) {
			t.Errorf("span %q: %s = %v, want %v", s.GetName(), k, g, v)
		}
	}
}

func one(t *testing.T, spans []*tracepb.Span, name string) *tracepb.Span {
	t.Helper()
	got := byName(spans, name)
	if len(got) != 1 {
		var names []string
		for _, s := range spans {
			names = append(names, s.GetName())
		}
		t.Fatalf("%d spans named %q, want 1; spans: %q", len(got), name, names)
	}
	return got[0]
}

// TestSpansExported sends spans through the real OTLP/HTTP exporter to an
// in-process collector and checks the conventions' names, kinds,
// attributes, events and statuses, and the resource.
func TestSpansExported(t *testing.T) {
	clearOTelEnv(t)
	rcv := newReceiver(t)
	tel, err := New(Options{OTLPEndpoint: rcv.srv.URL, ServiceVersion: "1.2.3", ResourceAttributes: map[string]string{"deployment.environment.name": "test"}})
	if err != nil {
		t.Fatal(err)
	}
	if !tel.TracesEnabled() || tel.MetricsEnabled() {
		t.Fatalf("traces %v metrics %v, want traces only", tel.TracesEnabled(), tel.MetricsEnabled())
	}
	ctx := context.Background()
	stdio := RequestInfo{Server: "demo", Era: EraLegacy, Transport: "stdio", ProtocolVersion: "2025-11-25"}

	info := stdio
	info.Method, info.Target, info.RequestID, info.SessionID = "tools/call", "sleep", "3", "sess-1"
	_, sp := tel.StartRequest(ctx, info)
	sp.Progress(1, 2, "slept 1 of 2 s")
	sp.Progress(1.5, 0, "")
	sp.End(nil, "")

	info = stdio
	info.Method, info.Target = "tools/call", "fail"
	_, sp = tel.StartRequest(ctx, info)
	sp.SetRequestID("4")
	sp.End(nil, ErrorTypeToolError)

	info = stdio
	info.Method, info.Target, info.RequestID = "resources/read", "demo://status", "5"
	_, sp = tel.StartRequest(ctx, info)
	sp.End(errors.New("resource not found: demo://nope"), ErrorTypeForCode(-32002))

	info = stdio
	info.Method, info.Target, info.RequestID = "prompts/get", "greet", "6"
	_, sp = tel.StartRequest(ctx, info)
	sp.Cancelled("timed out after 60s")
	sp.End(context.DeadlineExceeded, ErrorTypeTimeout)

	remote := RequestInfo{Method: "tools/list", Server: "remote", Era: EraModern, Transport: "http", ProtocolVersion: "2026-07-28", RequestID: "1", URL: "https://mcp.example.com/mcp"}
	_, sp = tel.StartRequest(ctx, remote)
	sp.End(errors.New("boom"), "")

	if err := tel.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	spans := rcv.got()
	if len(spans) != 5 {
		t.Fatalf("%d spans exported, want 5", len(spans))
	}
	for _, s := range spans {
		if s.GetKind() != tracepb.Span_SPAN_KIND_CLIENT {
			t.Errorf("span %q: kind %v, want CLIENT", s.GetName(), s.GetKind())
		}
		if s.GetEndTimeUnixNano() < s.GetStartTimeUnixNano() || s.GetStartTimeUnixNano() == 0 {
			t.Errorf("span %q: times %d..%d", s.GetName(), s.GetStartTimeUnixNano(), s.GetEndTimeUnixNano())
		}
	}

	sleep := one(t, spans, "tools/call sleep")
	wantAttrs(t, sleep, map[string]any{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "sleep", "gen_ai.operation.name": "execute_tool",
		"jsonrpc.request.id": "3", "mcp.session.id": "sess-1", "mcp.protocol.version": "2025-11-25",
		"network.transport": "pipe", "network.protocol.name": nil, "mcpdeck.server.name": "demo",
		"mcpdeck.protocol.era": "legacy", "mcpdeck.transport": "stdio", "error.type": nil,
	})
	if sleep.GetStatus().GetCode() != tracepb.Status_STATUS_CODE_UNSET {
		t.Errorf("successful span status %v, want UNSET", sleep.GetStatus())
	}
	if ev := sleep.GetEvents(); len(ev) != 2 || ev[0].GetName() != "notifications/progress" {
		t.Fatalf("events %v, want two notifications/progress", ev)
	} else {
		first, second := attrs(ev[0].GetAttributes()), attrs(ev[1].GetAttributes())
		if first["mcpdeck.progress.value"] != 1.0 || first["mcpdeck.progress.total"] != 2.0 || first["mcpdeck.progress.message"] != "slept 1 of 2 s" {
			t.Errorf("first progress event %v", first)
		}
		if _, has := second["mcpdeck.progress.total"]; has || second["mcpdeck.progress.value"] != 1.5 {
			t.Errorf("second progress event %v: no total was given", second)
		}
	}

	fail := one(t, spans, "tools/call fail")
	wantAttrs(t, fail, map[string]any{"error.type": "tool_error", "jsonrpc.request.id": "4", "rpc.response.status_code": nil})
	if fail.GetStatus().GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("isError span status %v, want ERROR", fail.GetStatus())
	}

	// The URI is an attribute, never part of the name.
	read := one(t, spans, "resources/read")
	wantAttrs(t, read, map[string]any{"mcp.resource.uri": "demo://status", "error.type": "-32002", "rpc.response.status_code": "-32002", "gen_ai.tool.name": nil})
	if st := read.GetStatus(); st.GetCode() != tracepb.Status_STATUS_CODE_ERROR || st.GetMessage() != "resource not found: demo://nope" {
		t.Errorf("status %v, want ERROR with the JSON-RPC message", st)
	}

	prompt := one(t, spans, "prompts/get greet")
	wantAttrs(t, prompt, map[string]any{"gen_ai.prompt.name": "greet", "error.type": "timeout", "gen_ai.operation.name": nil})
	if ev := prompt.GetEvents(); len(ev) != 1 || ev[0].GetName() != "notifications/cancelled" || attrs(ev[0].GetAttributes())["mcpdeck.cancel.reason"] != "timed out after 60s" {
		t.Errorf("cancellation event %v", ev)
	}

	list := one(t, spans, "tools/list")
	wantAttrs(t, list, map[string]any{"network.transport": "tcp", "network.protocol.name": "http", "server.address": "mcp.example.com",
		"server.port": 443, "mcpdeck.protocol.era": "modern", "error.type": "_OTHER", "mcp.protocol.version": "2026-07-28"})

	rcv.mu.Lock()
	res := rcv.resource
	rcv.mu.Unlock()
	if res["service.name"] != "mcpdeck" || res["service.version"] != "1.2.3" || res["deployment.environment.name"] != "test" || res["telemetry.sdk.language"] != "go" {
		t.Errorf("resource %v", res)
	}
}

// TestRetryLinked: MRTR rounds and reconnect retries are sibling spans
// under the caller's span, each linked to the one before.
func TestRetryLinked(t *testing.T) {
	clearOTelEnv(t)
	rcv := newReceiver(t)
	tel, err := New(Options{OTLPEndpoint: rcv.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	// The caller's own span (the gateway's, say) is the parent of every
	// round.
	parentCtx, parent := tel.StartRequest(context.Background(), RequestInfo{Method: "tools/call", Target: "ask", Server: "gateway"})
	info := RequestInfo{Method: "tools/call", Target: "ask", Server: "remote", Transport: "http", RequestID: "5"}
	_, round1 := tel.StartRequest(parentCtx, info)
	round1.End(nil, "")
	info.RequestID = "6"
	_, round2 := round1.Retry(parentCtx, info, "input_required")
	round2.End(nil, "")
	info.RequestID = "7"
	_, round3 := round2.Retry(parentCtx, info, "reconnect")
	round3.End(nil, "")
	parent.End(nil, "")
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	byID := map[string]*tracepb.Span{}
	for _, s := range byName(rcv.got(), "tools/call ask") {
		if id, ok := attrs(s.GetAttributes())["jsonrpc.request.id"].(string); ok {
			byID[id] = s
		}
	}
	var top *tracepb.Span
	for _, s := range rcv.got() {
		if attrs(s.GetAttributes())["mcpdeck.server.name"] == "gateway" {
			top = s
		}
	}
	r1, r2, r3 := byID["5"], byID["6"], byID["7"]
	if top == nil || r1 == nil || r2 == nil || r3 == nil {
		t.Fatalf("spans missing: parent %v rounds %v", top != nil, byID)
	}
	for _, r := range []*tracepb.Span{r1, r2, r3} {
		if hexID(r.GetParentSpanId()) != hexID(top.GetSpanId()) || hexID(r.GetTraceId()) != hexID(top.GetTraceId()) {
			t.Errorf("round %v is not a child of the caller's span", attrs(r.GetAttributes())["jsonrpc.request.id"])
		}
	}
	if len(r1.GetLinks()) != 0 {
		t.Errorf("first round has links %v", r1.GetLinks())
	}
	checkLink := func(r, prev *tracepb.Span, reason string, attempt int64) {
		t.Helper()
		wantAttrs(t, r, map[string]any{"mcpdeck.retry.reason": reason, "mcpdeck.retry.attempt": attempt})
		l := r.GetLinks()
		if len(l) != 1 || hexID(l[0].GetSpanId()) != hexID(prev.GetSpanId()) || hexID(l[0].GetTraceId()) != hexID(prev.GetTraceId()) {
			t.Fatalf("links %v, want one to the previous round", l)
		}
		if attrs(l[0].GetAttributes())["mcpdeck.retry.reason"] != reason {
			t.Errorf("link attributes %v", attrs(l[0].GetAttributes()))
		}
	}
	checkLink(r2, r1, "input_required", 1)
	checkLink(r3, r2, "reconnect", 2)
}
