package gateway

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/config"
	"mcpdeck/runtime"
)

// TestRateLimits: a client's bucket (gateway.rateLimit) and a tool's
// (gateway.toolRateLimits) refuse with -32015 and when to retry; the
// bucket outlives the client's session, so reconnecting does not refill
// it; another client has its own; an entry of gateway.clients replaces
// the limit for the clients it matches.
func TestRateLimits(t *testing.T) {
	hour := config.GatewayRate{PerSecond: 1.0 / 3600, Burst: 2, Field: "gateway.rateLimit"}
	toolLimit := config.GatewayToolRate{Tools: "peer__ec*", GatewayRate: config.GatewayRate{PerSecond: 1.0 / 60, Burst: 1, Field: "gateway.toolRateLimits[0]"}}
	gw := &config.Gateway{
		Policy: config.GatewayPolicy{RateLimit: &hour, ToolRateLimits: []config.GatewayToolRate{toolLimit}},
		Clients: []config.GatewayClient{{Match: "batch-*", Field: "gateway.clients[0]",
			Policy: config.GatewayPolicy{RateLimit: &config.GatewayRate{PerSecond: 1000, Burst: 1000, Field: "gateway.clients[0].rateLimit"}}}},
	}
	g := newGateway(t, newRuntime(t, peerServer("peer")), Options{Config: gw})
	ctx := ctxFor(t, 60*time.Second)
	call := func(cs *mcp.ClientSession, tool string) error {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"text": "x", "message": "x"}})
		return err
	}

	a := connect(t, goClient("agent", newClientEvents()), pipeTransport(t, g), "legacy")
	if err := call(a, "peer__echo"); err != nil {
		t.Fatalf("first call: %v", err)
	}
	// The tool's bucket (1 a minute) is empty; the client's has one left.
	err := call(a, "peer__echo")
	e := rpcErr(err)
	if e == nil || e.Code != CodeRateLimited || !strings.Contains(e.Message, `tool "peer__echo" may make 1/m (burst 1; gateway.toolRateLimits[0]`) {
		t.Fatalf("second echo: %v", err)
	}
	var data struct {
		Reason       string `json:"reason"`
		RetryAfterMs int64  `json:"retryAfterMs"`
		Rule         string `json:"rule"`
	}
	if err := json.Unmarshal(e.Data, &data); err != nil || data.Reason != "rate_limited" || data.RetryAfterMs < 50_000 || data.RetryAfterMs > 60_000 {
		t.Fatalf("error data %s (%v): want reason rate_limited and retryAfterMs about a minute", e.Data, err)
	}
	wantKind(t, "a rate-limited call", e, "rate_limited", runtime.KindRefused)
	// A refusal costs nothing: the client's last token is still there.
	if err := call(a, "peer__log"); err != nil {
		t.Fatalf("another tool: %v", err)
	}
	err = call(a, "peer__log")
	if e := rpcErr(err); e == nil || e.Code != CodeRateLimited || !strings.Contains(e.Message, "this client may make 1/h (burst 2; gateway.rateLimit") {
		t.Fatalf("over the client's limit: %v", err)
	}
	if info := clientNamed(g, "agent"); info.Totals.Refused != 2 {
		t.Errorf("agent's refusals counted %d, want 2", info.Totals.Refused)
	}

	// Reconnecting does not refill the bucket.
	a.Close()
	a2 := connect(t, goClient("agent", newClientEvents()), pipeTransport(t, g), "modern")
	if e := rpcErr(call(a2, "peer__log")); e == nil || e.Code != CodeRateLimited {
		t.Fatalf("after reconnecting: %v, want still limited", e)
	}
	// Other clients have their own buckets; a gateway.clients entry sets
	// theirs (the tool limit stays: the entry does not set one).
	b := connect(t, goClient("batch-7", newClientEvents()), pipeTransport(t, g), "legacy")
	for i := range 5 {
		if err := call(b, "peer__log"); err != nil {
			t.Fatalf("batch-7 call %d: %v", i, err)
		}
	}
	if err := call(b, "peer__echo"); err != nil {
		t.Fatalf("batch-7's first echo: %v", err)
	}
	if e := rpcErr(call(b, "peer__echo")); e == nil || e.Code != CodeRateLimited {
		t.Fatalf("batch-7's second echo: %v, want the tool limit", e)
	}
}

// TestRateLimitBucketsBounded: the table of buckets stays bounded; idle
// full buckets are dropped first.
func TestRateLimitBucketsBounded(t *testing.T) {
	g := &Gateway{}
	pol := &policy{rules: config.GatewayPolicy{RateLimit: &config.GatewayRate{PerSecond: 100, Burst: 1, Field: "gateway.rateLimit"}}}
	now := time.Now()
	for i := range maxBuckets + 500 {
		cl := &client{g: g, name: "c", remote: string(rune('a'+i%26)) + strings.Repeat("x", i/26)}
		if l := g.take(cl, pol, "tools/call", "x__y", now.Add(time.Duration(i)*time.Second)); l != nil {
			t.Fatalf("client %d limited at once: %+v", i, l)
		}
	}
	if n := len(g.lim.buckets); n > maxBuckets {
		t.Fatalf("%d buckets, want at most %d", n, maxBuckets)
	}
}
