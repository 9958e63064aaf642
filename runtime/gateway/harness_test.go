package gateway

//lint:file-ignore SA1019 the Go SDK client speaks the session revisions here, where logging is current (deprecated only in 2026-07-28)

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
	"mcpdeck/runtime/runtimetest"
)

// peerServer is the go-sdk peer (jsonrpctest.GoSDKModern, this test binary
// re-executed) on stdio: echo, ask (elicitation), add_tool (list change),
// slow (progress, cancellable), log. The runtime speaks the legacy era
// to it, as it does to every server today.
func peerServer(name string) config.Server {
	path, args, _ := jsonrpctest.Command(jsonrpctest.GoSDKModern)
	return config.Server{
		Name: name, Transport: config.TransportStdio, Command: path, Args: args,
		Env: jsonrpctest.ServerEnv(jsonrpctest.GoSDKModern), Enabled: true,
		StartupTimeout: 20 * time.Second, CallTimeout: 20 * time.Second,
	}
}

// demoServer is mcpdeck's demo server: prompts, resources (subscribable),
// a resource template, completions, and a heartbeat log every 100 ms.
func demoServer(name string) config.Server {
	exe, _ := os.Executable()
	return config.Server{
		Name: name, Transport: config.TransportStdio, Command: exe, Args: []string{"-test.run=^$"},
		Env: map[string]string{envDemo: "1", "GORACE": "atexit_sleep_ms=0"}, Enabled: true,
		StartupTimeout: 20 * time.Second, CallTimeout: 20 * time.Second,
	}
}

// newRuntime starts a controller on servers with MCP enabled. Its
// Elicitor and Sampler decline, as mcpdeck gateway's do: they answer what a
// client cannot.
func newRuntime(t testing.TB, servers ...config.Server) *runtime.Controller {
	t.Helper()
	return runtimetest.Start(t, gatewayRuntime, servers...)
}

// gatewayRuntime are the runtime options `mcpdeck gateway` runs with.
var gatewayRuntime = runtime.Options{Elicitor: runtime.DeclineElicitor{}, Sampler: runtime.DeclineSampler{}, Relay: true}

// newGateway serves rt; it is closed before the runtime shuts down.
func newGateway(t testing.TB, rt *runtime.Controller, opts Options) *Gateway {
	t.Helper()
	g := New(rt, opts)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := g.Close(ctx); err != nil {
			t.Errorf("gateway close: %v", err)
		}
	})
	return g
}

func ctxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// pipeTransport attaches a go-sdk client to g over a pair of pipes: the
// stdio transport's framing, in process.
func pipeTransport(t testing.TB, g *Gateway) mcp.Transport {
	t.Helper()
	cr, sw := io.Pipe() // the gateway writes, the client reads
	sr, cw := io.Pipe() // the client writes, the gateway reads
	done := make(chan error, 1)
	go func() { done <- g.ServeStdio(context.Background(), sr, sw) }()
	t.Cleanup(func() {
		cw.Close()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Error("ServeStdio did not return after the client closed")
		}
	})
	return &mcp.IOTransport{Reader: cr, Writer: cw}
}

// clientEvents collects what a go-sdk client is told, in order.
type clientEvents struct {
	progress    chan *mcp.ProgressNotificationParams
	toolChanged chan struct{}
	logs        chan *mcp.LoggingMessageParams
	updated     chan string
	elicited    chan string
}

func newClientEvents() *clientEvents {
	return &clientEvents{progress: make(chan *mcp.ProgressNotificationParams, 1024), toolChanged: make(chan struct{}, 64),
		logs: make(chan *mcp.LoggingMessageParams, 4096), updated: make(chan string, 1024), elicited: make(chan string, 64)}
}

// goClient builds a go-sdk client that answers elicitations with the
// name "octocat" and records notifications in ev.
func goClient(name string, ev *clientEvents) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0.0"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			ev.elicited <- req.Params.Message
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "octocat"}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			ev.progress <- req.Params
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case ev.toolChanged <- struct{}{}:
			default:
			}
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			select {
			case ev.logs <- req.Params:
			default:
			}
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			select {
			case ev.updated <- req.Params.URI:
			default:
			}
		},
	})
}

// connect connects a go-sdk client in era ("legacy" asks for 2025-11-25,
// "modern" for 2026-07-28).
func connect(t testing.TB, c *mcp.Client, tr mcp.Transport, era string) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	if era == "modern" {
		opts.ProtocolVersion = "2026-07-28"
	}
	cs, err := c.Connect(ctxFor(t, 20*time.Second), tr, opts)
	if err != nil {
		t.Fatalf("connect (%s): %v", era, err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != opts.ProtocolVersion {
		t.Fatalf("negotiated %s, want %s", got, opts.ProtocolVersion)
	}
	return cs
}

func toolNames(tools []*mcp.Tool) string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	return strings.Join(names, ",")
}

func textOf(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// waitFor reads ch until ok accepts a value, failing at the deadline.
func waitFor[T any](t testing.TB, what string, ch <-chan T, ok func(T) bool) T {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case v := <-ch:
			if ok == nil || ok(v) {
				return v
			}
		case <-deadline:
			var zero T
			t.Fatalf("timed out waiting for %s", what)
			return zero
		}
	}
}

// testToken is the bearer token of the HTTP tests.
const testToken = "test-token-0123456789"

// serveHTTP serves g's endpoint on loopback at /mcp, with testToken.
func serveHTTP(t testing.TB, g *Gateway) string {
	t.Helper()
	return serveMux(t, newHTTPMux(g, HTTPOptions{Token: testToken, LoopbackOnly: true}))
}

func newHTTPMux(g *Gateway, opts HTTPOptions) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/mcp", g.Handler(opts))
	return mux
}

// serveMux serves mux on loopback and returns the /mcp URL.
func serveMux(t testing.TB, mux http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// bearer adds the token to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// httpTransport is a go-sdk Streamable HTTP client transport with the token.
func httpTransport(url string) mcp.Transport {
	return &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{testToken, http.DefaultTransport}}}
}
