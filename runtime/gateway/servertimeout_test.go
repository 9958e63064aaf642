package gateway

import (
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServersCallTimeoutThroughTheGateway: a server's own callTimeout in
// mcp.json bounds a call through the gateway as it bounds call, the TUI
// and the gateway's prompts and reads; the gateway's callTimeout (60 s by
// default) can shorten it, not replace it with a longer one. It used to
// replace it: a hanging tool of a server set to 1 s held its gateway
// client for the gateway's whole minute.
func TestServersCallTimeoutThroughTheGateway(t *testing.T) {
	t.Parallel()
	hang := hangServer("hang")
	hang.CallTimeout = time.Second
	rt := newRuntime(t, hang)
	g := newGateway(t, rt, Options{Config: gatewayConfig(t, `{"clients": [{"match": "quick", "callTimeout": "300ms"}]}`)})
	for _, tc := range []struct{ client, era, after string }{
		{"plain", "legacy", "1s"},
		{"plain", "modern", "1s"},
		{"quick", "legacy", "300ms"}, // the client's own bound, shorter, still wins
	} {
		t.Run(tc.client+"-"+tc.era, func(t *testing.T) {
			cl := connect(t, goClient(tc.client, newClientEvents()), pipeTransport(t, g), tc.era)
			_, err := cl.CallTool(ctxFor(t, 20*time.Second), &mcp.CallToolParams{Name: "hang__echo", Arguments: map[string]any{"text": "x"}})
			if e := rpcErr(err); e == nil || e.Code != CodeTimeout || !strings.Contains(e.Message, "timed out after "+tc.after) {
				t.Fatalf("a hanging call: %v, want a timeout after %s", err, tc.after)
			}
		})
	}
}
