package jsonrpctest

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk modes: the official Go SDK (v1.8.0) as a real peer that
// serves 2026-07-28 next to the legacy revisions, with the same tools as
// the TypeScript SDK v2 peer scripts (peers/ts-server.mjs) where go-sdk
// supports them:
//
//	echo {text}                one text block: text
//	region_echo {region, text} "region=R text=T"; region is x-mcp-header "Region"
//	ask {}                     MRTR: asks (elicitation "who") for a name, then "Hello, NAME!";
//	                           requestState is HMAC-signed, a changed one is refused
//	add_tool {name}            adds tool NAME and announces notifications/tools/list_changed
//	slow {seconds}             progress every 100 ms when asked; "cancelled slow" on stderr
//	log {message}              logs message at debug, info, warning and error
//	remove {name}              annotated destructiveHint: true; answers "removed NAME"
//	sample {prompt}            MRTR: asks (sampling "reply") a model to answer prompt (system
//	                           prompt "Answer in one word.", maxTokens 50), then "model said:
//	                           TEXT (MODEL)"; in the legacy era go-sdk sends the request itself
const (
	// GoSDKModern serves the go-sdk server on stdio.
	GoSDKModern Mode = "gosdk-modern"
	// GoSDKModernHTTP serves it over stateless Streamable HTTP on a free
	// loopback port and prints "listening http://127.0.0.1:PORT/mcp" on
	// stdout.
	GoSDKModernHTTP Mode = "gosdk-modern-http"
	// GoSDKFlood serves the go-sdk server on stdio and, once the client
	// sets a log level (logging/setLevel), logs MCPDECK_FAKE_COUNT
	// messages at info (logger "flood", data {"seq": n}) as fast as the
	// SDK sends them: a real SDK's own rate, one write(2) a message, for
	// measuring notification intake against what a server emits.
	GoSDKFlood Mode = "gosdk-flood"
)

// askKey signs the ask tool's requestState. A fixed key: the state only has
// to survive a round trip through the client unchanged.
var askKey = []byte("mcpdeck-gosdk-peer-request-state")

func signState(payload string) string {
	m := hmac.New(sha256.New, askKey)
	m.Write([]byte(payload))
	return payload + "." + hex.EncodeToString(m.Sum(nil))
}

func verifyState(state string) bool {
	payload, _, ok := strings.Cut(state, ".")
	return ok && hmac.Equal([]byte(signState(payload)), []byte(state))
}

// serveGoSDK runs the go-sdk server for mode and returns the exit status.
func serveGoSDK(mode Mode, stderr io.Writer) int {
	var errMu sync.Mutex
	logf := func(format string, args ...any) {
		errMu.Lock()
		defer errMu.Unlock()
		fmt.Fprintf(stderr, format+"\n", args...)
	}
	server := newGoSDKServer(logf)
	ctx := context.Background()
	if mode == GoSDKModern {
		if err := server.Run(ctx, &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
			logf("gosdk server: %v", err)
			return 1
		}
		return 0
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		logf("gosdk server: %v", err)
		return 1
	}
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true})
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	fmt.Fprintf(os.Stdout, "listening http://%s/mcp\n", l.Addr())
	if err := (&http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}).Serve(l); err != nil {
		logf("gosdk server: %v", err)
		return 1
	}
	return 0
}

// serveGoSDKFlood runs the go-sdk server of GoSDKFlood mode on stdio.
func serveGoSDKFlood(count int, stderr io.Writer) int {
	server := newGoSDKServer(func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) })
	var once sync.Once
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && method == "logging/setLevel" && err == nil {
				once.Do(func() {
					go func() {
						for i := range count {
							if ss.Log(context.Background(), &mcp.LoggingMessageParams{Level: "info", Logger: "flood", Data: map[string]int{"seq": i}}) != nil {
								return
							}
						}
					}()
				})
			}
			return res, err
		}
	})
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
		fmt.Fprintf(stderr, "gosdk server: %v\n", err)
		return 1
	}
	return 0
}

func newGoSDKServer(logf func(string, ...any)) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "gosdk-peer", Version: "0.1.0"}, &mcp.ServerOptions{
		Instructions: "A go-sdk v1.8.0 test peer for mcpdeck's interop tests.",
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}, Logging: &mcp.LoggingCapabilities{}},
	})
	obj, args, text := GoSDKObject, GoSDKArgs, GoSDKText

	server.AddTool(&mcp.Tool{Name: "echo", Description: "Echoes text.", InputSchema: obj(`"text":{"type":"string"}`, "text")},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			t, _ := args(req)["text"].(string)
			return text(t), nil
		})
	server.AddTool(&mcp.Tool{Name: "region_echo", Description: "Echoes text and the region, mirrored into Mcp-Param-Region.",
		InputSchema: obj(`"region":{"type":"string","x-mcp-header":"Region"},"text":{"type":"string"}`, "region", "text")},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a := args(req)
			return text(fmt.Sprintf("region=%v text=%v", a["region"], a["text"])), nil
		})
	server.AddTool(&mcp.Tool{Name: "ask", Description: "Asks for a name through an elicitation, then greets.", InputSchema: obj(``)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if st := req.Params.RequestState; st != "" {
				if !verifyState(st) {
					return nil, &sdkjsonrpc.Error{Code: -32602, Message: "Invalid or expired requestState"}
				}
				if r, ok := req.Params.InputResponses["who"].(*mcp.ElicitResult); ok && r.Action == "accept" {
					if name, ok := r.Content["name"].(string); ok {
						return text("Hello, " + name + "!"), nil
					}
				}
			}
			return &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{"who": &mcp.ElicitParams{
					Mode: "form", Message: "What is your name?",
					RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
				}},
				RequestState: signState(fmt.Sprintf("ask-v1:%d", time.Now().UnixNano())),
			}, nil
		})
	destructive := true
	server.AddTool(&mcp.Tool{Name: "remove", Description: "Pretends to remove something.", InputSchema: obj(`"name":{"type":"string"}`, "name"),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &destructive}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			name, _ := args(req)["name"].(string)
			return text("removed " + name), nil
		})
	server.AddTool(&mcp.Tool{Name: "sample", Description: "Asks the client's model to answer a prompt (sampling), then says what it said.",
		InputSchema: obj(`"prompt":{"type":"string"}`, "prompt")},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if st := req.Params.RequestState; st != "" {
				if !verifyState(st) {
					return nil, &sdkjsonrpc.Error{Code: -32602, Message: "Invalid or expired requestState"}
				}
				if r, ok := req.Params.InputResponses["reply"].(*mcp.CreateMessageWithToolsResult); ok {
					var said []string
					for _, c := range r.Content {
						if t, ok := c.(*mcp.TextContent); ok {
							said = append(said, t.Text)
						}
					}
					return text(fmt.Sprintf("model said: %s (%s)", strings.Join(said, " "), r.Model)), nil
				}
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no sampling reply"}}}, nil
			}
			prompt, _ := args(req)["prompt"].(string)
			return &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{"reply": &mcp.CreateMessageParams{
					Messages:     []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: prompt}}},
					SystemPrompt: "Answer in one word.", MaxTokens: 50,
					ModelPreferences: &mcp.ModelPreferences{Hints: []*mcp.ModelHint{{Name: "claude"}}, IntelligencePriority: 0.8},
				}},
				RequestState: signState(fmt.Sprintf("sample-v1:%d", time.Now().UnixNano())),
			}, nil
		})
	server.AddTool(&mcp.Tool{Name: "add_tool", Description: "Registers a new tool and announces the list change.", InputSchema: obj(`"name":{"type":"string"}`, "name")},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			name, _ := args(req)["name"].(string)
			server.AddTool(&mcp.Tool{Name: name, Description: "Added at run time by add_tool.", InputSchema: obj(`"text":{"type":"string"}`)},
				func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text(name), nil })
			return text("added " + name), nil
		})
	server.AddTool(&mcp.Tool{Name: "slow", Description: "Takes its time, with progress.", InputSchema: obj(`"seconds":{"type":"number"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			secs, ok := args(req)["seconds"].(float64)
			if !ok {
				secs = 5
			}
			steps := max(1, int(secs*10+0.5))
			token := req.Params.GetProgressToken()
			for i := 1; i <= steps; i++ {
				select {
				case <-ctx.Done():
					logf("cancelled slow")
					return nil, ctx.Err()
				case <-time.After(100 * time.Millisecond):
				}
				if token != nil {
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: float64(steps), Message: fmt.Sprintf("step %d of %d", i, steps)})
				}
			}
			return text(fmt.Sprintf("slept %gs", secs)), nil
		})
	server.AddTool(&mcp.Tool{Name: "log", Description: "Logs the message at four levels.", InputSchema: obj(`"message":{"type":"string"}`, "message")},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			msg, _ := args(req)["message"].(string)
			for _, level := range []mcp.LoggingLevel{"debug", "info", "warning", "error"} {
				_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: "peer", Data: string(level) + ": " + msg})
			}
			return text("logged"), nil
		})
	return server
}

// GoSDKObject is an object schema of props (JSON members) with required,
// for a go-sdk tool's InputSchema.
func GoSDKObject(props string, required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	if required == nil {
		req = []byte("[]")
	}
	return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `}`)
}

// GoSDKArgs are a go-sdk tool call's arguments as a map.
func GoSDKArgs(req *mcp.CallToolRequest) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(req.Params.Arguments, &m)
	return m
}

// GoSDKText is a go-sdk tool result of one text block.
func GoSDKText(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}
