package cli

import (
	"bufio"
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"mcpdeck/runtime"
	"mcpdeck/runtime/record"
	"mcpdeck/runtime/telemetry/otelcoltest"
)

// `mcpdeck gateway --record FILE`: what a client's call causes between
// mcpdeck and the server (the tools/call sent, the answer received) is in
// the recording, which is private and readable by replay.
func TestGatewayRecordBinary(t *testing.T) {
	t.Parallel()
	cfg, mark := gatewayPeerConfig(t)
	file := filepath.Join(t.TempDir(), "gateway.jsonl")
	cmd := mcpdeckCmd(t, "--config", cfg, "gateway", "--record", file, "--record-max", "10MB")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := gatewayClient(make(chan string, 1)).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	const text = "recorded through the gateway"
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__echo", Arguments: map[string]any{"text": text}})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != text {
		t.Fatalf("echo: %v %+v", err, res)
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("close: %v\n%s", err, stderr.String())
	}
	noProcessMarked(t, mark)
	info, err := os.Stat(file)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the recording: %v %v", info, err)
	}
	rec, err := record.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var sent, answered, ready bool
	var callID string
	for _, e := range rec.Entries {
		switch ev := e.Event.(type) {
		case runtime.TrafficFrame:
			if ev.Server != "peer" {
				continue
			}
			raw := string(ev.Frame.Raw)
			if ev.Frame.Dir.String() == "out" && ev.Frame.Method == "tools/call" && strings.Contains(raw, text) {
				sent, callID = true, ev.Frame.ID
			}
			if ev.Frame.Dir.String() == "in" && ev.Frame.ID == callID && callID != "" && strings.Contains(raw, text) {
				answered = true
			}
		case runtime.StateChanged:
			ready = ready || (ev.Server == "peer" && ev.To == runtime.StateReady)
		}
	}
	if !sent || !answered || !ready {
		t.Fatalf("the recording has the call sent %v, its answer %v, the server ready %v (%d entries)\n%s", sent, answered, ready, len(rec.Entries), stderr.String())
	}
}

// gatewayRun is `mcpdeck gateway --http` running, with what it announced.
type gatewayRun struct {
	cmd        *exec.Cmd
	url, token string
	metrics    string // the /metrics URL, when --metrics was given
	lines      chan string
	seen       []string
}

// startGatewayHTTP runs the gateway on a free loopback port with args
// and waits for its endpoint, token and (with --metrics) metrics URL.
func startGatewayHTTP(t *testing.T, cfg string, args ...string) *gatewayRun {
	t.Helper()
	return startGatewayHTTPEnv(t, nil, cfg, args...)
}

// startGatewayHTTPEnv is startGatewayHTTP with env added to the gateway's
// environment (testEnv), for a test that sets its HOME or state directory
// without changing its own process's (t.Setenv would keep it serial).
func startGatewayHTTPEnv(t *testing.T, env []string, cfg string, args ...string) *gatewayRun {
	t.Helper()
	return startServingHTTP(t, "mcpdeck gateway", env, append([]string{"--config", cfg, "gateway", "--http", "127.0.0.1:0"}, args...)...)
}

// startServingHTTP runs the binary with argv and env added to its
// environment, a command that serves MCP over Streamable HTTP and
// announces itself on stderr as who (the gateway, replay --serve), and
// waits for its endpoint, token and (with --metrics) metrics URL.
func startServingHTTP(t *testing.T, who string, env []string, argv ...string) *gatewayRun {
	t.Helper()
	cmd := mcpdeckCmd(t, argv...)
	cmd.Env = testEnv(t, append([]string{"MCPDECK_GATEWAY_TOKEN="}, env...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &gatewayRun{cmd: cmd, lines: make(chan string, 256)}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
		close(r.lines)
	}()
	wantMetrics := strings.Contains(strings.Join(argv, " "), "--metrics")
	metricsURL := regexp.MustCompile(`msg="serving metrics" url=(\S+)`)
	deadline := time.After(30 * time.Second)
	for r.url == "" || r.token == "" || (wantMetrics && r.metrics == "") {
		select {
		case l, ok := <-r.lines:
			if !ok {
				t.Fatalf("%s ended before announcing itself:\n%s", who, strings.Join(r.seen, "\n"))
			}
			r.seen = append(r.seen, l)
			if u, ok := strings.CutPrefix(l, who+": serving MCP (Streamable HTTP) at "); ok {
				r.url = u
			}
			if _, tok, ok := strings.Cut(l, "(send Authorization: Bearer TOKEN): "); ok {
				r.token = tok
			}
			if m := metricsURL.FindStringSubmatch(l); m != nil {
				r.metrics = m[1]
			}
		case <-deadline:
			t.Fatalf("no URL, token or metrics URL on stderr:\n%s", strings.Join(r.seen, "\n"))
		}
	}
	return r
}

// stop sends SIGTERM and expects a clean exit.
func (r *gatewayRun) stop(t *testing.T) {
	t.Helper()
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	for l := range r.lines {
		r.seen = append(r.seen, l)
	}
	if err := r.cmd.Wait(); err != nil {
		t.Fatalf("%s after SIGTERM: %v\n%s", strings.Join(r.cmd.Args[1:], " "), err, strings.Join(r.seen, "\n"))
	}
}

// client connects a go-sdk client over HTTP with the gateway's token.
func (r *gatewayRun) client(t *testing.T, ctx context.Context, name string) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: r.url, MaxRetries: -1, HTTPClient: &http.Client{Transport: bearerRT{r.token}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return cs
}

// `mcpdeck gateway --metrics`: a scrape while a client is attached counts
// it and its calls (parsed with the Prometheus text parser), and the
// client's leaving shows in the next scrapes.
func TestGatewayMetricsBinary(t *testing.T) {
	t.Parallel()
	cfg, mark := gatewayPeerConfig(t)
	r := startGatewayHTTP(t, cfg, "--metrics", "127.0.0.1:0")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := r.client(t, ctx, "metrics-client")
	for _, text := range []string{"one", "two"} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__echo", Arguments: map[string]any{"text": text}}); err != nil {
			t.Fatal(err)
		}
	}
	fams := waitMetrics(t, r.metrics, "one client and two calls", func(f map[string]*dto.MetricFamily) bool {
		clients, _ := metricValue(f, "mcpdeck_gateway_clients", nil)
		calls, _ := metricValue(f, "mcpdeck_gateway_calls_total", nil)
		return clients == 1 && calls == 2
	})
	for name, typ := range map[string]dto.MetricType{"mcpdeck_gateway_clients": dto.MetricType_GAUGE, "mcpdeck_gateway_calls_total": dto.MetricType_COUNTER} {
		if fams[name].GetType() != typ {
			t.Errorf("%s is a %v, want a %v", name, fams[name].GetType(), typ)
		}
	}
	// The calls the gateway forwarded are the runtime's client operations
	// towards the server.
	if n, ok := metricValue(fams, "mcp_client_operation_duration_seconds", map[string]string{"mcp_method_name": "tools/call", "gen_ai_tool_name": "echo"}); !ok || n < 2 {
		t.Errorf("mcp_client_operation_duration_seconds for echo: %v %v", n, ok)
	}
	cs.Close()
	waitMetrics(t, r.metrics, "no client after it closed its session", func(f map[string]*dto.MetricFamily) bool {
		clients, ok := metricValue(f, "mcpdeck_gateway_clients", nil)
		return ok && clients == 0
	})
	r.stop(t)
	noProcessMarked(t, mark)
}

// The client's trace, as W3C traceparent.
const (
	gwTraceID   = "0af7651916cd43dd8448eb211c80319c"
	gwSpanID    = "b7ad6b7169203331"
	gwTraceCtx  = "00-" + gwTraceID + "-" + gwSpanID + "-01"
	otlpTimeout = 30 * time.Second
)

// `mcpdeck gateway --otlp URL` continues a client's trace: an in-process
// OTLP/HTTP collector receives the gateway's span of the forwarded call in
// the client's trace, as a child of the client's span.
func TestGatewayOTLPBinary(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var spans []*tracepb.Span
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		export, err := otelcoltest.DecodeTraces(body)
		if req.URL.Path != "/v1/traces" || err != nil {
			http.Error(w, "not an OTLP/HTTP trace export", http.StatusBadRequest)
			return
		}
		mu.Lock()
		for _, rs := range export.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				spans = append(spans, ss.GetSpans()...)
			}
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("{}"))
	}))
	defer collector.Close()

	cfg, mark := gatewayPeerConfig(t)
	cmd := mcpdeckCmd(t, "--config", cfg, "gateway", "--otlp", collector.URL)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), otlpTimeout)
	defer cancel()
	cs, err := gatewayClient(make(chan string, 1)).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__echo", Arguments: map[string]any{"text": "traced"},
		Meta: mcp.Meta{"traceparent": gwTraceCtx}}); err != nil {
		t.Fatal(err)
	}
	cs.Close() // the gateway exits, flushing its spans
	noProcessMarked(t, mark)
	mu.Lock()
	defer mu.Unlock()
	for _, s := range spans {
		if strings.HasPrefix(s.GetName(), "tools/call") {
			if hex.EncodeToString(s.GetTraceId()) != gwTraceID || hex.EncodeToString(s.GetParentSpanId()) != gwSpanID {
				t.Fatalf("the gateway's span is in trace %x under %x, not the client's %s under %s",
					s.GetTraceId(), s.GetParentSpanId(), gwTraceID, gwSpanID)
			}
			return
		}
	}
	t.Fatalf("no tools/call span among the %d exported\n%s", len(spans), stderr.String())
}
