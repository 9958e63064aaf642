package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
)

// TestEverythingInterop runs the reference server
// @modelcontextprotocol/server-everything over stdio through the whole
// runtime.
func TestEverythingInterop(t *testing.T) {
	t.Parallel()
	node, script := jsonrpctest.Everything(t)
	srv := config.Server{Name: "everything", Transport: config.TransportStdio, Command: node, Args: []string{script, "stdio"},
		Enabled: true, StartupTimeout: 30 * time.Second, CallTimeout: 30 * time.Second}
	c := New(Options{Config: configOf(srv), Elicitor: DefaultsElicitor{}, StopGrace: time.Second})
	t.Cleanup(func() { c.Shutdown(context.Background()) })
	rec := record(t, c)
	enable(t, c)

	v := serverOf(t, c, "everything")
	if v.ServerInfo.Name == "" || v.ProtocolVersion == "" || len(v.Tools) < 10 {
		t.Fatalf("initialize/list: %+v (tools %d)", v.ServerInfo, len(v.Tools))
	}
	// It registers tools that depend on our capabilities after initialized,
	// and says so with tools/list_changed; the refetch picks them up.
	rec.waitAny(t, "tools/list_changed", func(e Event) bool { l, ok := e.(ListChanged); return ok && l.Kind == "tools" })
	deadline := time.After(10 * time.Second)
	for !strings.Contains(toolNames(serverOf(t, c, "everything").Tools), "trigger-elicitation-request") {
		select {
		case <-deadline:
			t.Fatalf("elicitation tool never listed: %s", toolNames(serverOf(t, c, "everything").Tools))
		case <-rec.ch:
		}
	}

	ctx := ctxFor(t, 30*time.Second)
	res, err := c.Call(ctx, CallRequest{Server: "everything", Tool: "echo", Arguments: json.RawMessage(`{"message":"hello everything"}`)})
	if err != nil || !strings.Contains(res.Content[0].Text, "hello everything") {
		t.Fatalf("echo: %+v, %v", res, err)
	}

	// Elicitation goes to the plugged-in elicitor and back: the defaults
	// decline, since the form requires a name nothing can pick.
	res, err = c.Call(ctx, CallRequest{Server: "everything", Tool: "trigger-elicitation-request"})
	if err != nil || res.IsError {
		t.Fatalf("elicitation round trip: %+v, %v", res, err)
	}
	if b, _ := json.Marshal(res); !strings.Contains(string(b), "declined") {
		t.Fatalf("the elicitation answer did not reach the server: %s", b)
	}

	// Cancel a long-running operation mid-way, after its first progress.
	ids := make(chan uint64, 1)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Call(context.Background(), CallRequest{Server: "everything", Tool: "trigger-long-running-operation",
			Arguments: json.RawMessage(`{"duration":30,"steps":30}`), OnStarted: func(id uint64) { ids <- id }})
		errc <- err
	}()
	id := <-ids
	rec.waitFor(t, "progress of the long operation", func(e Event) bool { p, ok := e.(Progress); return ok && p.RequestID == id })
	c.Cancel("everything", id, "test cancels mid-way")
	if err := <-errc; !errors.Is(err, jsonrpc.ErrCancelled) {
		t.Fatalf("cancelled operation: %v", err)
	}
	// server-everything does not stop the operation: its next progress,
	// after the cancel, still names the call it belonged to (it was
	// labelled by the raw token alone).
	late := rec.waitFor(t, "late progress of the cancelled operation", func(e Event) bool {
		p, ok := e.(Progress)
		return ok && p.RequestID == 0 && p.Late != ""
	}).(Progress)
	if late.Tool != "trigger-long-running-operation" || late.Late != "cancelled" {
		t.Errorf("late progress = %+v, want it for trigger-long-running-operation, cancelled", late)
	}
	if _, err := c.Call(ctx, CallRequest{Server: "everything", Tool: "echo", Arguments: json.RawMessage(`{"message":"still here"}`)}); err != nil {
		t.Fatalf("call after cancel: %v", err)
	}

	// It keeps running after stdin EOF while its timers run: stopping it
	// takes SIGTERM, and no process remains.
	pid := serverOf(t, c, "everything").PID
	if err := c.SetEnabled(ctxFor(t, 30*time.Second), false); err != nil {
		t.Fatal(err)
	}
	if !jsonrpctest.ProcessGone(pid) {
		t.Fatal("server-everything survived disable")
	}
	if step := serverOf(t, c, "everything").LastStop.Step; step != StopStdinClose && step != StopSIGTERM {
		t.Fatalf("stopped by %q", step)
	}
}

// interpretElicitor answers server-everything's research clarification.
type interpretElicitor struct{ asked chan ElicitRequest }

func (e interpretElicitor) Elicit(_ context.Context, req ElicitRequest) (ElicitResponse, error) {
	select {
	case e.asked <- req:
	default:
	}
	return ElicitResponse{Action: "accept", Content: map[string]any{"interpretation": "programming"}}, nil
}

// TestEverythingLegacyTasks runs server-everything's simulate-research-query,
// whose taskSupport is "required", as a 2025-11-25 task: the call is
// task-augmented, polled with tasks/get, its clarification (an elicitation
// delivered through tasks/result) answered, its result fetched; and a
// cancelled call cancels its task with tasks/cancel.
func TestEverythingLegacyTasks(t *testing.T) {
	t.Parallel()
	node, script := jsonrpctest.Everything(t)
	srv := config.Server{Name: "everything", Transport: config.TransportStdio, Command: node, Args: []string{script, "stdio"},
		Enabled: true, StartupTimeout: 30 * time.Second, CallTimeout: 30 * time.Second}
	el := interpretElicitor{asked: make(chan ElicitRequest, 1)}
	c := New(Options{Config: configOf(srv), Elicitor: el, StopGrace: time.Second})
	t.Cleanup(func() { c.Shutdown(context.Background()) })
	rec := record(t, c)
	enable(t, c)
	if v := serverOf(t, c, "everything"); v.Era != EraLegacy || !strings.Contains(v.EraReason, "server/discover answered error") {
		t.Fatalf("server-everything: era %s (%s)", v.Era, v.EraReason)
	}
	deadline := time.After(10 * time.Second)
	var tool Tool
	for tool.TaskSupport == "" {
		for _, tl := range serverOf(t, c, "everything").Tools {
			if tl.ServerTool == "simulate-research-query" {
				tool = tl
			}
		}
		if tool.TaskSupport != "" {
			break
		}
		select {
		case <-deadline:
			t.Fatalf("simulate-research-query never listed with its taskSupport: %+v", tool)
		case <-rec.ch:
		}
	}
	if tool.TaskSupport != "required" {
		t.Fatalf("taskSupport %q", tool.TaskSupport)
	}

	ctx := ctxFor(t, 60*time.Second)
	res, err := c.Call(ctx, CallRequest{Server: "everything", Tool: "simulate-research-query", Arguments: json.RawMessage(`{"topic":"python","ambiguous":true}`)})
	if err != nil || res.IsError || res.TaskID == "" || !strings.Contains(text(t, res), "Research Report: python (programming)") {
		t.Fatalf("research: %+v, %v", res, err)
	}
	if req := <-el.asked; !strings.Contains(req.Message, "multiple interpretations") {
		t.Fatalf("the clarification asked %q", req.Message)
	}
	var states []string
	for _, e := range drain(rec) {
		if u, ok := e.(TaskUpdated); ok && u.Task.TaskID == res.TaskID {
			if n := len(states); n == 0 || states[n-1] != u.Task.Status {
				states = append(states, u.Task.Status)
			}
			if !u.Task.Legacy {
				t.Fatalf("a 2025-11-25 task reported as the extension's: %+v", u.Task)
			}
		}
	}
	if got := strings.Join(states, ","); !strings.HasPrefix(got, "working") || !strings.Contains(got, "input_required") || !strings.HasSuffix(got, "completed") {
		t.Fatalf("task states %s", got)
	}

	// Cancelling the call cancels the task.
	errc := make(chan error, 1)
	go func() {
		_, err := c.Call(context.Background(), CallRequest{Server: "everything", Tool: "simulate-research-query", Arguments: json.RawMessage(`{"topic":"go"}`)})
		errc <- err
	}()
	up := rec.waitFor(t, "the second task working", func(e Event) bool { u, ok := e.(TaskUpdated); return ok && u.Task.Status == "working" }).(TaskUpdated)
	c.Cancel("everything", up.RequestID, "enough research")
	if err := <-errc; !errors.Is(err, ErrCancelled) {
		t.Fatalf("cancelled research: %v", err)
	}
	rec.waitAny(t, "tasks/cancel on the wire", func(e Event) bool {
		f, ok := e.(TrafficFrame)
		return ok && f.Frame.Dir == Out && f.Frame.Method == "tasks/cancel" && strings.Contains(string(f.Frame.Raw), up.Task.TaskID)
	})
}
