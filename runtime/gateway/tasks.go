package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// The gateway serves the tasks extension (io.modelcontextprotocol/tasks)
// to 2026-07-28 clients that declare it: a tools/call still running after
// Options.TaskAfter, or whose server asks the client something, is
// answered with a task (resultType "task") instead of holding the request
// open; the client polls tasks/get for its state (working; input_required
// with the questions; completed with the result, failed with the error,
// or cancelled), answers the questions with tasks/update and gives up with
// tasks/cancel. The call keeps its limits: its concurrency slot until it
// ends, and gateway.callTimeout. Tasks live in the gateway's memory for
// Options.TaskTTL after they end: they do not survive a restart, and
// another replica does not know them. Only the client that started a task
// (the same identity, or the same name and address) can see or change it;
// to anyone else it is unknown.

// Defaults of the tasks extension.
const (
	// DefaultTaskAfter is how long a task-capable client's call may run
	// before it is answered with a task.
	DefaultTaskAfter = time.Second
	// DefaultTaskTTL is how long an ended task's outcome is kept.
	DefaultTaskTTL = 10 * time.Minute
	// taskPollMs is the poll interval the gateway suggests.
	taskPollMs = 500
)

// task is one tools/call running as a task. The fields under mu change as
// it runs; the rest are fixed when it starts.
type task struct {
	g       *Gateway
	id      string
	owner   string // limitKey of the client that started it
	c       *call  // the request that started it
	created time.Time
	cancel  context.CancelFunc
	done    chan struct{} // closed once the runtime answered and finish ran
	asked   chan struct{} // signalled when a question waits for the client

	mu       sync.Mutex
	status   mcp.TaskStatus
	message  string
	updated  time.Time
	res      any   // the answer as the synchronous path returns it
	err      error // (when the client never saw the task)
	pending  map[string]*ask
	seq      int
	returned bool // the client was handed the task
	expiry   *time.Timer
}

// createTaskResult is the answer that hands the client a task.
type createTaskResult struct {
	ResultType string `json:"resultType"`
	mcp.Task
}

// startTask runs t for a task-capable modern client: the call's own answer
// when it comes within TaskAfter, else a task.
func (g *Gateway) startTask(ctx context.Context, c *call, t *target, release func()) (any, error) {
	now := time.Now()
	tk := &task{g: g, id: "task-" + newState(), owner: c.cl.limitKey(), c: c, created: now, updated: now, status: mcp.TaskWorking,
		done: make(chan struct{}), asked: make(chan struct{}, 1), pending: map[string]*ask{}}
	rctx, cancel := context.WithCancel(upstreamCtx(c.cl.ctx, c))
	tk.cancel = cancel
	fwd := &forward{}
	fwd.target.Store(c)
	g.wg.Go(func() {
		defer close(tk.done)
		res, err := t.run(g.hear(runtime.WithResponder(rctx, &answers{&taskResponder{tk}, c.cl})), g.register(fwd, c, t.server))
		g.unregister(fwd)
		release()
		tk.finish(res, err)
	})
	after := g.opts.TaskAfter
	if after <= 0 {
		after = DefaultTaskAfter
	}
	timer := time.NewTimer(after)
	defer timer.Stop()
	select {
	case <-tk.done:
		tk.mu.Lock()
		defer tk.mu.Unlock()
		return tk.res, tk.err
	case <-tk.asked:
	case <-timer.C:
	case <-ctx.Done():
		// The client gave up before it was handed a task: so does the call.
		tk.cancel()
		<-tk.done
		return nil, ctx.Err()
	}
	fwd.task.Store(tk)    // progress becomes the task's status message
	fwd.target.Store(nil) // and has no request to go to any more
	g.keepTask(tk)
	tk.mu.Lock()
	defer tk.mu.Unlock()
	tk.returned = true
	if tk.status.Terminal() {
		// It ended as it was being handed over.
		tk.armExpiryLocked()
		g.opts.Audit.record(c, tk.res, tk.err, time.Now())
	}
	return createTaskResult{ResultType: "task", Task: tk.stateLocked(false)}, nil
}

// progressed words the server's progress as the status message of a
// working task, for the client polling tasks/get: the progress
// notifications went with the request the task replaced, and a client
// would otherwise see "working" and nothing more until the end.
func (tk *task) progressed(e runtime.Progress) {
	msg := strconv.FormatFloat(e.Progress, 'f', -1, 64)
	if e.Total > 0 {
		msg += "/" + strconv.FormatFloat(e.Total, 'f', -1, 64)
	}
	if e.Message != "" {
		msg += " " + e.Message
	}
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if tk.status == mcp.TaskWorking {
		tk.message, tk.updated = msg, time.Now()
	}
}

// finish records the runtime's answer. A state reached before (cancelled)
// is final.
func (tk *task) finish(res any, err error) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	tk.res, tk.err = res, err
	for _, a := range tk.pending {
		close(a.answer) // nobody will answer now
	}
	clear(tk.pending)
	if !tk.status.Terminal() {
		var rpc *jsonrpc.Error
		switch {
		case err == nil:
			tk.status, tk.message = mcp.TaskCompleted, ""
		case errors.Is(err, context.Canceled) || (errors.As(err, &rpc) && rpc.Code == CodeCancelled):
			tk.status, tk.message = mcp.TaskCancelled, err.Error()
		default:
			tk.status, tk.message = mcp.TaskFailed, err.Error()
		}
		tk.updated = time.Now()
	}
	if tk.returned {
		tk.armExpiryLocked()
		tk.g.opts.Audit.record(tk.c, res, err, time.Now())
	}
}

// armExpiryLocked forgets the task TaskTTL from now. Called with mu held.
func (tk *task) armExpiryLocked() {
	if tk.expiry != nil {
		return
	}
	ttl := tk.g.opts.TaskTTL
	if ttl <= 0 {
		ttl = DefaultTaskTTL
	}
	tk.expiry = time.AfterFunc(ttl, func() {
		tk.g.mu.Lock()
		delete(tk.g.tasks, tk.id)
		tk.g.mu.Unlock()
	})
}

// stateLocked is the task as tasks/get answers it; full adds the result
// or error of an ended task. Called with mu held.
func (tk *task) stateLocked(full bool) mcp.Task {
	ttl := int64(tk.g.ttl() / time.Millisecond)
	poll := int64(taskPollMs)
	st := mcp.Task{TaskID: tk.id, Status: tk.status, StatusMessage: tk.message, CreatedAt: tk.created.UTC().Format(time.RFC3339Nano),
		LastUpdatedAt: tk.updated.UTC().Format(time.RFC3339Nano), TTLMs: &ttl, PollIntervalMs: &poll}
	if tk.status == mcp.TaskInputRequired {
		st.InputRequests = map[string]mcp.InputRequest{}
		for k, a := range tk.pending {
			st.InputRequests[k] = a.req
		}
	}
	if !full {
		return st
	}
	switch tk.status {
	case mcp.TaskCompleted:
		if v, err := tk.g.modernResult(tk.res, false); err == nil {
			st.Result, _ = json.Marshal(v)
		}
	case mcp.TaskFailed:
		var rpc *jsonrpc.Error
		if !errors.As(tk.err, &rpc) {
			rpc = jsonrpc.NewError(jsonrpc.CodeInternalError, "%v", tk.err)
		}
		body := map[string]any{"code": rpc.Code, "message": rpc.Message}
		if len(rpc.Data) > 0 {
			body["data"] = json.RawMessage(rpc.Data)
		}
		st.Error, _ = json.Marshal(body)
	}
	return st
}

func (g *Gateway) ttl() time.Duration {
	if g.opts.TaskTTL > 0 {
		return g.opts.TaskTTL
	}
	return DefaultTaskTTL
}

// taskResponder puts a task's server questions to its client by way of
// the task: input_required with inputRequests, answered by tasks/update.
type taskResponder struct{ tk *task }

func (r *taskResponder) ask(ctx context.Context, _ string, method string, params map[string]any) (json.RawMessage, error) {
	tk := r.tk
	if tk.c.env == nil || !capable(tk.c.env.caps, method, params) {
		return nil, runtime.ErrNotAnswered
	}
	tk.mu.Lock()
	if tk.status.Terminal() {
		tk.mu.Unlock()
		return nil, runtime.ErrNotAnswered
	}
	tk.seq++
	a := &ask{key: "q" + strconv.Itoa(tk.seq), req: inputRequest(method, params), answer: make(chan json.RawMessage, 1)}
	tk.pending[a.key] = a
	tk.status, tk.updated = mcp.TaskInputRequired, time.Now()
	tk.mu.Unlock()
	select {
	case tk.asked <- struct{}{}:
	default:
	}
	select {
	case ans, ok := <-a.answer:
		if !ok {
			return nil, context.Canceled
		}
		return ans, nil
	case <-ctx.Done():
		tk.mu.Lock()
		delete(tk.pending, a.key)
		tk.mu.Unlock()
		return nil, ctx.Err()
	}
}

// taskMethod serves tasks/get, tasks/update and tasks/cancel.
func (g *Gateway) taskMethod(c *call) (any, error) {
	var p struct {
		TaskID    string                     `json:"taskId"`
		Responses map[string]json.RawMessage `json:"inputResponses"`
	}
	if err := json.Unmarshal(c.params, &p); err != nil || p.TaskID == "" {
		return nil, invalidParams("%s: params need a \"taskId\"", c.method)
	}
	tk, err := g.taskOf(c, p.TaskID)
	if err != nil {
		return nil, err
	}
	tk.mu.Lock()
	defer tk.mu.Unlock()
	switch c.method {
	case mcp.MethodTasksGet:
		return tk.stateLocked(true), nil
	case mcp.MethodTasksUpdate:
		for key, ans := range p.Responses {
			if a := tk.pending[key]; a != nil {
				delete(tk.pending, key)
				a.answer <- ans
			}
		}
		if len(tk.pending) == 0 && tk.status == mcp.TaskInputRequired {
			tk.status, tk.updated = mcp.TaskWorking, time.Now()
		}
	case mcp.MethodTasksCancel:
		if !tk.status.Terminal() {
			tk.status, tk.message, tk.updated = mcp.TaskCancelled, "cancelled by the client", time.Now()
			tk.cancel()
			if tk.returned {
				tk.armExpiryLocked()
			}
		}
	}
	return struct{}{}, nil
}

// keepTask makes tk findable by its id (taskOf) until its expiry drops
// it or the gateway closes (stopTasks).
func (g *Gateway) keepTask(tk *task) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.tasks == nil {
		g.tasks = map[string]*task{}
	}
	g.tasks[tk.id] = tk
}

// taskOf finds the task id of the client c comes from: to any other
// client it is unknown.
func (g *Gateway) taskOf(c *call, id string) (*task, error) {
	g.mu.Lock()
	tk := g.tasks[id]
	g.mu.Unlock()
	if tk == nil || tk.owner != c.cl.limitKey() {
		return nil, unknown(runtime.KindUnknownTask, "unknown task %q: it never existed, ended more than %s ago, belongs to another client, or mcpdeck restarted", id, g.ttl())
	}
	return tk, nil
}

// stopTasks ends the timers of the tasks kept, when the gateway closes.
func (g *Gateway) stopTasks() {
	g.mu.Lock()
	tasks := g.tasks
	g.tasks = nil
	g.mu.Unlock()
	for _, tk := range tasks {
		tk.mu.Lock()
		if tk.expiry != nil {
			tk.expiry.Stop()
		}
		tk.mu.Unlock()
		tk.cancel()
	}
}
