package gateway

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// legacyConn attaches a raw 2025-11-25 client to g over in-process pipes
// and initializes it with caps; handler answers the gateway's requests.
func legacyConn(t *testing.T, g *Gateway, caps string, handler jsonrpc.Handler) *jsonrpc.Conn {
	t.Helper()
	return legacyConnWith(t, g, caps, jsonrpc.Options{Handler: handler})
}

// legacyConnWith is legacyConn with the connection's options (a handler,
// OnNotification).
func legacyConnWith(t *testing.T, g *Gateway, caps string, opts jsonrpc.Options) *jsonrpc.Conn {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- g.ServeStdio(context.Background(), sr, sw) }()
	conn := jsonrpc.NewConn(jsonrpc.NewStdioStream(cr, cw, cw, jsonrpc.StdioOptions{}), opts)
	t.Cleanup(func() {
		_ = conn.Close()
		cw.Close()
		<-done
	})
	ctx := ctxFor(t, 20*time.Second)
	if _, err := conn.Call(ctx, "initialize", json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"task-client","version":"0"}}`)); err != nil {
		t.Fatal(err)
	}
	if err := conn.Notify(ctx, "notifications/initialized", nil); err != nil {
		t.Fatal(err)
	}
	return conn
}

func everythingServer(t *testing.T) config.Server {
	node, script := jsonrpctest.Everything(t)
	return config.Server{Name: "everything", Transport: config.TransportStdio, Command: node, Args: []string{script, "stdio"},
		Enabled: true, StartupTimeout: 30 * time.Second, CallTimeout: 30 * time.Second}
}

// waitTool waits until the runtime publishes server with tool (a server
// may register tools after initialized, and say so with list_changed).
func waitTool(t *testing.T, rt *runtime.Controller, server, tool string) {
	t.Helper()
	waitServer(t, rt, server, func(v runtime.ServerSnapshot) (bool, string) {
		for _, tl := range v.Tools {
			if tl.ServerTool == tool {
				return true, ""
			}
		}
		return false, "never listed " + tool
	})
}

// A 2025-11-25 client runs server-everything's research (a 2025-11-25
// task upstream) as its own task through the gateway: the augmented call
// answers a task at once; tasks/result waits, the server's clarification
// reaching the client on the way; tasks/get, tasks/list and tasks/cancel
// work on the gateway's task.
func TestLegacyTasksThroughTheGateway(t *testing.T) {
	rt := newRuntime(t, everythingServer(t))
	waitTool(t, rt, "everything", "simulate-research-query")
	g := newGateway(t, rt, Options{})
	asked := make(chan string, 4)
	conn := legacyConn(t, g, `{"elicitation":{"form":{}}}`, func(_ context.Context, req *jsonrpc.Request) (any, error) {
		var p mcp.ElicitRequest
		_ = json.Unmarshal(req.Params, &p)
		asked <- req.Method + ": " + p.Message
		return map[string]any{"action": "accept", "content": map[string]any{"interpretation": "programming"}}, nil
	})
	ctx := ctxFor(t, 90*time.Second)

	var init struct {
		Tools []mcp.Tool `json:"tools"`
	}
	raw, err := conn.Call(ctx, "tools/list", map[string]any{})
	if err != nil || json.Unmarshal(raw, &init) != nil {
		t.Fatal(err)
	}
	var support string
	for _, tl := range init.Tools {
		if tl.Name == "everything__simulate-research-query" {
			support = tl.TaskSupport()
		}
	}
	if support != "optional" {
		t.Fatalf("the research tool's taskSupport through the gateway: %q", support)
	}

	raw, err = conn.Call(ctx, "tools/call", json.RawMessage(`{"name":"everything__simulate-research-query","arguments":{"topic":"python","ambiguous":true},"task":{"ttl":60000}}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Task struct {
			TaskID       string `json:"taskId"`
			Status       string `json:"status"`
			TTL          int64  `json:"ttl"`
			PollInterval int64  `json:"pollInterval"`
			CreatedAt    string `json:"createdAt"`
		} `json:"task"`
	}
	if err := json.Unmarshal(raw, &created); err != nil || created.Task.TaskID == "" || created.Task.Status != "working" ||
		created.Task.TTL != DefaultTaskTTL.Milliseconds() || created.Task.PollInterval != taskPollMs || created.Task.CreatedAt == "" {
		t.Fatalf("CreateTaskResult %s (%v)", raw, err)
	}
	id := created.Task.TaskID
	raw, err = conn.Call(ctx, "tasks/get", map[string]any{"taskId": id})
	if err != nil || !strings.Contains(string(raw), `"taskId":"`+id+`"`) {
		t.Fatalf("tasks/get: %s %v", raw, err)
	}
	raw, err = conn.Call(ctx, "tasks/result", map[string]any{"taskId": id})
	if err != nil {
		t.Fatalf("tasks/result: %v", err)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "Research Report: python (programming)") ||
		!strings.Contains(string(res.Meta), `"io.modelcontextprotocol/related-task":{"taskId":"`+id+`"}`) {
		t.Fatalf("the task's result: %s (%v)", raw, err)
	}
	if q := waitFor(t, "the clarification", asked, nil); !strings.Contains(q, "elicitation/create: ") || !strings.Contains(q, "interpretations") {
		t.Fatalf("the client was asked %q", q)
	}
	raw, err = conn.Call(ctx, "tasks/get", map[string]any{"taskId": id})
	if err != nil || !strings.Contains(string(raw), `"status":"completed"`) {
		t.Fatalf("tasks/get after the end: %s %v", raw, err)
	}
	raw, err = conn.Call(ctx, "tasks/list", map[string]any{})
	if err != nil || !strings.Contains(string(raw), id) {
		t.Fatalf("tasks/list: %s %v", raw, err)
	}

	// Cancelling the task cancels the server's.
	stderr, stop := rt.Subscribe(runtime.SubscribeOptions{Buffer: 1 << 14})
	defer stop()
	raw, err = conn.Call(ctx, "tools/call", json.RawMessage(`{"name":"everything__simulate-research-query","arguments":{"topic":"go"},"task":{}}`))
	if err != nil || json.Unmarshal(raw, &created) != nil {
		t.Fatalf("second task: %s %v", raw, err)
	}
	waitFor(t, "the server's task working", stderr, func(e runtime.Event) bool {
		u, ok := e.(runtime.TaskUpdated)
		return ok && u.Server == "everything" && u.Task.Status == "working"
	})
	raw, err = conn.Call(ctx, "tasks/cancel", map[string]any{"taskId": created.Task.TaskID})
	if err != nil || !strings.Contains(string(raw), `"status":"cancelled"`) {
		t.Fatalf("tasks/cancel: %s %v", raw, err)
	}
	waitFor(t, "tasks/cancel upstream", stderr, func(e runtime.Event) bool {
		f, ok := e.(runtime.TrafficFrame)
		return ok && f.Server == "everything" && f.Frame.Method == mcp.MethodTasksCancel
	})
	if _, err := conn.Call(ctx, "tasks/get", map[string]any{"taskId": "task-nope"}); err == nil || !strings.Contains(err.Error(), "unknown task") {
		t.Fatalf("an unknown task: %v", err)
	}
}
