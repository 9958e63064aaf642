package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/gateway"
	"mcpdeck/ui/uitest"
)

// fixtureApproval is a call waiting for approval, its arguments long
// enough to scroll and carrying an escape that must not reach the screen.
func fixtureApproval(id string) gateway.Approval {
	lines := make([]string, 40)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i+1)
	}
	args, _ := json.Marshal(map[string]any{"path": "/srv/prod/config.yaml", "content": strings.Repeat("line\n", 30) + "\x1b]52;c;evil\x07",
		"lines": lines, "mode": "overwrite"})
	return gateway.Approval{ID: id, Client: gateway.ClientInfo{ID: "c1", Name: "claude-code", Title: "Claude Code", Version: "2.1.0",
		Transport: gateway.TransportHTTP, Remote: "127.0.0.1:53422", Protocol: "2025-11-25"},
		RequestID: "17", Server: "fs", Tool: "fs__write_file", Arguments: args,
		Rule:  `gateway.tools.approve[0] "*__write*" at /home/me/.config/mcpdeck/mcp.json:9:14`,
		Asked: uitest.Clock.Add(-8 * time.Second), Deadline: uitest.Clock.Add(112 * time.Second)}
}

// The approval dialog says who asks, what, under which rule and for how
// long, and shows the arguments sanitised; y approves.
func TestGoldenApprovalDialog(t *testing.T) {
	forSizes(t, func(t *testing.T, w, h int) {
		g := uitest.NewGateway(uitest.Now)
		hs := serveFake(t, uitest.New(uitest.ReadySnapshot()), g, w, h)
		if n := g.Approvers(); n != 1 {
			t.Fatalf("the TUI attached %d approvers", n)
		}
		g.Ask(fixtureApproval("4242-1"))
		v := hs.waitText("claude-code (c1) asks to call fs__write_file", "Claude Code (claude-code) 2.1.0 (c1, http 127.0.0.1:53422)", "1m52s left", `*__write*`, "more lines")
		if strings.Contains(v, "\x1b]52") {
			t.Errorf("the escape in the arguments reached the screen:\n%s", v)
		}
		golden.RequireEqual(t, []byte(v))
		hs.keys("y")
		hs.waitText("approved claude-code (c1)'s call of fs__write_file")
		if d := g.Decisions(); len(d) != 1 || !d[0].Approve || d[0].By != "the operator (TUI)" || d[0].ID != "4242-1" {
			t.Fatalf("decisions %+v", d)
		}
	})
}

// n denies; approvals queue one after another; a call that stops waiting
// (timed out, withdrawn) closes its dialog, or leaves the queue; j scrolls
// the arguments.
func TestApprovalDenyQueueAndWithdrawn(t *testing.T) {
	g := uitest.NewGateway(uitest.Now)
	hs := serveFake(t, uitest.New(uitest.ReadySnapshot()), g, 120, 30)
	g.Ask(fixtureApproval("1-1"))
	second := fixtureApproval("1-2")
	second.Tool = "fs__delete"
	g.Ask(second)
	third := fixtureApproval("1-3")
	third.Tool = "fs__chmod"
	g.Ask(third)
	hs.waitText("asks to call fs__write_file", "more lines (↓)")
	hs.keys("pgdown", "pgdown", "pgdown")
	hs.waitText(`"path": "/srv/prod/config.yaml"`, `"line 40"`) // the end, reached by scrolling
	hs.keys("pgup", "pgup", "pgup", "pgup")
	hs.waitText(`52;c;evil\u0007"`) // the escape, escaped
	hs.keys("n")
	hs.waitText("asks to call fs__delete", "denied claude-code (c1)'s call of fs__write_file")
	g.Withdraw("1-3", gateway.TimedOut) // queued: it leaves the queue
	g.Withdraw("1-2", gateway.TimedOut) // in front: its dialog closes
	hs.waitText("stopped waiting (timed out, withdrawn or decided elsewhere)")
	hs.waitView("no dialog", func(v string) bool { return !strings.Contains(v, "asks to call") })
	if d := g.Decisions(); len(d) != 1 || d[0].Approve || d[0].ID != "1-1" {
		t.Fatalf("decisions %+v", d)
	}
}

// The real gateway inside the TUI: a go-sdk client's call of a tool the
// gateway block marks waits; the TUI's dialog shows it, y lets it through
// and n refuses the next one, whose error names the rule.
func TestApprovalWithTheRealGateway(t *testing.T) {
	rules := &config.Gateway{Policy: config.GatewayPolicy{Tools: &config.GatewayRules{Approve: []config.GatewayPattern{
		{Glob: "demo__echo", Field: "gateway.tools.approve[0]", Pos: config.Position{File: "mcp.json", Line: 3, Column: 30}}}}}}
	var g *gateway.Gateway
	var url string
	hs, _ := startReal(t, runtime.Options{Config: &config.Config{Servers: []config.Server{demoServer(t)}}}, 140, 40, func(o *Options) {
		g = gateway.New(o.Runtime.(*runtime.Controller), gateway.Options{Version: "test", Config: rules})
		mux := http.NewServeMux()
		mux.Handle("/mcp", g.Handler(gateway.HTTPOptions{Token: realToken, LoopbackOnly: true}))
		srv := httptest.NewServer(mux)
		url = srv.URL + "/mcp"
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			g.Close(ctx)
			srv.Close()
		})
		o.Serving = &Serving{Gateway: g, URL: url, Token: realToken}
	})
	t.Cleanup(AttachGateway(g, hs.tm.Send))
	hs.keys("m")
	hs.waitText("servers 1/1 ready")

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "ui-agent", Version: "3.1.4"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, HTTPClient: &http.Client{Transport: bearer{realToken}}}
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	call := func() <-chan outcome {
		out := make(chan outcome, 1)
		go func() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "through the TUI"}})
			out <- outcome{res, err}
		}()
		return out
	}
	out := call()
	hs.waitText("ui-agent (c1) asks to call demo__echo", `gateway.tools.approve[0] "demo__echo" at mcp.json:3:30`, `"text": "through the TUI"`)
	hs.keys("y")
	if o := <-out; o.err != nil || o.res.Content[0].(*mcp.TextContent).Text != "through the TUI" {
		t.Fatalf("approved: %v %+v", o.err, o.res)
	}
	hs.keys("5") // the Logs tab: the decision in the stream, from the runtime
	hs.waitText("tools/call demo__echo for ui-agent 3.1.4 (c1, http", "approved by the operator (TUI)")
	hs.keys("1")
	out = call()
	hs.waitText("ui-agent (c1) asks to call demo__echo")
	hs.keys("n")
	if o := <-out; o.err == nil || !strings.Contains(o.err.Error(), "the operator denied tool") || !strings.Contains(o.err.Error(), "mcp.json:3:30") {
		t.Fatalf("denied: %v %+v", o.err, o.res)
	}
}
