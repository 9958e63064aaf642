package mcphttp_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/jsonrpc/mcphttp"
)

// The two benchmarks measure a tools/call round trip over loopback HTTP
// against the same in-process Go SDK streamable server: through our
// stream and jsonrpc.Conn, and through the Go SDK's own client.

func BenchmarkHTTPRoundTripOurs(b *testing.B) {
	ts, _, _ := startSDKStreamable(b, nil)
	c := dial(b, mcphttp.Options{URL: ts.URL})
	c.initialize(b)
	ctx := context.Background()
	args := map[string]any{"text": "ping"}
	b.ReportAllocs()
	for b.Loop() {
		res, err := c.callTool(ctx, "echo", args, nil)
		if err != nil || res.text() != "ping" {
			b.Fatalf("echo = %+v, %v", res, err)
		}
	}
}

func BenchmarkHTTPRoundTripGoSDK(b *testing.B) {
	ts, _, _ := startSDKStreamable(b, nil)
	ctx := context.Background()
	cl := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	cs, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "ping"}}
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || len(res.Content) != 1 {
			b.Fatalf("echo = %+v, %v", res, err)
		}
	}
}
