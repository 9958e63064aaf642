package gateway

import (
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A transparent gateway over one server is that server to a client, in
// both eras: its tool and prompt names, its serverInfo, its capabilities
// (the demo server declares no tasks and no experimental features) and
// its instructions; a call by the server's own name reaches it. Over two
// servers it is the gateway again, names bridged.
func TestTransparentGateway(t *testing.T) {
	rt := newRuntime(t, demoServer("demo"))
	g := newGateway(t, rt, Options{Transparent: true})
	v, _ := rt.Snapshot().Server("demo")
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			cs := connect(t, goClient("transparent-"+era, newClientEvents()), pipeTransport(t, g), era)
			init := cs.InitializeResult()
			if init.ServerInfo.Name != v.ServerInfo.Name || init.ServerInfo.Version != v.ServerInfo.Version || init.Instructions != v.Instructions {
				t.Errorf("serverInfo %+v instructions %q; the server's %+v %q", init.ServerInfo, init.Instructions, v.ServerInfo, v.Instructions)
			}
			if init.Capabilities.Tools == nil || init.Capabilities.Prompts == nil {
				t.Errorf("capabilities %+v", init.Capabilities)
			}
			ctx := ctxFor(t, 30*time.Second)
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || toolNames(tools.Tools) != "add,echo,fail,sleep" {
				t.Fatalf("tools: %v %s", err, toolNames(tools.Tools))
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "as itself"}})
			if err != nil || textOf(res) != "as itself" {
				t.Fatalf("echo: %v %+v", err, res)
			}
			prompts, err := cs.ListPrompts(ctx, nil)
			if err != nil || len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != "greet" {
				t.Fatalf("prompts: %v %+v", err, prompts)
			}
		})
	}
	rt2 := newRuntime(t, demoServer("a"), demoServer("b"))
	g2 := newGateway(t, rt2, Options{Transparent: true})
	cs := connect(t, goClient("two", newClientEvents()), pipeTransport(t, g2), "legacy")
	if name := cs.InitializeResult().ServerInfo.Name; name != "mcpdeck-gateway" {
		t.Errorf("over two servers the gateway is %q", name)
	}
	tools, err := cs.ListTools(ctxFor(t, 30*time.Second), nil)
	if err != nil || toolNames(tools.Tools) != "a__add,a__echo,a__fail,a__sleep,b__add,b__echo,b__fail,b__sleep" {
		t.Fatalf("two servers' tools: %v %s", err, toolNames(tools.Tools))
	}
}
