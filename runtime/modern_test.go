package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/mcp"
)

// nameElicitor answers every elicitation by accepting with a name (and
// ok=true for the task tool's confirmation), counting what it was asked.
type nameElicitor struct {
	name  string
	asked atomic.Int32
}

func (e *nameElicitor) Elicit(_ context.Context, req ElicitRequest) (ElicitResponse, error) {
	e.asked.Add(1)
	if strings.Contains(req.Message, "Go ahead") {
		return ElicitResponse{Action: "accept", Content: map[string]any{"ok": true}}, nil
	}
	return ElicitResponse{Action: "accept", Content: map[string]any{"name": e.name}}, nil
}

func modernController(t *testing.T, e Elicitor, servers ...config.Server) *Controller {
	t.Helper()
	c := New(Options{Config: configOf(servers...), Elicitor: e, StopGrace: 500 * time.Millisecond, LogLevel: "warning"})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := c.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return c
}

func text(t *testing.T, r *Result) string {
	t.Helper()
	if r == nil || len(r.Content) == 0 {
		t.Fatalf("no content in %+v", r)
	}
	return r.Content[0].Text
}

// TestModernStdioThroughTheRuntime runs the hand-written 2026-07-28 fake
// through the whole runtime: the probe, the envelope, MRTR, listen, logs
// at the chosen level, progress, cancellation and discover as health.
func TestModernStdioThroughTheRuntime(t *testing.T) {
	t.Parallel()
	srv := fakeServer("m", jsonrpctest.Modern)
	srv.PingInterval = 50 * time.Millisecond
	el := &nameElicitor{name: "octocat"}
	c := modernController(t, el, srv)
	rec := record(t, c)
	enable(t, c)

	v := serverOf(t, c, "m")
	if v.Era != EraModern || v.ProtocolVersion != mcp.LatestModern || !strings.Contains(v.EraReason, "server/discover answered") {
		t.Fatalf("era %s %q (%s); want modern %s", v.Era, v.ProtocolVersion, v.EraReason, mcp.LatestModern)
	}
	if v.ServerInfo.Name != "fake-modern" || !strings.Contains(v.Instructions, "fake modern") || len(v.Tools) == 0 {
		t.Fatalf("discovery not recorded: %+v %q tools %d", v.ServerInfo, v.Instructions, len(v.Tools))
	}
	if l := v.ListedAt.Tools; l.At.IsZero() || !l.Fresh(time.Now()) {
		t.Fatalf("tools listing %+v; want fetched and fresh for the server's ttlMs", l)
	}
	// listen is open and granted tools.
	rec.waitAny(t, "the listen acknowledged", func(e Event) bool {
		l, ok := e.(ListenChanged)
		return ok && l.Listen.State == ListenOpen && l.Listen.Granted.ToolsListChanged
	})
	if l := serverOf(t, c, "m").Listen; l == nil || l.State != ListenOpen || l.ID == 0 {
		t.Fatalf("listen in the snapshot: %+v", l)
	}

	ctx := ctxFor(t, 20*time.Second)
	res, err := c.Call(ctx, CallRequest{Server: "m", Tool: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)})
	if err != nil || text(t, res) != "hi" || res.Rounds != 1 {
		t.Fatalf("echo: %+v, %v", res, err)
	}

	// MRTR: the elicitation through the elicitor, the retry with the
	// exact requestState; two rounds under one request.
	var ids []uint64
	res, err = c.Call(ctx, CallRequest{Server: "m", Tool: "ask", OnStarted: func(id uint64) { ids = append(ids, id) }})
	if err != nil || text(t, res) != "Hello, octocat!" {
		t.Fatalf("ask: %+v, %v", res, err)
	}
	if res.Rounds != 2 || len(ids) != 2 || ids[0] == ids[1] || res.RequestID != ids[0] || el.asked.Load() != 1 {
		t.Fatalf("ask took rounds %d ids %v (result id %d), asked %d; want 2 rounds with new ids under the first", res.Rounds, ids, res.RequestID, el.asked.Load())
	}
	first := rec.waitAny(t, "round 1 asked for input", func(e Event) bool {
		f, ok := e.(RequestFinished)
		return ok && f.ID == ids[0] && f.Continues == "input_required"
	}).(RequestFinished)
	if first.Round != 1 || first.FirstID != ids[0] || len(first.Inputs) != 1 || first.Inputs[0] != "who: elicitation/create" {
		t.Fatalf("round 1: %+v", first)
	}
	second := rec.waitAny(t, "round 2 started", func(e Event) bool { s, ok := e.(RequestStarted); return ok && s.ID == ids[1] }).(RequestStarted)
	if second.Round != 2 || second.FirstID != ids[0] {
		t.Fatalf("round 2: %+v; want round 2 of request %d", second, ids[0])
	}

	// Logs at the chosen level arrive on the request's own stream.
	if _, err := c.Call(ctx, CallRequest{Server: "m", Tool: "log", Arguments: json.RawMessage(`{"message":"m"}`)}); err != nil {
		t.Fatal(err)
	}
	var levels []string
	for len(levels) < 2 {
		l := rec.waitFor(t, "log messages", func(e Event) bool { _, ok := e.(LogMessage); return ok }).(LogMessage)
		levels = append(levels, l.Level)
	}
	if levels[0] != "warning" || levels[1] != "error" {
		t.Fatalf("levels %v at warning; want warning, error", levels)
	}
	if err := c.SetLogLevel(ctx, "m", "debug"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(ctx, CallRequest{Server: "m", Tool: "log", Arguments: json.RawMessage(`{"message":"m"}`)}); err != nil {
		t.Fatal(err)
	}
	if l := rec.waitFor(t, "a debug message", func(e Event) bool { _, ok := e.(LogMessage); return ok }).(LogMessage); l.Level != "debug" {
		t.Fatalf("after SetLogLevel(debug) the first message is %s", l.Level)
	}

	// A list change through listen: relisted and republished.
	if _, err := c.Call(ctx, CallRequest{Server: "m", Tool: "notify_changed"}); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "tools relisted", func(e Event) bool { l, ok := e.(ListChanged); return ok && l.Kind == "tools" && l.Server == "m" })
	if l := serverOf(t, c, "m").ListedAt.Tools; l.FromCache {
		t.Fatalf("the list change was answered from the cache: %+v", l)
	}

	// Progress, then cancellation mid-way.
	started := make(chan uint64, 4)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Call(context.Background(), CallRequest{Server: "m", Tool: "slow", Arguments: json.RawMessage(`{"seconds":30}`), OnStarted: func(id uint64) { started <- id }})
		errc <- err
	}()
	id := <-started
	rec.waitFor(t, "progress of slow", func(e Event) bool { p, ok := e.(Progress); return ok && p.RequestID == id })
	if !c.Cancel("m", id, "test cancels") {
		t.Fatal("slow was not outstanding")
	}
	if err := <-errc; !errors.Is(err, ErrCancelled) {
		t.Fatalf("cancelled slow: %v", err)
	}
	rec.waitFor(t, "the cancellation", func(e Event) bool {
		r, ok := e.(RequestCancelled)
		return ok && r.ID == id && r.Reason == "test cancels"
	})

	// Health: server/discover, which a modern server must answer.
	hc := rec.waitFor(t, "a health check", func(e Event) bool { h, ok := e.(HealthChecked); return ok && h.OK }).(HealthChecked)
	if hc.Method != mcp.MethodDiscover {
		t.Fatalf("health probe %q; want server/discover", hc.Method)
	}
	if method, took, err := c.Ping(ctx, "m"); err != nil || method != mcp.MethodDiscover || took <= 0 {
		t.Fatalf("Ping: %s %s %v", method, took, err)
	}
}

// TestModernTasks follows a task of the tasks extension: polled to its
// end, its input request answered with tasks/update; and a cancelled
// call cancels its task with tasks/cancel.
func TestModernTasks(t *testing.T) {
	t.Parallel()
	el := &nameElicitor{}
	c := modernController(t, el, fakeServer("m", jsonrpctest.Modern))
	rec := record(t, c)
	enable(t, c)
	ctx := ctxFor(t, 20*time.Second)

	res, err := c.Call(ctx, CallRequest{Server: "m", Tool: "task", Arguments: json.RawMessage(`{"input":true,"seconds":0.2}`)})
	if err != nil || text(t, res) != "task done: accept" || res.TaskID == "" {
		t.Fatalf("task: %+v, %v", res, err)
	}
	var seen []string
	for _, e := range drain(rec) {
		if u, ok := e.(TaskUpdated); ok && u.Task.TaskID == res.TaskID {
			seen = append(seen, u.Task.Status)
		}
	}
	// (working again after the answer is too short-lived to be polled every time.)
	if got := strings.Join(seen, ","); !strings.HasPrefix(got, "working,input_required,") || !strings.HasSuffix(got, ",completed") || el.asked.Load() != 1 {
		t.Fatalf("task states %v, elicitations %d; want working, input_required, …, completed and one", seen, el.asked.Load())
	}

	// Cancelling the call sends tasks/cancel; the task shows as the
	// request's row in the meantime.
	errc := make(chan error, 1)
	go func() {
		_, err := c.Call(context.Background(), CallRequest{Server: "m", Tool: "task", Arguments: json.RawMessage(`{"seconds":60}`)})
		errc <- err
	}()
	up := rec.waitFor(t, "a working task", func(e Event) bool { u, ok := e.(TaskUpdated); return ok && u.Task.Status == "working" }).(TaskUpdated)
	var row *RequestInfo
	for _, r := range serverOf(t, c, "m").Outstanding {
		if r.Task != nil && r.Task.TaskID == up.Task.TaskID {
			row = &r
		}
	}
	if row == nil || row.ID != up.RequestID || row.Tool != "task" {
		t.Fatalf("the task's row: %+v; outstanding %+v", row, serverOf(t, c, "m").Outstanding)
	}
	if !c.Cancel("m", up.RequestID, "no longer needed") {
		t.Fatal("the task's request was not outstanding")
	}
	err = <-errc
	var ce *jsonrpc.CancelledError
	if !errors.As(err, &ce) || ce.Reason != "no longer needed" {
		t.Fatalf("cancelled task: %v", err)
	}
	rec.waitFor(t, "the task cancelled", func(e Event) bool {
		u, ok := e.(TaskUpdated)
		return ok && u.Task.TaskID == up.Task.TaskID && u.Task.Status == "cancelled"
	})
	waitStderr(t, rec, "m", "task cancelled "+up.Task.TaskID)
}

// waitStderr waits until a server writes line to its stderr.
func waitStderr(t *testing.T, rec *recorder, server, line string) {
	t.Helper()
	rec.waitAny(t, "stderr "+line, func(e Event) bool {
		l, ok := e.(StderrLine)
		return ok && l.Server == server && strings.Contains(l.Line, line)
	})
}
