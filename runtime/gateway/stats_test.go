package gateway

import (
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Calls counts every tools/call a client made, answered with a result,
// a tool error or a JSON-RPC error, and nothing else (lists, prompts).
func TestCallsCounted(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t, demoServer("demo"))
	g := newGateway(t, rt, Options{})
	cs := connect(t, goClient("counter", newClientEvents()), pipeTransport(t, g), "legacy")
	ctx := ctxFor(t, 20*time.Second)
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "demo__greet", Arguments: map[string]string{"name": "x"}}); err != nil {
		t.Fatal(err)
	}
	if g.Calls() != 0 {
		t.Fatalf("Calls = %d after a listing and a prompt, want 0", g.Calls())
	}
	for _, p := range []*mcp.CallToolParams{
		{Name: "demo__echo", Arguments: map[string]any{"text": "a"}},
		{Name: "demo__fail", Arguments: map[string]any{}},
	} {
		if _, err := cs.CallTool(ctx, p); err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "demo__nope", Arguments: map[string]any{}}); err == nil {
		t.Fatal("an unknown tool was answered")
	}
	if g.Calls() != 3 {
		t.Fatalf("Calls = %d, want 3", g.Calls())
	}
}
