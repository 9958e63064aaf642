package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// Tasks through the gateway: a task-capable client's tools/call can run as
// a task it polls. The runtime follows the server's task (either era) as
// it always does; the gateway hosts a task of its own for the client, in
// the client's era, that mirrors the server's (status, message, poll
// interval) and ends with the call:
//
//   - a 2026-07-28 client that declares the tasks extension gets a task
//     answer (resultType "task") as soon as the server answers with one,
//     and polls tasks/get (input requests, then the result or the error
//     inline), answers input requests with tasks/update, cancels with
//     tasks/cancel;
//   - a 2025-11-25 client that augments its call (params.task) gets a
//     CreateTaskResult at once, and uses tasks/get, tasks/result (which
//     waits, a server's questions reaching the client on the way),
//     tasks/cancel and tasks/list.
//
// Task IDs are the gateway's own, unguessable (they are all a stateless
// client holds); a finished task is kept for its ttl, then forgotten.

// Defaults of a gateway task.
const (
	defaultTaskTTL   = 5 * time.Minute
	maxTaskTTL       = time.Hour
	defaultTaskPoll  = time.Second
	relatedTaskMeta  = "io.modelcontextprotocol/related-task"
	taskNotFoundHint = "it never existed, was forgotten after its ttl, or belongs to another client"
)

// gwTask is one client call running as a task.
type gwTask struct {
	id      string
	j       *job
	legacy  bool // the 2025-11-25 augmentation, not the extension
	created time.Time
	ttl     time.Duration
	done    chan struct{} // closed when the call has ended

	mu       sync.Mutex
	updated  time.Time
	upstream *runtime.TaskInfo // the server's task, once it has one
	status   mcp.TaskStatus    // set once the call ended
	message  string
	res      any // the call's result, as the client gets it
	err      error
	pending  map[string]*ask // a modern client's questions, by key
	order    []string        // pending's keys in the order asked
}

// taskState is a task as one answer shows it.
type taskState struct {
	status   mcp.TaskStatus
	message  string
	updated  time.Time
	poll     time.Duration
	inputs   map[string]mcp.InputRequest
	res      any
	err      error
	finished bool
}

// state reads the task: finished, waiting for the client's input, or as
// the server's task says (working until it says otherwise).
func (t *gwTask) state() taskState {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := taskState{status: mcp.TaskWorking, updated: t.updated, poll: defaultTaskPoll}
	if t.upstream != nil {
		s.status, s.message = mcp.TaskStatus(t.upstream.Status), t.upstream.Message
		if t.upstream.PollInterval > 0 {
			s.poll = t.upstream.PollInterval
		}
		if s.status.Terminal() {
			s.status = mcp.TaskWorking // the call has not ended yet: the result is on its way
		}
	}
	switch {
	case t.status != "":
		s.status, s.message, s.res, s.err, s.finished = t.status, t.message, t.res, t.err, true
	case len(t.pending) > 0:
		s.status, s.inputs = mcp.TaskInputRequired, map[string]mcp.InputRequest{}
		for k, a := range t.pending {
			s.inputs[k] = a.req
		}
		if s.message == "" {
			s.message = "waiting for the client's input"
		}
	case s.status == mcp.TaskInputRequired:
		s.status = mcp.TaskWorking // the server waits for mcpdeck, which is asking
	}
	return s
}

// mirror takes the server's task state.
func (t *gwTask) mirror(info runtime.TaskInfo) {
	t.mu.Lock()
	t.upstream, t.updated = &info, time.Now()
	t.mu.Unlock()
}

// follow runs while the call does: it takes the server's questions (a
// modern client answers them with tasks/update) and the call's end.
func (t *gwTask) follow(g *Gateway) {
	j := t.j
	for {
		select {
		case a := <-j.asks:
			t.mu.Lock()
			if t.pending == nil {
				t.pending = map[string]*ask{}
			}
			t.pending[a.key] = a
			t.order = append(t.order, a.key)
			t.updated = time.Now()
			t.mu.Unlock()
		case r := <-j.result:
			j.end()
			t.finish(r, j.ctx.Err() != nil)
			time.AfterFunc(t.ttl, func() { g.forgetTask(t) })
			return
		}
	}
}

// finish records the call's end.
func (t *gwTask) finish(r jobResult, cancelled bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.updated = time.Now()
	t.res, t.err = r.res, r.err
	switch {
	case r.err == nil:
		t.status = mcp.TaskCompleted
	case cancelled:
		t.status, t.message = mcp.TaskCancelled, "cancelled"
	default:
		t.status, t.message = mcp.TaskFailed, r.err.Error()
	}
	t.pending, t.order = nil, nil // their asks ended with the call
}

// answer delivers a modern client's tasks/update: each response to the
// question of its key.
func (t *gwTask) answer(responses map[string]json.RawMessage) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for key := range responses {
		if t.pending[key] == nil {
			return invalidParams("tasks/update: task %s asks for no input %q now (pending: %v)", t.id, key, t.order)
		}
	}
	for key, raw := range responses {
		t.pending[key].answer <- raw
		delete(t.pending, key)
		t.order = slices.DeleteFunc(t.order, func(k string) bool { return k == key })
	}
	t.updated = time.Now()
	return nil
}

// becomeTask turns a job whose call the server runs as a task into a
// task of the client's: the client's request is answered with the task
// now, and the call goes on.
func (g *Gateway) becomeTask(j *job, legacy bool, ttl time.Duration) *gwTask {
	now := time.Now()
	if ttl <= 0 {
		ttl = defaultTaskTTL
	}
	t := &gwTask{id: "task-" + newState(), j: j, legacy: legacy, created: now, updated: now, ttl: min(ttl, maxTaskTTL), done: make(chan struct{})}
	j.mu.Lock()
	j.task, j.current = t, nil
	j.mu.Unlock()
	j.fwd.target.Store(nil)
	g.mu.Lock()
	if g.tasks == nil {
		g.tasks = map[string]*gwTask{}
	}
	g.tasks[t.id] = t
	g.mu.Unlock()
	j.cl.mu.Lock()
	j.cl.tasks = append(j.cl.tasks, t)
	j.cl.mu.Unlock()
	g.wg.Go(func() {
		defer close(t.done)
		t.follow(g)
	})
	return t
}

// forgetTask drops a finished task whose ttl ran out.
func (g *Gateway) forgetTask(t *gwTask) {
	g.mu.Lock()
	if g.tasks[t.id] == t {
		delete(g.tasks, t.id)
	}
	g.mu.Unlock()
	cl := t.j.cl
	cl.mu.Lock()
	cl.tasks = slices.DeleteFunc(cl.tasks, func(x *gwTask) bool { return x == t })
	cl.mu.Unlock()
}

// taskOf finds the task a tasks/* request names.
func (g *Gateway) taskOf(c *call) (*gwTask, error) {
	var p mcp.TaskRef
	if err := json.Unmarshal(c.params, &p); err != nil || p.TaskID == "" {
		return nil, invalidParams("%s: params need a \"taskId\"", c.method)
	}
	g.mu.Lock()
	t := g.tasks[p.TaskID]
	g.mu.Unlock()
	if t == nil {
		return nil, invalidParams("%s: no task %q: %s", c.method, p.TaskID, taskNotFoundHint)
	}
	return t, nil
}

// legacyTaskRequested reports a 2025-11-25 task-augmented tools/call.
func legacyTaskRequested(c *call) (bool, time.Duration) {
	if c.env != nil || c.method != "tools/call" || len(c.p.Task) == 0 || string(c.p.Task) == "null" {
		return false, 0
	}
	var p struct {
		TTL *int64 `json:"ttl"`
	}
	_ = json.Unmarshal(c.p.Task, &p)
	if p.TTL != nil && *p.TTL > 0 {
		return true, time.Duration(*p.TTL) * time.Millisecond
	}
	return true, 0
}

// startLegacyTask answers a task-augmented tools/call with a task at
// once and runs the call behind it.
func (g *Gateway) startLegacyTask(c *call, tg *target, release func(), ttl time.Duration) (any, error) {
	j := g.newJob(c, tg)
	t := g.becomeTask(j, true, ttl)
	g.runJob(j, tg, release)
	return legacyCreateTask(t), nil
}

// legacyTask is a task as a 2025-11-25 client reads it.
func legacyTask(t *gwTask) map[string]any {
	s := t.state()
	m := map[string]any{"taskId": t.id, "status": s.status, "createdAt": t.created.UTC().Format(time.RFC3339Nano),
		"lastUpdatedAt": s.updated.UTC().Format(time.RFC3339Nano), "ttl": t.ttl.Milliseconds(), "pollInterval": s.poll.Milliseconds()}
	if s.message != "" {
		m["statusMessage"] = s.message
	}
	return m
}

func legacyCreateTask(t *gwTask) map[string]any { return map[string]any{"task": legacyTask(t)} }

// modernTask is a task as a 2026-07-28 client reads it: with its input
// requests, its result or its error inline.
func (g *Gateway) modernTask(t *gwTask) (mcp.Task, error) {
	s := t.state()
	ttl, poll := t.ttl.Milliseconds(), s.poll.Milliseconds()
	out := mcp.Task{TaskID: t.id, Status: s.status, StatusMessage: s.message, CreatedAt: t.created.UTC().Format(time.RFC3339Nano),
		LastUpdatedAt: s.updated.UTC().Format(time.RFC3339Nano), TTLMs: &ttl, PollIntervalMs: &poll, InputRequests: s.inputs}
	switch {
	case s.status == mcp.TaskCompleted:
		res, err := g.modernResult(s.res, false)
		if err != nil {
			return out, err
		}
		if out.Result, err = json.Marshal(res); err != nil {
			return out, err
		}
	case s.status == mcp.TaskFailed:
		var rpc *jsonrpc.Error
		if !errors.As(s.err, &rpc) {
			rpc = jsonrpc.NewError(jsonrpc.CodeInternalError, "%v", s.err)
		}
		out.Error, _ = json.Marshal(map[string]any{"code": rpc.Code, "message": rpc.Message, "data": rpc.Data})
	}
	return out, nil
}

// tasksMethod serves tasks/get, tasks/result, tasks/cancel, tasks/list
// (2025-11-25) and tasks/update (the 2026-07-28 extension).
func (g *Gateway) tasksMethod(ctx context.Context, c *call) (any, error) {
	modern := c.env != nil
	if c.method == "tasks/list" {
		c.cl.mu.Lock()
		tasks := slices.Clone(c.cl.tasks)
		c.cl.mu.Unlock()
		out := make([]map[string]any, 0, len(tasks))
		for _, t := range tasks {
			out = append(out, legacyTask(t))
		}
		return map[string]any{"tasks": out}, nil
	}
	t, err := g.taskOf(c)
	if err != nil {
		return nil, err
	}
	c.resolved(t.j.server, t.j.name)
	switch c.method {
	case mcp.MethodTasksCancel:
		if !t.state().finished {
			t.j.cancel() // the runtime cancels the server's task (tasks/cancel)
			select {
			case <-t.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if modern {
			return map[string]any{}, nil
		}
		return legacyTask(t), nil
	case mcp.MethodTasksUpdate:
		var p struct {
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
		}
		if err := json.Unmarshal(c.params, &p); err != nil {
			return nil, invalidParams("tasks/update: %v", err)
		}
		return map[string]any{}, t.answer(p.InputResponses)
	case "tasks/result":
		select {
		case <-t.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		s := t.state()
		if s.err != nil {
			return nil, s.err
		}
		return withRelatedTask(s.res, t.id)
	}
	if modern {
		return g.modernTask(t)
	}
	return legacyTask(t), nil
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

// taskUpdated passes a server's task state to the job of the call it
// belongs to.
func (g *Gateway) taskUpdated(e runtime.TaskUpdated) {
	g.mu.Lock()
	f := g.forwards[fwdKey{e.Server, e.RequestID}]
	g.mu.Unlock()
	if f != nil && f.onTask != nil {
		f.onTask(e.Task)
	}
}

// tasksOn returns the client's unfinished tasks on server whose calls can
// ask it for input (modern ones).
func (cl *client) tasksOn(server string) []*gwTask {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	var out []*gwTask
	for _, t := range cl.tasks {
		if !t.legacy && t.j.server == server && t.j.ctx.Err() == nil {
			select {
			case <-t.done:
			default:
				out = append(out, t)
			}
		}
	}
	return out
}

// taskAnswer is a modern answer that is a task (resultType "task").
type taskAnswer struct{ mcp.Task }

// wire is the answer with resultType and the gateway's _meta.
func (a taskAnswer) wire(meta json.RawMessage) (any, error) {
	raw, err := json.Marshal(a.Task)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	fields["resultType"] = json.RawMessage(`"task"`)
	fields["_meta"] = meta
	return fields, nil
}
