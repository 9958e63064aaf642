package gateway

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// hangServer is the fake server whose tools/call never answers.
func hangServer(name string) config.Server {
	path, args, _ := jsonrpctest.Command(jsonrpctest.Hang)
	return config.Server{Name: name, Transport: config.TransportStdio, Command: path, Args: args,
		Env: jsonrpctest.ServerEnv(jsonrpctest.Hang), Enabled: true, StartupTimeout: 20 * time.Second, CallTimeout: 20 * time.Second}
}

// gatewayConfig loads a gateway block the way mcpdeck does, positions and all.
func gatewayConfig(t *testing.T, block string) *config.Gateway {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers": {}, "gateway": `+block+`}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.LoadOptions{Files: []string{path}, ProjectDir: filepath.Dir(path)})
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Gateway
}

// wantKind fails unless e's data carries the reason and the runtime's
// error kind (one of kinds): a client switches on data.kind for every
// error of the gateway, its own refusals as those passed up from servers.
func wantKind(t *testing.T, what string, e *sdkjsonrpc.Error, reason string, kinds ...runtime.ErrorKind) {
	t.Helper()
	var d struct {
		Reason string            `json:"reason"`
		Kind   runtime.ErrorKind `json:"kind"`
	}
	if e == nil {
		t.Errorf("%s: no JSON-RPC error", what)
		return
	}
	err := json.Unmarshal(e.Data, &d)
	if err != nil || d.Reason != reason || !slices.Contains(kinds, d.Kind) || !strings.Contains(string(e.Data), `"kind":"`+d.Kind.String()+`"`) {
		t.Errorf("%s: data %s (%v), want reason %q and kind one of %q", what, e.Data, err, reason, kinds)
	}
}

func rpcErr(err error) *sdkjsonrpc.Error {
	var e *sdkjsonrpc.Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// The gateway block decides, per client, what is offered and what is
// refused; refusals name the rule and where it is written.
func TestPolicy(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t, peerServer("peer"), demoServer("demo"), hangServer("hang"))
	gw := gatewayConfig(t, `{
  "tools": {"deny": ["peer__slow", "*__crash"]},
  "callTimeout": "20s",
  "clients": [
    {"match": "restricted*", "servers": {"deny": ["demo"]}, "prompts": {"deny": ["*"]}},
    {"match": "one", "maxConcurrent": 1, "callTimeout": "1s"},
    {"match": "quick", "callTimeout": "300ms"}
  ]
}`)
	g := newGateway(t, rt, Options{Config: gw})
	ctx := ctxFor(t, 60*time.Second)

	plain := connect(t, goClient("plain", newClientEvents()), pipeTransport(t, g), "legacy")
	tools, err := plain.ListTools(ctx, nil)
	names := toolNames(tools.Tools)
	if err != nil || strings.Contains(names, "peer__slow") || strings.Contains(names, "hang__crash") || !strings.Contains(names, "peer__echo") {
		t.Fatalf("plain's tools: %v %s", err, names)
	}
	_, err = plain.CallTool(ctx, &mcp.CallToolParams{Name: "peer__slow", Arguments: map[string]any{"seconds": 1}})
	e := rpcErr(err)
	if e == nil || e.Code != CodeRefused || !strings.Contains(e.Message, `refused by gateway.tools.deny[0] "peer__slow" at `) || !strings.Contains(string(e.Data), `"rule":"gateway.tools.deny[0]`) {
		t.Fatalf("a denied tool: %v", err)
	}
	wantKind(t, "a denied tool", e, "policy", runtime.KindRefused)
	_, err = plain.CallTool(ctx, &mcp.CallToolParams{Name: "peer__nope", Arguments: map[string]any{}})
	if e := rpcErr(err); e == nil || e.Code != -32602 || !strings.Contains(e.Message, `unknown tool "peer__nope"`) {
		t.Fatalf("an unknown tool: %v", err)
	}
	wantKind(t, "an unknown tool", rpcErr(err), "unknown", runtime.KindUnknownTool)

	restricted := connect(t, goClient("restricted-agent", newClientEvents()), pipeTransport(t, g), "modern")
	tools, err = restricted.ListTools(ctx, nil)
	if err != nil || strings.Contains(toolNames(tools.Tools), "demo__") || !strings.Contains(toolNames(tools.Tools), "peer__echo") {
		t.Fatalf("restricted's tools: %v %s", err, toolNames(tools.Tools))
	}
	if res, err := restricted.ListResources(ctx, nil); err != nil || len(res.Resources) != 0 {
		t.Fatalf("restricted's resources: %v %+v", err, res)
	}
	if ps, err := restricted.ListPrompts(ctx, nil); err != nil || len(ps.Prompts) != 0 {
		t.Fatalf("restricted's prompts: %v %+v", err, ps)
	}
	_, err = restricted.CallTool(ctx, &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "x"}})
	if e := rpcErr(err); e == nil || e.Code != CodeRefused || !strings.Contains(e.Message, "gateway.clients[0].servers.deny[0]") {
		t.Fatalf("a denied server: %v", err)
	}
	_, err = restricted.GetPrompt(ctx, &mcp.GetPromptParams{Name: "demo__greet", Arguments: map[string]string{"name": "x"}})
	if e := rpcErr(err); e == nil || e.Code != CodeRefused {
		t.Fatalf("a denied prompt: %v", err)
	}
	_, err = restricted.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://status"})
	if e := rpcErr(err); e == nil || e.Code != -32602 {
		t.Fatalf("a resource of a denied server: %v", err)
	}
	if info := clientNamed(g, "restricted-agent"); info.Policy != "gateway.clients[0]" || info.Totals.Refused != 2 {
		t.Fatalf("restricted's info: %+v", info)
	}

	// One request at a time: the second is refused while the first runs;
	// the first times out after the client's callTimeout.
	one := connect(t, goClient("one", newClientEvents()), pipeTransport(t, g), "legacy")
	events, stop := g.Subscribe()
	defer stop()
	var wg sync.WaitGroup
	var firstErr error
	wg.Go(func() {
		_, firstErr = one.CallTool(ctx, &mcp.CallToolParams{Name: "hang__echo", Arguments: map[string]any{"text": "x"}})
	})
	waitFor(t, "the first call forwarded", events, func(e Event) bool { f, ok := e.(RequestForwarded); return ok && f.Request.Name == "hang__echo" })
	_, err = one.CallTool(ctx, &mcp.CallToolParams{Name: "peer__echo", Arguments: map[string]any{"text": "x"}})
	if e := rpcErr(err); e == nil || e.Code != CodeBusy || !strings.Contains(e.Message, "gateway.maxConcurrent") {
		t.Fatalf("over the limit: %v", err)
	}
	wantKind(t, "over the limit", rpcErr(err), "busy", runtime.KindRefused)
	wg.Wait()
	if e := rpcErr(firstErr); e == nil || e.Code != CodeTimeout || !strings.Contains(e.Message, "timed out after 1s") {
		t.Fatalf("the hanging call: %v", firstErr)
	}
	wantKind(t, "the hanging call", rpcErr(firstErr), "timeout", runtime.KindTimeout)
	if res, err := one.CallTool(ctx, &mcp.CallToolParams{Name: "peer__echo", Arguments: map[string]any{"text": "free"}}); err != nil || textOf(res) != "free" {
		t.Fatalf("after the slot is free: %v %+v", err, res)
	}

	// A per-client timeout for a modern client.
	quick := connect(t, goClient("quick", newClientEvents()), pipeTransport(t, g), "modern")
	start := time.Now()
	_, err = quick.CallTool(ctx, &mcp.CallToolParams{Name: "hang__echo", Arguments: map[string]any{"text": "x"}})
	if e := rpcErr(err); e == nil || e.Code != CodeTimeout || time.Since(start) > 10*time.Second {
		t.Fatalf("quick's hanging call: %v after %s", err, time.Since(start))
	}

	// Arguments that fail the tool's schema are a tool error, so a model
	// can correct them.
	res, err := plain.CallTool(ctx, &mcp.CallToolParams{Name: "peer__echo", Arguments: map[string]any{"txt": "x"}})
	if err != nil || !res.IsError || !strings.Contains(textOf(res), "invalid arguments for tool \"peer__echo\"") {
		t.Fatalf("bad arguments: %v %+v", err, res)
	}
}

func clientNamed(g *Gateway, name string) ClientInfo {
	for _, c := range g.Clients() {
		if c.Name == name {
			return c
		}
	}
	return ClientInfo{}
}
