package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// The 2025-11-25 tasks, for legacy clients: the revision before the tasks
// extension (tasks.go) let a client augment a tools/call with params.task
// when the server declared tasks.requests.tools.call, and poll the task
// with tasks/get, fetch its result with tasks/result (which waits), cancel
// it with tasks/cancel and list its tasks with tasks/list. The gateway
// declares that capability in initialize, marks the tools whose server
// runs tasks as taskSupport optional, and answers an augmented call with
// a task of its own at once; the call runs behind it through the runtime,
// which asks the server for a task too where the tool allows one, and
// follows it. A server's question during the task reaches the client as a
// request of its own, beside the tasks/result it waits in when it does.
// The tasks are the extension's (the same table, owners and ttl), worded
// in the legacy shapes.

// The 2025-11-25 tasks methods the extension dropped.
const (
	methodTasksResult = "tasks/result"
	methodTasksList   = "tasks/list"
	relatedTaskMeta   = "io.modelcontextprotocol/related-task"
)

// legacyTaskRequested reports a 2025-11-25 task-augmented tools/call.
func legacyTaskRequested(c *call) bool {
	return c.env == nil && c.method == "tools/call" && len(c.p.Task) > 0 && string(c.p.Task) != "null"
}

// startLegacyTask answers a task-augmented tools/call with a task at once
// and runs the call behind it; its concurrency slot is held until the
// call ends.
func (g *Gateway) startLegacyTask(c *call, t *target, release func()) (any, error) {
	now := time.Now()
	tk := &task{g: g, id: "task-" + newState(), owner: c.cl.limitKey(), c: c, created: now, updated: now, status: mcp.TaskWorking,
		done: make(chan struct{}), asked: make(chan struct{}, 1), pending: map[string]*ask{}, returned: true}
	rctx, cancel := context.WithCancel(upstreamCtx(c.cl.ctx, c))
	tk.cancel = cancel
	g.keepTask(tk)
	g.wg.Go(func() {
		defer close(tk.done)
		// The client's own responder: a legacy client takes the server's
		// questions as requests; no request waits on the call to carry
		// its progress.
		fwd := &forward{}
		res, err := t.run(runtime.WithResponder(rctx, c.cl.responder), g.register(fwd, c, t.server))
		g.unregister(fwd)
		release()
		tk.finish(res, err)
	})
	tk.mu.Lock()
	defer tk.mu.Unlock()
	return legacyCreateTask{Task: tk.legacyLocked()}, nil
}

// legacyCreateTask is the 2025-11-25 CreateTaskResult.
type legacyCreateTask struct {
	Task map[string]any `json:"task"`
}

// legacyLocked is the task as a 2025-11-25 client reads it (Task). Called
// with mu held.
func (tk *task) legacyLocked() map[string]any {
	m := map[string]any{"taskId": tk.id, "status": tk.status, "createdAt": tk.created.UTC().Format(time.RFC3339Nano),
		"lastUpdatedAt": tk.updated.UTC().Format(time.RFC3339Nano), "ttl": tk.g.ttl().Milliseconds(), "pollInterval": taskPollMs}
	if tk.message != "" {
		m["statusMessage"] = tk.message
	}
	return m
}

// legacyTaskMethod serves a legacy client's tasks/get, tasks/result,
// tasks/cancel and tasks/list.
func (g *Gateway) legacyTaskMethod(ctx context.Context, c *call) (any, error) {
	if c.method == mcp.MethodTasksUpdate {
		return nil, invalidParams("tasks/update is the 2026-07-28 tasks extension's; a 2025-11-25 task's questions arrive as requests of their own")
	}
	if c.method == methodTasksList {
		g.mu.Lock()
		var mine []*task
		for _, tk := range g.tasks {
			if tk.owner == c.cl.limitKey() {
				mine = append(mine, tk)
			}
		}
		g.mu.Unlock()
		slices.SortFunc(mine, func(a, b *task) int { return a.created.Compare(b.created) })
		out := make([]map[string]any, 0, len(mine))
		for _, tk := range mine {
			tk.mu.Lock()
			out = append(out, tk.legacyLocked())
			tk.mu.Unlock()
		}
		return map[string]any{"tasks": out}, nil
	}
	var p mcp.TaskRef
	if err := json.Unmarshal(c.params, &p); err != nil || p.TaskID == "" {
		return nil, invalidParams("%s: params need a \"taskId\"", c.method)
	}
	tk, err := g.taskOf(c, p.TaskID)
	if err != nil {
		return nil, err
	}
	// The request concerns the call's server: a question the server asks
	// meanwhile travels beside it (a legacy HTTP session's stream).
	c.resolved(tk.c.server(), tk.c.p.Name)
	switch c.method {
	case mcp.MethodTasksCancel:
		tk.mu.Lock()
		if !tk.status.Terminal() {
			tk.status, tk.message, tk.updated = mcp.TaskCancelled, "cancelled by the client", time.Now()
			tk.cancel() // the runtime cancels the server's request or task
		}
		tk.mu.Unlock()
	case methodTasksResult:
		select {
		case <-tk.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		tk.mu.Lock()
		res, err := tk.res, tk.err
		tk.mu.Unlock()
		if err != nil {
			return nil, err
		}
		return withRelatedTask(res, tk.id)
	}
	tk.mu.Lock()
	defer tk.mu.Unlock()
	return tk.legacyLocked(), nil
}

// withRelatedTask adds _meta io.modelcontextprotocol/related-task to a
// task's result, as tasks/result answers it.
func withRelatedTask(res any, id string) (any, error) {
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("encoding the task's result: %w", err)
	}
	ref, _ := json.Marshal(map[string]string{"taskId": id})
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, fmt.Errorf("the task's result is not an object: %w", err)
	}
	fields["_meta"] = mcp.SetMeta(fields["_meta"], relatedTaskMeta, ref)
	return fields, nil
}
