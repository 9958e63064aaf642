package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/config"
	"mcpdeck/runtime"
)

// approvalEvents follows the gateway's approval events.
func approvalEvents(t *testing.T, g *Gateway) (<-chan ApprovalRequested, <-chan ApprovalDecided) {
	events, stop := g.Subscribe()
	t.Cleanup(stop)
	asked, decided := make(chan ApprovalRequested, 64), make(chan ApprovalDecided, 64)
	go func() {
		for e := range events {
			switch e := e.(type) {
			case ApprovalRequested:
				asked <- e
			case ApprovalDecided:
				decided <- e
			}
		}
	}()
	return asked, decided
}

// callAsync calls a tool on its own goroutine.
func callAsync(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) <-chan callOutcome {
	out := make(chan callOutcome, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		out <- callOutcome{res, err}
	}()
	return out
}

type callOutcome struct {
	res *mcp.CallToolResult
	err error
}

// A call that a rule marks waits for the operator: approved, it goes
// through; denied, it fails with the rule named; either way the decision is
// published with who made it, and recorded in the runtime. Both eras of
// client.
func TestApprovalApprovedAndDenied(t *testing.T) {
	rt := newRuntime(t, peerServer("peer"))
	gw := gatewayConfig(t, `{"tools": {"approve": ["peer__echo"]}, "approveDestructive": true}`)
	g := newGateway(t, rt, Options{Config: gw})
	defer g.AttachApprover()()
	asked, decided := approvalEvents(t, g)
	recorded, stopRec := rt.Subscribe(runtime.SubscribeOptions{Lossless: true, Buffer: 1 << 14})
	defer stopRec()
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			cs := connect(t, goClient("approver-"+era, newClientEvents()), pipeTransport(t, g), era)
			ctx := ctxFor(t, 30*time.Second)

			// Not marked: through at once.
			if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__slow", Arguments: map[string]any{"seconds": 0.1}}); err != nil || res.IsError {
				t.Fatalf("an unmarked call: %v %+v", err, res)
			}

			out := callAsync(ctx, cs, "peer__echo", map[string]any{"text": "hi " + era})
			req := waitFor(t, "the approval request", asked, nil).Approval
			if req.Tool != "peer__echo" || req.Server != "peer" || req.Client.Name != "approver-"+era ||
				!strings.Contains(req.Rule, `gateway.tools.approve[0] "peer__echo" at `) || string(req.Arguments) != `{"text":"hi `+era+`"}` ||
				!req.Deadline.Equal(req.Asked.Add(2*time.Minute)) {
				t.Fatalf("approval %+v", req)
			}
			if p := g.Pending(); len(p) != 1 || p[0].ID != req.ID {
				t.Fatalf("pending %+v", p)
			}
			select {
			case o := <-out:
				t.Fatalf("the call did not wait for the operator: %+v", o)
			default:
			}
			if err := g.Decide(req.ID, true, "the test operator", ""); err != nil {
				t.Fatal(err)
			}
			o := <-out
			if o.err != nil || textOf(o.res) != "hi "+era {
				t.Fatalf("approved call: %v %+v", o.err, o.res)
			}
			if d := waitFor(t, "the decision", decided, nil); d.Decision != Approved || d.By != "the test operator" || d.Approval.ID != req.ID {
				t.Fatalf("decision %+v", d)
			}
			if err := g.Decide(req.ID, true, "again", ""); !errors.Is(err, ErrNoSuchApproval) {
				t.Fatalf("deciding twice: %v", err)
			}

			// Denied: the rule and the reason in the error; the server never
			// sees the call.
			out = callAsync(ctx, cs, "peer__remove", map[string]any{"name": "prod"})
			req = waitFor(t, "the approval request", asked, nil).Approval
			if !strings.Contains(req.Rule, "gateway.approveDestructive at ") || !strings.Contains(req.Rule, "destructiveHint: true") {
				t.Fatalf("the destructive tool's rule: %q", req.Rule)
			}
			if err := g.Decide(req.ID, false, "the test operator", "not on a Friday"); err != nil {
				t.Fatal(err)
			}
			o = <-out
			rpc := rpcErr(o.err)
			if rpc == nil || rpc.Code != CodeRefused || !strings.Contains(rpc.Message, `denied tool "peer__remove"`) ||
				!strings.Contains(rpc.Message, "gateway.approveDestructive") || !strings.Contains(rpc.Message, "not on a Friday") {
				t.Fatalf("denied call: %v %+v", o.err, o.res)
			}
			wantKind(t, "a denied call", rpc, "denied", runtime.KindRefused)
			if d := waitFor(t, "the decision", decided, nil); d.Decision != Denied || d.Reason != "not on a Friday" {
				t.Fatalf("decision %+v", d)
			}
			var rec runtime.OperatorDecision
			waitFor(t, "the recorded decision", recorded, func(e runtime.Event) bool {
				d, ok := e.(runtime.OperatorDecision)
				rec = d
				return ok && d.ID == req.ID
			})
			if rec.Kind != runtime.DecisionApproval || rec.Decision != Denied || rec.By != "the test operator" || rec.Server != "peer" ||
				!strings.Contains(rec.Client, "approver-"+era) || rec.Subject != "tools/call peer__remove" || rec.Asked.After(rec.Time) {
				t.Fatalf("recorded %+v", rec)
			}
		})
	}
}

// Nobody answers in time: refused with the rule and the timeout named. A
// client that gives up first withdraws its call. No operator at all: the
// call is refused at once, saying why.
func TestApprovalTimeoutWithdrawAndNobody(t *testing.T) {
	rt := newRuntime(t, peerServer("peer"))
	gw := gatewayConfig(t, `{"servers": {"approve": ["peer"]}, "approvalTimeout": "300ms"}`)
	g := newGateway(t, rt, Options{Config: gw})
	asked, decided := approvalEvents(t, g)
	cs := connect(t, goClient("impatient", newClientEvents()), pipeTransport(t, g), "legacy")
	ctx := ctxFor(t, 30*time.Second)

	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__echo", Arguments: map[string]any{"text": "x"}})
	if rpc := rpcErr(err); rpc == nil || rpc.Code != CodeRefused || !strings.Contains(rpc.Message, "nobody can give it") ||
		!strings.Contains(rpc.Message, `gateway.servers.approve[0] "peer"`) {
		t.Fatalf("without an operator: %v", err)
	}
	if d := waitFor(t, "the refusal", decided, nil); d.Decision != Refused {
		t.Fatalf("decision %+v", d)
	}

	detach := g.AttachApprover()
	defer detach()
	start := time.Now()
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__echo", Arguments: map[string]any{"text": "x"}})
	rpc := rpcErr(err)
	if rpc == nil || rpc.Code != CodeRefused || !strings.Contains(rpc.Message, "none came within 300ms (gateway.approvalTimeout)") ||
		!strings.Contains(rpc.Message, `gateway.servers.approve[0] "peer"`) || time.Since(start) < 300*time.Millisecond {
		t.Fatalf("timed out: %v", err)
	}
	var data errData
	if json.Unmarshal(rpc.Data, &data) != nil || data.Reason != "approval_timeout" || data.Server != "peer" || !strings.Contains(data.Rule, "servers.approve") {
		t.Fatalf("error data %s", rpc.Data)
	}
	waitFor(t, "the request", asked, nil)
	if d := waitFor(t, "the timeout", decided, nil); d.Decision != TimedOut || d.By != "the timeout" {
		t.Fatalf("decision %+v", d)
	}

	// The client cancels while it waits.
	cctx, cancel := context.WithCancel(ctx)
	out := callAsync(cctx, cs, "peer__echo", map[string]any{"text": "x"})
	waitFor(t, "the request", asked, nil)
	cancel()
	if o := <-out; !errors.Is(o.err, context.Canceled) {
		t.Fatalf("cancelled: %v", o.err)
	}
	if d := waitFor(t, "the withdrawal", decided, nil); d.Decision != Withdrawn || !strings.Contains(d.By, "impatient") {
		t.Fatalf("decision %+v", d)
	}
	if p := g.Pending(); len(p) != 0 {
		t.Fatalf("still pending: %+v", p)
	}
	if v, _ := rt.Snapshot().Server("peer"); v.Counters.Calls != 0 {
		t.Fatalf("the server saw %d calls it should never have", v.Counters.Calls)
	}
}

func TestDestructiveAnnotation(t *testing.T) {
	for in, want := range map[string]bool{
		``:                          false,
		`{}`:                        false,
		`{"destructiveHint":true}`:  true,
		`{"destructiveHint":false}`: false,
		`{"destructiveHint":true,"readOnlyHint":true}`:  false,
		`{"destructiveHint":true,"readOnlyHint":false}`: true,
		`{"readOnlyHint":false}`:                        false,
		`[1]`:                                           false,
	} {
		if got := destructive(json.RawMessage(in)); got != want {
			t.Errorf("%s: %v", in, got)
		}
	}
}

// With --audit, a call's line carries the operator's decision: its ID,
// the rule, the decision, who made it and how long the call waited.
func TestApprovalInTheAuditLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	audit, err := NewAudit(AuditOptions{File: path})
	if err != nil {
		t.Fatal(err)
	}
	defer audit.Close()
	g := newGateway(t, newRuntime(t, demoServer("demo")), Options{Config: gatewayConfig(t, `{"tools": {"approve": ["demo__echo"]}}`), Audit: audit})
	defer g.AttachApprover()()
	asked, _ := approvalEvents(t, g)
	cs := connect(t, goClient("audited", newClientEvents()), pipeTransport(t, g), "legacy")
	ctx := ctxFor(t, 30*time.Second)
	for _, approve := range []bool{true, false} {
		out := callAsync(ctx, cs, "demo__echo", map[string]any{"text": "x"})
		id := waitFor(t, "the approval", asked, nil).Approval.ID
		if err := g.Decide(id, approve, "the auditor", ""); err != nil {
			t.Fatal(err)
		}
		<-out
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "demo__add", Arguments: map[string]any{"a": 1, "b": 2}}); err != nil {
		t.Fatal(err)
	}
	recs := readAudit(t, path)
	if len(recs) != 3 {
		t.Fatalf("%d lines: %+v", len(recs), recs)
	}
	for i, want := range []struct{ outcome, decision string }{{"ok", Approved}, {"refused", Denied}} {
		a := recs[i].Approval
		if recs[i].Outcome != want.outcome || a == nil || a.Decision != want.decision || a.By != "the auditor" ||
			!strings.Contains(a.Rule, `gateway.tools.approve[0] "demo__echo"`) || a.ID == "" || a.WaitedMs <= 0 {
			t.Errorf("line %d: %+v approval %+v", i, recs[i], a)
		}
	}
	if recs[2].Approval != nil {
		t.Errorf("a call without a rule has an approval: %+v", recs[2].Approval)
	}
}

// BenchmarkApprovalCheck is what the approval rules add to every
// tools/call: the lookup of a tool no rule marks (cached after the first
// call), with and without approveDestructive, which reads the tool's
// annotations.
func BenchmarkApprovalCheck(b *testing.B) {
	tool := &runtime.Tool{Server: "fs", Name: "fs__read_file", Annotations: json.RawMessage(`{"readOnlyHint":true,"destructiveHint":false}`)}
	for _, tc := range []struct{ name, block string }{
		{"no-rules", `{}`},
		{"patterns", `{"tools": {"approve": ["*__write*", "*__delete*"]}, "servers": {"approve": ["prod-*"]}}`},
		{"patterns+destructive", `{"tools": {"approve": ["*__write*", "*__delete*"]}, "approveDestructive": true}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "mcp.json")
			if err := os.WriteFile(path, []byte(`{"mcpServers": {}, "gateway": `+tc.block+`}`), 0o600); err != nil {
				b.Fatal(err)
			}
			cfg, err := config.Load(config.LoadOptions{Files: []string{path}, ProjectDir: filepath.Dir(path)})
			if err != nil {
				b.Fatal(err)
			}
			g := &Gateway{}
			pol := newPolicy(cfg.Gateway, "bench")
			b.ReportAllocs()
			for b.Loop() {
				if ok, _ := g.approvalFor(pol, tool); ok {
					b.Fatal("a read-only tool needs approval")
				}
			}
		})
	}
}
