package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// progressClient is a client of g over in-process pipes, on mcpdeck's own
// JSON-RPC connection, which delivers every notification read before a
// response before that response returns: what it has heard when a call
// returns is what the gateway wrote before the answer.
type progressClient struct {
	conn *jsonrpc.Conn
	mu   sync.Mutex
	got  []string // "token progress/total" of each notifications/progress, in order
}

func newProgressClient(t *testing.T, g *Gateway, era string) *progressClient {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- g.ServeStdio(context.Background(), sr, sw) }()
	pc := &progressClient{}
	pc.conn = jsonrpc.NewConn(jsonrpc.NewStdioStream(cr, cw, closers{cw, cr}, jsonrpc.StdioOptions{}), jsonrpc.Options{
		OnNotification: func(n jsonrpc.Notification) {
			if n.Method != "notifications/progress" {
				return
			}
			var p struct {
				Token           json.RawMessage `json:"progressToken"`
				Progress, Total float64
			}
			_ = json.Unmarshal(n.Params, &p)
			pc.mu.Lock()
			pc.got = append(pc.got, fmt.Sprintf("%s %g/%g", p.Token, p.Progress, p.Total))
			pc.mu.Unlock()
		},
	})
	t.Cleanup(func() {
		pc.conn.Close()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Error("ServeStdio did not return after the client closed")
		}
	})
	if era == "legacy" {
		ctx := ctxFor(t, 20*time.Second)
		if _, err := pc.conn.Call(ctx, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "order", "version": "0"}}); err != nil {
			t.Fatal(err)
		}
		if err := pc.conn.Notify(ctx, "notifications/initialized", nil); err != nil {
			t.Fatal(err)
		}
	}
	return pc
}

// call calls tool with a progress token and returns the progress heard
// before the answer.
func (pc *progressClient) call(t *testing.T, era, tool, token string, args map[string]any) []string {
	t.Helper()
	meta := map[string]any{"progressToken": token}
	if era == "modern" {
		meta["io.modelcontextprotocol/protocolVersion"] = "2026-07-28"
		meta["io.modelcontextprotocol/clientCapabilities"] = map[string]any{}
		meta["io.modelcontextprotocol/clientInfo"] = map[string]any{"name": "order", "version": "0"}
	}
	pc.mu.Lock()
	pc.got = nil
	pc.mu.Unlock()
	if _, err := pc.conn.Call(ctxFor(t, 30*time.Second), "tools/call", map[string]any{"name": tool, "arguments": args, "_meta": meta}); err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return append([]string(nil), pc.got...)
}

func wantProgress(token string, steps int) []string {
	var out []string
	for i := 1; i <= steps; i++ {
		out = append(out, fmt.Sprintf("%q %d/%d", token, i, steps))
	}
	return out
}

// Through the gateway every progress notification of a server reaches the
// client before the answer it preceded, under the client's token, in
// order: the last ones arrive with the answer (the burst fake writes them
// in one write, server-everything one after the other).
func TestProgressThroughTheGatewayBeforeTheAnswer(t *testing.T) {
	path, args, _ := jsonrpctest.Command(jsonrpctest.ProgressBurst)
	burst := config.Server{Name: "up", Transport: config.TransportStdio, Command: path, Args: args,
		Env: jsonrpctest.ServerEnv(jsonrpctest.ProgressBurst), Enabled: true, StartupTimeout: 20 * time.Second, CallTimeout: 20 * time.Second}
	node, script := jsonrpctest.Everything(t)
	every := config.Server{Name: "every", Transport: config.TransportStdio, Command: node, Args: []string{script, "stdio"},
		Enabled: true, StartupTimeout: 30 * time.Second, CallTimeout: 30 * time.Second}
	rt := newRuntime(t, burst, every)
	g := newGateway(t, rt, Options{})
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			pc := newProgressClient(t, g, era)
			for round := range 10 {
				token := fmt.Sprintf("%s-%d", era, round)
				got := pc.call(t, era, "up__burst", token, map[string]any{"steps": 20})
				if want := wantProgress(token, 20); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("round %d: progress heard before the answer:\n got %q\nwant %q", round, got, want)
				}
			}
			for round := range 2 {
				token := fmt.Sprintf("every-%s-%d", era, round)
				got := pc.call(t, era, "every__trigger-long-running-operation", token, map[string]any{"duration": 0.3, "steps": 3})
				if want := wantProgress(token, 3); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("server-everything, round %d: progress heard before the answer:\n got %q\nwant %q", round, got, want)
				}
			}
		})
	}
}
