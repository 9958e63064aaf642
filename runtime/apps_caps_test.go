package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/config"
	"mcpdeck/runtime/mcp"
)

// TestAppsDeclaredInBothEras: mcpdeck declares the MCP Apps extension to
// every server, also in a 2026-07-28 request's _meta beside the tasks
// extension (the modern envelope once replaced the extensions, so modern
// servers and the gateway's modern clients took mcpdeck for a model's
// client and hid their app-only tools). The peer is go-sdk v1.8.0's
// server over Streamable HTTP, asked what the request declared.
func TestAppsDeclaredInBothEras(t *testing.T) {
	t.Parallel()
	server := gosdk.NewServer(&gosdk.Implementation{Name: "caps", Version: "1"}, nil)
	server.AddTool(&gosdk.Tool{Name: "extensions", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *gosdk.CallToolRequest) (*gosdk.CallToolResult, error) {
			var ext []byte
			if caps := req.ClientCapabilities(); caps != nil {
				ext, _ = json.Marshal(caps.Extensions)
			}
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: string(ext)}}}, nil
		})
	// go-sdk serves the session revisions statefully (the capabilities
	// are the session's) and 2026-07-28 statelessly (the request's).
	urls := map[string]string{}
	for era, opts := range map[string]*gosdk.StreamableHTTPOptions{"legacy": nil, "modern": {Stateless: true}} {
		ts := httptest.NewServer(gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return server }, opts))
		t.Cleanup(ts.Close)
		urls[era] = ts.URL
	}

	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			c := newController(t, config.Server{Name: "caps", Transport: config.TransportHTTP, URL: urls[era], Protocol: era,
				Enabled: true, StartupTimeout: 20 * time.Second, CallTimeout: 10 * time.Second})
			enable(t, c)
			res, err := c.Call(ctxFor(t, 20*time.Second), CallRequest{Server: "caps", Tool: "extensions"})
			if err != nil {
				t.Fatal(err)
			}
			var ext map[string]json.RawMessage
			if err := json.Unmarshal([]byte(text(t, res)), &ext); err != nil {
				t.Fatalf("the server saw extensions %q: %v", text(t, res), err)
			}
			if _, ok := ext[mcp.ExtensionUI]; !ok {
				t.Errorf("%s: the server was not told mcpdeck hosts MCP Apps: extensions %s", era, text(t, res))
			}
			if _, ok := ext[mcp.ExtensionTasks]; era == "modern" && !ok {
				t.Errorf("modern: the tasks extension is no longer declared: %s", text(t, res))
			}
		})
	}
}
