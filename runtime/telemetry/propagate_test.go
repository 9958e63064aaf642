package telemetry

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"mcpdeck/jsonrpc"
)

// startDemo runs the demo server as a child process (this test binary,
// re-executed) and returns a connection to it, initialized.
func startDemo(t *testing.T) *jsonrpc.Conn {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), demoEnv+"=1", "GORACE=atexit_sleep_ms=0")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	conn := jsonrpc.NewConn(jsonrpc.NewStdioStream(stdout, stdin, stdin, jsonrpc.StdioOptions{}), jsonrpc.Options{})
	t.Cleanup(func() {
		conn.Close() // closes stdin: the demo server exits at EOF
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("demo server exited: %v", err)
			}
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Error("demo server did not exit at EOF")
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := conn.Call(ctx, "initialize", map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "telemetry-test", "version": "0"},
	}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if err := conn.Notify(ctx, "notifications/initialized", nil); err != nil {
		t.Fatal(err)
	}
	return conn
}

// TestPropagationThroughDemoServer: the traceparent Inject writes into a
// tools/call's _meta reaches a real server process, which echoes it; it
// names the very span the collector receives.
func TestPropagationThroughDemoServer(t *testing.T) {
	clearOTelEnv(t)
	rcv := newReceiver(t)
	tel, err := New(Options{OTLPEndpoint: rcv.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	conn := startDemo(t)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	info := RequestInfo{Method: "tools/call", Target: "echo", Server: "demo", Transport: "stdio", ProtocolVersion: "2025-11-25", Era: EraLegacy}
	spanCtx, sp := tel.StartRequest(ctx, info)
	meta := map[string]any{"progressToken": "p1"}
	Inject(spanCtx, meta)
	params := map[string]any{"name": "echo", "arguments": map[string]any{"text": "traced"}, "_meta": meta}
	raw, err := conn.Call(spanCtx, "tools/call", params, jsonrpc.WithIDFunc(func(id uint64) { sp.SetRequestID(jsonrpc.FormatID(id)) }))
	sp.End(err, "")
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	var result struct {
		Meta map[string]string `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &result); err != nil {
		t.Fatal(err)
	}
	echoed := result.Meta["traceparent"]
	sc := sp.SpanContext()
	want := fmt.Sprintf("00-%s-%s-01", sc.TraceID(), sc.SpanID())
	if echoed != want {
		t.Fatalf("the demo server echoed traceparent %q, want the span's %q", echoed, want)
	}

	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := one(t, rcv.got(), "tools/call echo")
	parts := strings.Split(echoed, "-")
	if hexID(s.GetTraceId()) != parts[1] || hexID(s.GetSpanId()) != parts[2] {
		t.Errorf("exported span %s/%s, echoed traceparent %s", hexID(s.GetTraceId()), hexID(s.GetSpanId()), echoed)
	}
	wantAttrs(t, s, map[string]any{"jsonrpc.request.id": "2", "gen_ai.tool.name": "echo"})
}

// TestExtractContinuesTrace: the gateway's path. A client's _meta carries
// its trace context; the span started from Extract's context is its
// child, and Inject passes the same trace on to the server.
func TestExtractContinuesTrace(t *testing.T) {
	clearOTelEnv(t)
	rcv := newReceiver(t)
	tel, err := New(Options{OTLPEndpoint: rcv.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	const clientTrace, clientSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	incoming := map[string]any{"traceparent": "00-" + clientTrace + "-" + clientSpan + "-01", "tracestate": "rojo=1", "baggage": "tenant=acme", "other": 7}
	ctx := Extract(context.Background(), incoming)
	ctx, sp := tel.StartRequest(ctx, RequestInfo{Method: "tools/call", Target: "echo", Server: "demo"})
	out := map[string]any{}
	Inject(ctx, out)
	sp.End(nil, "")
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := one(t, rcv.got(), "tools/call echo")
	if hexID(s.GetTraceId()) != clientTrace || hexID(s.GetParentSpanId()) != clientSpan {
		t.Errorf("span %s parent %s, want trace %s parent %s", hexID(s.GetTraceId()), hexID(s.GetParentSpanId()), clientTrace, clientSpan)
	}
	if want := "00-" + clientTrace + "-" + hexID(s.GetSpanId()) + "-01"; out["traceparent"] != want {
		t.Errorf("forwarded traceparent %v, want %s", out["traceparent"], want)
	}
	if out["tracestate"] != "rojo=1" || out["baggage"] != "tenant=acme" {
		t.Errorf("forwarded %v, want tracestate and baggage passed on", out)
	}

	// Without trace context Extract changes nothing and Inject writes nothing.
	plain := context.Background()
	if Extract(plain, map[string]any{"progressToken": 1}) != plain {
		t.Error("Extract without traceparent returned a new context")
	}
	empty := map[string]any{}
	Inject(plain, empty)
	if len(empty) != 0 {
		t.Errorf("Inject without a span wrote %v", empty)
	}
}

// TestPassThroughWhenOff: a gateway whose own tracing is off still passes a
// client's trace context on.
func TestPassThroughWhenOff(t *testing.T) {
	clearOTelEnv(t)
	tel, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	tp := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	ctx := Extract(context.Background(), map[string]any{"traceparent": tp})
	ctx, sp := tel.StartRequest(ctx, RequestInfo{Method: "ping"})
	out := map[string]any{}
	Inject(ctx, out)
	sp.End(nil, "")
	if out["traceparent"] != tp {
		t.Errorf("traceparent %v, want the client's %s", out["traceparent"], tp)
	}
}
