package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/mcphttp"
)

// sdkServer serves the official Go SDK's Streamable HTTP server with an
// echo tool on loopback. expire makes every request with a session id
// answer 404, as a server that lost the session does.
func sdkServer(t *testing.T) (url string, expire *atomic.Bool) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "sdk-echo", Version: "1"}, nil)
	type args struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes"}, func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	expire = &atomic.Bool{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if expire.Load() && r.Header.Get("Mcp-Session-Id") != "" {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		ts.Close()
		// A session the client lost to expiry was never DELETEd.
		for ss := range s.Sessions() {
			ss.Close()
		}
	})
	return ts.URL, expire
}

func TestRemoteServerOverHTTP(t *testing.T) {
	t.Parallel()
	url, expire := sdkServer(t)
	srv := config.Server{Name: "remote", Transport: config.TransportHTTP, URL: url, Enabled: true,
		Headers:        map[string]string{"Authorization": "Bearer secret-token-123"},
		StartupTimeout: 10 * time.Second, CallTimeout: 10 * time.Second,
		AutoReconnect: config.Reconnect{Enabled: true, MaxAttempts: 3, InitialBackoff: 50 * time.Millisecond, MaxBackoff: time.Second}}
	c := newController(t, srv)
	rec := record(t, c)
	enable(t, c)
	ctx := ctxFor(t, 20*time.Second)
	res, err := c.Call(ctx, CallRequest{Server: "remote", Tool: "echo", Arguments: json.RawMessage(`{"text":"over http"}`)})
	if err != nil || res.Content[0].Text != "over http" {
		t.Fatalf("echo over http: %+v, %v", res, err)
	}
	if v := serverOf(t, c, "remote"); v.Target != url || strings.Contains(v.Target, "secret") {
		t.Fatalf("target %q", v.Target)
	}

	// The session expires: the call is rejected with the cause, the server
	// fails (reconnectable) and reconnects with a fresh session.
	expire.Store(true)
	_, err = c.Call(ctx, CallRequest{Server: "remote", Tool: "echo", Arguments: json.RawMessage(`{"text":"x"}`)})
	if !errors.Is(err, jsonrpc.ErrClosed) || !errors.Is(err, mcphttp.ErrSessionExpired) {
		t.Fatalf("call on an expired session: %v", err)
	}
	rec.waitFor(t, "failed", stateIs("remote", StateFailed))
	expire.Store(false)
	rec.waitFor(t, "re-initialized", stateIs("remote", StateReady))
	if _, err := c.Call(ctx, CallRequest{Server: "remote", Tool: "echo", Arguments: json.RawMessage(`{"text":"again"}`)}); err != nil {
		t.Fatalf("call after reconnect: %v", err)
	}
	for _, e := range drain(rec) {
		if b, _ := json.Marshal(e); strings.Contains(string(b), "secret-token-123") {
			t.Fatalf("header value in event %T", e)
		}
	}
}
