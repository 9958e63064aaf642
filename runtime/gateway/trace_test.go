package gateway

import (
	"bytes"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
	"mcpdeck/runtime/telemetry"
	"mcpdeck/runtime/telemetry/otelcoltest"
)

// The client's trace: its trace id and the id of the span it sent the
// request under, as a W3C traceparent.
const (
	clientTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpanID  = "00f067aa0ba902b7"
	clientParent  = "00-" + clientTraceID + "-" + clientSpanID + "-01"
)

// otlpReceiver is an in-process OTLP/HTTP collector that decodes every
// export request's protobuf and keeps the spans.
type otlpReceiver struct {
	srv *httptest.Server

	mu    sync.Mutex
	spans []*tracepb.Span
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	r := &otlpReceiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		export, decodeErr := otelcoltest.DecodeTraces(body)
		if err != nil || req.URL.Path != "/v1/traces" || decodeErr != nil {
			http.Error(w, "want an OTLP/HTTP JSON export at /v1/traces", http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		for _, rs := range export.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				r.spans = append(r.spans, ss.GetSpans()...)
			}
		}
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("{}"))
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *otlpReceiver) got() []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tracepb.Span(nil), r.spans...)
}

// upstreamTrace watches the runtime's traffic for the tools/call sent to
// the server and the server's answer, and reports the traceparent each
// carried in its _meta. The traffic reaches subscribers after the call
// has returned, so the func it returns waits for the next answered call.
func upstreamTrace(t *testing.T, rt *runtime.Controller) func() (sent, echoed string) {
	events, cancel := rt.Subscribe(runtime.SubscribeOptions{Lossless: true})
	type pair struct{ sent, echoed string }
	answered := make(chan pair, 8)
	done := make(chan struct{})
	go func() {
		defer close(done)
		var callID, sent string
		for e := range events {
			f, ok := e.(runtime.TrafficFrame)
			if !ok {
				continue
			}
			switch {
			case f.Frame.Dir == jsonrpc.Out && f.Frame.Method == "tools/call":
				callID, sent = f.Frame.ID, traceparentIn(f.Frame.Raw, `"params"`)
			case f.Frame.Dir == jsonrpc.In && f.Frame.ID != "" && f.Frame.ID == callID:
				answered <- pair{sent, traceparentIn(f.Frame.Raw, `"result"`)}
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return func() (string, string) {
		select {
		case p := <-answered:
			return p.sent, p.echoed
		case <-time.After(10 * time.Second):
			t.Fatal("no tools/call answered upstream within 10s")
			return "", ""
		}
	}
}

// traceparentIn returns the traceparent value after member in raw JSON.
func traceparentIn(raw []byte, member string) string {
	i := bytes.Index(raw, []byte(member))
	if i < 0 {
		return ""
	}
	rest := string(raw[i:])
	_, v, ok := strings.Cut(rest, `"traceparent":"`)
	if !ok {
		return ""
	}
	v, _, _ = strings.Cut(v, `"`)
	return v
}

// callTraced calls the demo server's echo through the gateway with the
// client's trace context in _meta.
func callTraced(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	res, err := cs.CallTool(ctxFor(t, 20*time.Second), &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "traced"},
		Meta: mcp.Meta{telemetry.MetaTraceparent: clientParent, telemetry.MetaTracestate: "vendor=1"}})
	if err != nil || textOf(res) != "traced" {
		t.Fatalf("echo: %v %+v", err, res)
	}
}

// A client's trace context goes through the gateway to the server, in
// both eras, with telemetry off: the server receives the client's
// traceparent in its request's _meta (and the demo server echoes it).
func TestTraceContextReachesTheServer(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t, demoServer("demo"))
	g := newGateway(t, rt, Options{})
	trace := upstreamTrace(t, rt)
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			cs := connect(t, goClient("tracer-"+era, newClientEvents()), httpTransport(serveHTTP(t, g)), era)
			callTraced(t, cs)
			sent, echoed := trace()
			if sent != clientParent || echoed != clientParent {
				t.Fatalf("traceparent sent to the server %q, echoed %q; want the client's %q", sent, echoed, clientParent)
			}
		})
	}
}

// With traces exported, the gateway continues the client's trace: the
// runtime's CLIENT span of the forwarded call has the client's trace id
// and the client's span as its parent, and the server receives that span
// as its parent, in the same trace.
func TestTraceContextContinuesInTheGatewaySpan(t *testing.T) {
	t.Parallel()
	recv := newOTLPReceiver(t)
	tel, err := telemetry.New(telemetry.Options{OTLPEndpoint: recv.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime.New(runtime.Options{Config: &config.Config{Servers: []config.Server{demoServer("demo")}}, Elicitor: runtime.DeclineElicitor{},
		StopGrace: 500 * time.Millisecond, Telemetry: tel})
	t.Cleanup(func() { _ = rt.Shutdown(ctxFor(t, 30*time.Second)) })
	if err := rt.SetEnabled(ctxFor(t, 60*time.Second), true); err != nil {
		t.Fatal(err)
	}
	g := newGateway(t, rt, Options{})
	trace := upstreamTrace(t, rt)
	cs := connect(t, goClient("tracer", newClientEvents()), pipeTransport(t, g), "legacy")
	callTraced(t, cs)
	if err := tel.Shutdown(ctxFor(t, 20*time.Second)); err != nil { // flushes the spans
		t.Fatal(err)
	}
	var span *tracepb.Span
	for _, s := range recv.got() {
		if strings.HasPrefix(s.GetName(), "tools/call") {
			span = s
		}
	}
	if span == nil {
		t.Fatalf("no tools/call span among %d exported", len(recv.got()))
	}
	if got := hex.EncodeToString(span.GetTraceId()); got != clientTraceID {
		t.Errorf("the gateway's span is in trace %s, not the client's %s", got, clientTraceID)
	}
	if got := hex.EncodeToString(span.GetParentSpanId()); got != clientSpanID {
		t.Errorf("the gateway's span has parent %s, not the client's span %s", got, clientSpanID)
	}
	if span.GetKind() != tracepb.Span_SPAN_KIND_CLIENT {
		t.Errorf("span kind %v", span.GetKind())
	}
	sent, echoed := trace()
	want := "00-" + clientTraceID + "-" + hex.EncodeToString(span.GetSpanId()) + "-01"
	if sent != want || echoed != want {
		t.Errorf("the server got traceparent %q (echoed %q); want the gateway span's %q", sent, echoed, want)
	}
}
