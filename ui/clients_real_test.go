package ui

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/gateway"
)

// realToken is the bearer token of the real gateway in these tests.
const realToken = "ui-real-token-0123456789"

// bearer adds the token to every request of an HTTP client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// serveReal runs the UI on a real runtime (the demo server) with the real
// gateway serving it over Streamable HTTP on loopback, as --serve does.
func serveReal(t *testing.T, w, h int) (*harness, *gateway.Gateway, string) {
	t.Helper()
	var g *gateway.Gateway
	var url string
	hs, _ := startReal(t, runtime.Options{Config: &config.Config{Servers: []config.Server{demoServer(t)}}}, w, h, func(o *Options) {
		g = gateway.New(o.Runtime.(*runtime.Controller), gateway.Options{Version: "test"})
		mux := http.NewServeMux()
		mux.Handle("/mcp", g.Handler(gateway.HTTPOptions{Token: realToken, LoopbackOnly: true}))
		srv := httptest.NewServer(mux)
		url = srv.URL + "/mcp"
		// After the program stops, before the runtime shuts down: the
		// gateway ends its clients first, as the CLI does.
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := g.Close(ctx); err != nil {
				t.Errorf("closing the gateway: %v", err)
			}
			srv.Close()
		})
		o.Serving = &Serving{Gateway: g, URL: url, Token: realToken}
		o.Clipboard = func(string) error { return nil }
	})
	t.Cleanup(AttachGateway(g, hs.tm.Send))
	hs.p.mu.Lock()
	hs.p.onFrame = func(v string) {
		if strings.Contains(v, realToken) {
			t.Errorf("a frame shows the gateway token:\n%s", v)
		}
	}
	hs.p.mu.Unlock()
	return hs, g, url
}

// The real gateway inside the TUI: a go-sdk client attaches over HTTP and
// calls a slow tool; the Clients tab shows it with its call in flight,
// the Requests tab names it beside the runtime's request, and D (then y)
// disconnects it: its call ends with an error, the server's request is
// cancelled, and the header counts no client.
func TestClientsTabWithTheRealGateway(t *testing.T) {
	t.Parallel()
	hs, g, url := serveReal(t, 140, 40)
	hs.keys("m")
	hs.waitText("servers 1/1 ready", "clients 0 @ 127.0.0.1:")

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "ui-agent", Version: "3.1.4"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, HTTPClient: &http.Client{Transport: bearer{realToken}}}
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	hs.keys("0")
	hs.waitText("clients 1 @", "ui-agent (c1) 3.1.4", "legacy 2025-11-25", "http session", "Nothing in flight.")

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "from the agent"}})
	if err != nil || len(res.Content) == 0 || res.Content[0].(*mcp.TextContent).Text != "from the agent" {
		t.Fatalf("echo through the gateway: %v %+v", err, res)
	}
	hs.waitText("2 requests · 0 errors")

	called := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "demo__sleep", Arguments: map[string]any{"seconds": 30}}
		p.SetProgressToken("ui-1")
		_, err := cs.CallTool(ctx, p)
		called <- err
	}()
	hs.waitText("tools/call", "demo__sleep", "demo         #", "running")
	hs.keys("3")
	hs.waitText("CLIENT", "ui-agent", "sleep")
	hs.keys("0", "tab", "D")
	hs.waitText("Disconnect ui-agent (c1)?", "1 request in flight will be cancelled")
	hs.keys("y")
	hs.waitText("disconnected ui-agent (c1); its requests were cancelled", "clients 0", "No client attached")
	select {
	case err := <-called:
		if err == nil {
			t.Fatal("the disconnected client's call succeeded")
		}
	case <-ctx.Done():
		t.Fatal("the disconnected client's call never ended")
	}
	// The server was told: the runtime's request is gone.
	hs.waitText("requests 0")
	if n := len(g.Clients()); n != 0 {
		t.Fatalf("the gateway still has %d clients", n)
	}
}

// Quitting with a client's call in flight: the gateway ends the client
// first, so its call is cancelled (the server told) rather than failing
// because every server went away under it.
func TestQuitEndsGatewayClientsBeforeServers(t *testing.T) {
	t.Parallel()
	hs, g, url := serveReal(t, 120, 35)
	hs.keys("m")
	hs.waitText("servers 1/1 ready")
	events, stop := g.Subscribe()
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, HTTPClient: &http.Client{Transport: bearer{realToken}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "quitter", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	go func() {
		_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "demo__sleep", Arguments: map[string]any{"seconds": 30}})
	}()
	hs.waitText("requests 1", "clients 1")
	hs.keys("q")
	for {
		select {
		case e := <-events:
			if f, ok := e.(gateway.RequestFinished); ok && f.Request.Method == "tools/call" {
				if !f.Cancelled {
					t.Fatalf("the client's call ended with %q, not cancelled by the gateway's shutdown", f.Err)
				}
				return
			}
		case <-ctx.Done():
			t.Fatal("the client's call never finished")
		}
	}
}
