package suite

//lint:file-ignore SA1019 the peer is a go-sdk server of the session revisions, where logging is current (deprecated only in 2026-07-28)

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// The suite peer: a server on the official Go SDK (v1.8.0, which serves
// 2026-07-28 next to the legacy revisions) with something for every step
// kind, the same as testdata/ts-suite-peer.mjs offers on the TypeScript
// SDK v2, so one suite (testdata/peer.mcptest.yaml) runs against both:
//
//	tools      echo {text}, add {a, b} (structured, with an outputSchema),
//	           slow {steps} (progress), log {message} (an info log),
//	           touch {uri} (notifications/resources/updated), fail (isError)
//	resources  suite://notes/today (subscribable), template suite://notes/{day}
//	prompts    greet {name}
//	complete   greet's name, the template's day
//
// The test binary serves it when envPeer is set: "stdio"; "http" (stateless
// Streamable HTTP, as go-sdk serves 2026-07-28, on a free loopback port,
// printing "listening URL"); "http-sessions" (the 2025 form with sessions:
// a resource update reaches a legacy client only on its session's GET
// stream, which stateless HTTP does not have); and "changed-stdio", the
// same server whose echo answers differently (a regression to catch).
const envPeer = "MCPDECK_SUITE_PEER"

func serveGoSDKPeer(mode string) int {
	changed := strings.HasPrefix(mode, "changed-")
	server := newGoSDKPeer(changed)
	if strings.HasSuffix(mode, "stdio") {
		if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
			fmt.Fprintf(os.Stderr, "suite peer: %v\n", err)
			return 1
		}
		return 0
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(os.Stderr, "suite peer: %v\n", err)
		return 1
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: mode == "http"}))
	fmt.Printf("listening http://%s/mcp\n", l.Addr())
	if err := (&http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}).Serve(l); err != nil {
		fmt.Fprintf(os.Stderr, "suite peer: %v\n", err)
		return 1
	}
	return 0
}

var (
	peerNames = []string{"Ada", "Alan", "Grace"}
	peerDays  = []string{"monday", "tuesday", "wednesday", "thursday", "friday"}
)

func prefixed(values []string, prefix string) []string {
	out := []string{}
	for _, v := range values {
		if strings.HasPrefix(v, prefix) {
			out = append(out, v)
		}
	}
	return out
}

func newGoSDKPeer(changed bool) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "suite-peer-gosdk", Version: "0.1.0"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Logging: &mcp.LoggingCapabilities{}},
		SubscribeHandler: func(context.Context, *mcp.SubscribeRequest) error {
			return nil
		},
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			var values []string
			switch {
			case req.Params.Ref.Type == "ref/prompt" && req.Params.Argument.Name == "name":
				values = prefixed(peerNames, req.Params.Argument.Value)
			case req.Params.Ref.Type == "ref/resource" && req.Params.Argument.Name == "day":
				values = prefixed(peerDays, req.Params.Argument.Value)
			default:
				values = []string{}
			}
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
		},
	})
	obj, args, text := jsonrpctest.GoSDKObject, jsonrpctest.GoSDKArgs, jsonrpctest.GoSDKText
	server.AddTool(&mcp.Tool{Name: "echo", Description: "Echoes text.", InputSchema: obj(`"text":{"type":"string"}`, "text")},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			t, _ := args(req)["text"].(string)
			if changed {
				t = strings.ToUpper(t) + "!"
			}
			return text(t), nil
		})
	server.AddTool(&mcp.Tool{Name: "add", Description: "Adds a and b.", InputSchema: obj(`"a":{"type":"number"},"b":{"type":"number"}`, "a", "b"),
		OutputSchema: obj(`"sum":{"type":"number"}`, "sum")},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a, b := args(req)["a"].(float64), args(req)["b"].(float64)
			res := text(fmt.Sprintf("sum=%g", a+b))
			res.StructuredContent = map[string]any{"sum": a + b}
			return res, nil
		})
	server.AddTool(&mcp.Tool{Name: "slow", Description: "Takes steps, with progress.", InputSchema: obj(`"steps":{"type":"integer"}`, "steps")},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			steps := int(args(req)["steps"].(float64))
			token := req.Params.GetProgressToken()
			for i := 1; i <= steps; i++ {
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(10 * time.Millisecond):
				}
				if token != nil {
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: float64(steps)})
				}
			}
			return text(fmt.Sprintf("done after %d steps", steps)), nil
		})
	server.AddTool(&mcp.Tool{Name: "log", Description: "Logs the message at info.", InputSchema: obj(`"message":{"type":"string"}`, "message")},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			msg, _ := args(req)["message"].(string)
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "peer", Data: "logged: " + msg})
			return text("logged"), nil
		})
	server.AddTool(&mcp.Tool{Name: "touch", Description: "Announces that a resource changed.", InputSchema: obj(`"uri":{"type":"string"}`, "uri")},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			uri, _ := args(req)["uri"].(string)
			if err := server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
				return nil, err
			}
			return text("touched"), nil
		})
	server.AddTool(&mcp.Tool{Name: "fail", Description: "Fails on purpose.", InputSchema: obj(``)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res := text("failed on purpose")
			res.IsError = true
			return res, nil
		})
	server.AddResource(&mcp.Resource{Name: "today", URI: "suite://notes/today", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "buy milk"}}}, nil
		})
	server.AddResourceTemplate(&mcp.ResourceTemplate{Name: "day", URITemplate: "suite://notes/{day}", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			day := strings.TrimPrefix(req.Params.URI, "suite://notes/")
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "notes for " + day}}}, nil
		})
	server.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greets someone.", Arguments: []*mcp.PromptArgument{{Name: "name", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello, " + req.Params.Arguments["name"] + "!"}}}}, nil
		})
	return server
}
