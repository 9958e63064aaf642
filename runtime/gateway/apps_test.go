package gateway

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	mcpv "mcpdeck/runtime/mcp"
)

// appsServers are the pinned MCP Apps example server ("basic": get-time,
// its ui:// resource listed) and the fake with app tools ("broken": an
// app-only tool, refresh, and an app resource no list names).
func appsServers(t *testing.T) []config.Server {
	node, script := jsonrpctest.AppsServer(t)
	path, args, _ := jsonrpctest.Command(jsonrpctest.AppsBroken)
	return []config.Server{
		{Name: "basic", Transport: config.TransportStdio, Command: node, Args: []string{script, "--stdio"}, Enabled: true, StartupTimeout: time.Minute, CallTimeout: 30 * time.Second},
		{Name: "broken", Transport: config.TransportStdio, Command: path, Args: args, Env: jsonrpctest.ServerEnv(jsonrpctest.AppsBroken), Enabled: true, StartupTimeout: 20 * time.Second, CallTimeout: 30 * time.Second},
	}
}

// uiClient is a go-sdk client that declares MCP Apps when host is true.
func uiClient(name string, host bool) *mcp.Client {
	caps := &mcp.ClientCapabilities{}
	if host {
		caps.AddExtension(mcpv.ExtensionUI, map[string]any{"mimeTypes": []string{mcpv.AppMIMEType}})
	}
	return mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0.0"}, &mcp.ClientOptions{Capabilities: caps})
}

// TestAppsThroughTheGateway: in both eras, a client that declares the
// apps extension is a host: it is told the gateway ships apps, lists the
// app-only tool with _meta.ui as the server sent it, reads ui://
// resources (also one no list names), and calls a tool by the server's
// own name as an app does. A client that declares nothing lists no
// app-only tool and cannot call one.
func TestAppsThroughTheGateway(t *testing.T) {
	rt := newRuntime(t, appsServers(t)...)
	g := newGateway(t, rt, Options{})
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			host := connect(t, uiClient("host", true), pipeTransport(t, g), era)
			plain := connect(t, uiClient("plain", false), pipeTransport(t, g), era)
			ctx := ctxFor(t, 60*time.Second)

			if era == "legacy" {
				if _, ok := host.InitializeResult().Capabilities.Extensions[mcpv.ExtensionUI]; !ok {
					t.Errorf("the gateway does not declare %s: %+v", mcpv.ExtensionUI, host.InitializeResult().Capabilities)
				}
			}
			hostTools, err := host.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			byName := map[string]*mcp.Tool{}
			for _, tl := range hostTools.Tools {
				byName[tl.Name] = tl
			}
			refresh, getTime := byName["broken__refresh"], byName["basic__get-time"]
			if refresh == nil || getTime == nil {
				t.Fatalf("the host lists %s", toolNames(hostTools.Tools))
			}
			meta, _ := json.Marshal(refresh.Meta)
			if ui, _ := mcpv.ToolUIOf(meta); !ui.AppOnly() || ui.ResourceURI != "ui://fake/chart.html" {
				t.Errorf("refresh's _meta through the gateway: %s", meta)
			}
			meta, _ = json.Marshal(getTime.Meta)
			if ui, _ := mcpv.ToolUIOf(meta); ui.ResourceURI != "ui://get-time/mcp-app.html" {
				t.Errorf("get-time's _meta through the gateway: %s", meta)
			}

			plainTools, err := plain.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			names := strings.Split(toolNames(plainTools.Tools), ",")
			if slices.Contains(names, "broken__refresh") || !slices.Contains(names, "broken__chart") || !slices.Contains(names, "basic__get-time") {
				t.Errorf("a client without the extension lists %v", names)
			}
			if _, err := plain.CallTool(ctx, &mcp.CallToolParams{Name: "broken__refresh"}); err == nil || !strings.Contains(err.Error(), "not offered") {
				t.Errorf("a client without the extension called the app-only tool: %v", err)
			}

			for _, uri := range []string{"ui://get-time/mcp-app.html", "ui://fake/chart.html"} {
				res, err := host.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
				if err != nil || len(res.Contents) != 1 || res.Contents[0].MIMEType != mcpv.AppMIMEType || !strings.Contains(res.Contents[0].Text, "<html") {
					t.Errorf("reading %s through the gateway: %v %+v", uri, err, res)
				}
			}

			// An app calls its server's tool by the server's own name.
			res, err := host.CallTool(ctx, &mcp.CallToolParams{Name: "get-time", Arguments: map[string]any{}})
			if err != nil || res.IsError || textOf(res) == "" {
				t.Errorf("the host's app calling get-time: %v %+v", err, res)
			}
			if _, err := plain.CallTool(ctx, &mcp.CallToolParams{Name: "get-time", Arguments: map[string]any{}}); err == nil {
				t.Error("a client without the extension called a tool by its server's name")
			}
		})
	}
}
