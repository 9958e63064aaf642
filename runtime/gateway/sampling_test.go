package gateway

//lint:file-ignore SA1019 the Go SDK client answers sampling in the session revisions here, where it is current (deprecated only in 2026-07-28)

import (
	"context"
	"strings"
	"testing"
	"time"

	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// samplingClient is a go-sdk client whose model answers every sampling
// request with reply (or rejects it), telling asked what it was asked.
func samplingClient(name, reply string, asked chan<- *mcp.CreateMessageParams) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0.0"}, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			asked <- req.Params
			if reply == "" {
				return nil, &sdkjsonrpc.Error{Code: -1, Message: "User rejected sampling request"}
			}
			return &mcp.CreateMessageResult{Role: "assistant", Model: name + "-model", Content: &mcp.TextContent{Text: reply}, StopReason: "endTurn"}, nil
		},
	})
}

// A server's sampling request during a client's call reaches that client
// when it declared sampling, in whichever era each side speaks, and the
// client's answer reaches the server. A client that did not declare it
// leaves the request to the gateway's own answer (declined headless).
func TestSamplingForwardedToTheCaller(t *testing.T) {
	for _, upstream := range []string{"modern", "legacy"} {
		t.Run(upstream+" server", func(t *testing.T) {
			g := peerGateway(t, upstream)
			for _, era := range []string{"legacy", "modern"} {
				t.Run(era+" client", func(t *testing.T) {
					asked := make(chan *mcp.CreateMessageParams, 4)
					cs := connect(t, samplingClient("sampler-"+era, "Paris", asked), pipeTransport(t, g), era)
					ctx := ctxFor(t, 30*time.Second)
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__sample", Arguments: map[string]any{"prompt": "Capital of France?"}})
					if err != nil || textOf(res) != "model said: Paris (sampler-"+era+"-model)" {
						t.Fatalf("sample: %v %+v", err, res)
					}
					p := waitFor(t, "the sampling request", asked, nil)
					if p.SystemPrompt != "Answer in one word." || p.MaxTokens != 50 || len(p.Messages) != 1 ||
						p.Messages[0].Content.(*mcp.TextContent).Text != "Capital of France?" || p.ModelPreferences == nil {
						t.Fatalf("the client was asked %+v", p)
					}

					// A client without sampling: a session-era server, told
					// once that the gateway samples, is declined for it; a
					// 2026-07-28 server was told that this request cannot
					// sample (its client's capabilities), and the peer, which
					// asks without looking, broke the protocol.
					plain := connect(t, goClient("plain-"+era, newClientEvents()), pipeTransport(t, g), era)
					res, err = plain.CallTool(ctx, &mcp.CallToolParams{Name: "peer__sample", Arguments: map[string]any{"prompt": "x"}})
					if err == nil && !res.IsError {
						t.Fatalf("a client without sampling got a reply: %+v", res)
					}
					said := heard(res, err)
					switch {
					case upstream == "legacy" && !strings.Contains(said, "declined") && !strings.Contains(said, "rejected"):
						t.Fatalf("the decline did not reach the server: %s", said)
					case upstream == "modern" && !strings.Contains(said, "sampling/createMessage, which this request did not declare"):
						t.Fatalf("a server that samples a request that did not declare sampling: the client heard %s", said)
					}
				})
			}
		})
	}
}

// A client that rejects sampling (-1): a legacy server hears the
// rejection; a modern server's request ends declined, as its revision says.
func TestSamplingRejectedByTheClient(t *testing.T) {
	for _, upstream := range []string{"modern", "legacy"} {
		t.Run(upstream+" server", func(t *testing.T) {
			g := peerGateway(t, upstream)
			asked := make(chan *mcp.CreateMessageParams, 4)
			cs := connect(t, samplingClient("refuser", "", asked), pipeTransport(t, g), "legacy")
			res, err := cs.CallTool(ctxFor(t, 30*time.Second), &mcp.CallToolParams{Name: "peer__sample", Arguments: map[string]any{"prompt": "x"}})
			waitFor(t, "the sampling request", asked, nil)
			said := heard(res, err)
			t.Logf("the client heard: %s", said)
			if strings.Contains(said, "model said") || !strings.Contains(said, "rejected") || !strings.Contains(said, "refuser") {
				t.Fatalf("the server did not hear the client's rejection: %v %+v", err, res)
			}
		})
	}
}

// peerGateway serves the go-sdk peer, spoken to in era upstream.
func peerGateway(t *testing.T, upstream string) *Gateway {
	peer := peerServer("peer")
	peer.Protocol = upstream
	return newGateway(t, newRuntime(t, peer), Options{})
}

// heard is what a call ended with: its text, or its error.
func heard(res *mcp.CallToolResult, err error) string {
	if err != nil {
		return err.Error()
	}
	return textOf(res)
}

// A 2026-07-28 client that takes tasks and declared sampling: the
// server's sampling request makes its call a task whose input request is
// the sampling request, as the server sent it; tasks/update carries the
// client's reply to the server. Both eras of server.
func TestSamplingInATask(t *testing.T) {
	for _, upstream := range []string{"modern", "legacy"} {
		t.Run(upstream+" server", func(t *testing.T) {
			m := &modernClient{t: t, url: serveHTTP(t, peerGateway(t, upstream)), name: "task-sampler",
				caps: map[string]any{"sampling": map[string]any{}, "extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}}
			res, e := m.do("tools/call", map[string]any{"name": "peer__sample", "arguments": map[string]any{"prompt": "Capital of France?"}})
			if e != nil || res["resultType"] != "task" {
				t.Fatalf("a call that samples: %v %v", res, e)
			}
			id := res["taskId"].(string)
			waiting := m.poll(id, func(s string) bool { return s == "input_required" })
			var key string
			for k, v := range waiting["inputRequests"].(map[string]any) {
				r, _ := v.(map[string]any)
				p, _ := r["params"].(map[string]any)
				if r["method"] == "sampling/createMessage" && p["systemPrompt"] == "Answer in one word." && p["maxTokens"] == float64(50) {
					key = k
				}
			}
			if key == "" {
				t.Fatalf("no sampling request among the input requests: %v", waiting)
			}
			reply := map[string]any{"role": "assistant", "model": "task-model", "content": map[string]any{"type": "text", "text": "Paris"}}
			if _, e := m.do("tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{key: reply}}); e != nil {
				t.Fatalf("tasks/update: %v", e)
			}
			done := m.poll(id, func(s string) bool { return s == "completed" })
			if got := textIn(done["result"]); got != "model said: Paris (task-model)" {
				t.Fatalf("the task's result: %v", done)
			}
		})
	}
}
