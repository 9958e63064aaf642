package mcphttp_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/jsonrpc/mcphttp"
)

func TestEverythingStreamable(t *testing.T) {
	t.Parallel()
	base := jsonrpctest.EverythingHTTP(t, "streamableHttp")
	c := dial(t, mcphttp.Options{URL: base + "/mcp"})
	c.initialize(t)
	if c.stream.SessionID() == "" {
		t.Fatal("server-everything gave no session id")
	}
	// It registers conditional tools as notifications/initialized is
	// handled and announces them on the standalone GET stream.
	c.waitNote(t, "notifications/tools/list_changed")
	exerciseEverything(t, c)
}

func TestEverythingSSE(t *testing.T) {
	t.Parallel()
	base := jsonrpctest.EverythingHTTP(t, "sse")
	c := dial(t, mcphttp.Options{URL: base + "/sse", Legacy: true})
	c.initialize(t)
	c.waitNote(t, "notifications/tools/list_changed")
	exerciseEverything(t, c)
}

// exerciseEverything lists tools, calls echo, watches progress and
// cancels a long call.
func exerciseEverything(t *testing.T, c *client) {
	t.Helper()
	names := c.toolNames(t)
	for _, want := range []string{"echo", "trigger-long-running-operation"} {
		if !slices.Contains(names, want) {
			t.Fatalf("tools/list = %v, missing %s", names, want)
		}
	}
	res, err := c.callTool(ctxT(t), "echo", map[string]any{"message": "over http"}, nil)
	if err != nil || res.text() != "Echo: over http" {
		t.Fatalf("echo = %+v, %v", res, err)
	}

	res, err = c.callTool(ctxT(t), "trigger-long-running-operation", map[string]any{"duration": 0.3, "steps": 3}, map[string]any{"progressToken": "p1"})
	if err != nil || !strings.Contains(res.text(), "completed") {
		t.Fatalf("long-running operation = %+v, %v", res, err)
	}
	var progress []string
	for len(progress) < 3 {
		n := c.waitNote(t, "notifications/progress")
		progress = append(progress, string(n.Params))
	}
	for i, p := range progress {
		if !strings.Contains(p, `"p1"`) || !strings.Contains(p, fmt.Sprintf(`"progress":%d`, i+1)) {
			t.Errorf("progress %d = %s", i, p)
		}
	}

	// Cancel a long call once it has reported progress: the caller gets
	// ErrCancelled and the connection keeps working.
	ctx, cancel := context.WithCancel(ctxT(t))
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := c.callTool(ctx, "trigger-long-running-operation", map[string]any{"duration": 60, "steps": 600}, map[string]any{"progressToken": "p2"})
		errc <- err
	}()
	c.waitNote(t, "notifications/progress")
	cancel()
	if err := waitSignal(t, errc, "the cancelled call to return"); !errors.Is(err, jsonrpc.ErrCancelled) {
		t.Fatalf("cancelled call: %v", err)
	}
	res, err = c.callTool(ctxT(t), "echo", map[string]any{"message": "still here"}, nil)
	if err != nil || res.text() != "Echo: still here" {
		t.Fatalf("echo after cancel = %+v, %v", res, err)
	}
}
