package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
)

// TaskInfo is the state of a task a request is following: a modern
// server's answer with resultType "task" (the tasks extension), or a
// 2025-11-25 server's answer to a task-augmented tools/call.
type TaskInfo struct {
	TaskID  string
	Status  string // working, input_required, completed, failed, cancelled
	Message string // the server's statusMessage
	// PollInterval is how often mcpdeck asks for the task's state.
	PollInterval time.Duration
	Legacy       bool // the 2025-11-25 augmentation (tasks/result), not the extension
	Updated      time.Time
}

// legacyTasks reports whether the server accepts task-augmented tools/call
// (the 2025-11-25 tasks capability); the modern extension needs no opt-in.
func (s *session) legacyTasks() bool {
	return !s.modern() && s.init.Capabilities.LegacyTasks.ToolCalls()
}

// taskRequest sends one of a task's own requests (tasks/get and the like)
// with the session's call timeout; its id joins the request's, so a
// cancel by it reaches the task, and it shows as the task's row.
func (s *session) taskRequest(ctx context.Context, ac *activeCall, method, taskID string, extra map[string]any, timeout time.Duration) (json.RawMessage, error) {
	params := map[string]any{"taskId": taskID}
	for k, v := range extra {
		params[k] = v
	}
	var cancel context.CancelFunc
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	raw, err := s.conn.Call(ctx, method, s.wire(params, "", nil), jsonrpc.WithLabel(ac.tool), jsonrpc.WithIDFunc(func(id uint64) {
		ac.addPoll(&s.active, id)
	}))
	if err != nil {
		return nil, fmt.Errorf("%s for task %s: %w", method, taskID, err)
	}
	return raw, nil
}

// publishTask records a task's state for the Requests view and tells
// subscribers when it changed.
func (s *session) publishTask(ac *activeCall, info TaskInfo) {
	info.Updated = time.Now()
	old := ac.task.Swap(&info)
	if old != nil && old.Status == info.Status && old.Message == info.Message {
		return
	}
	s.c.bus.publish(TaskUpdated{EventHeader: EventHeader{Time: info.Updated, Server: s.name},
		RequestID: ac.first.Load(), Method: ac.method, Tool: ac.tool, Task: info})
}

// cancelTask tells the server to cancel a task the request no longer
// waits for (tasks/cancel; notifications/cancelled must not be used for a
// task), and returns the error the request ends with.
func (s *session) cancelTask(ctx context.Context, ac *activeCall, taskID string) error {
	reason := cancelReason(ctx)
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.CallTimeout)
	defer cancel()
	_, err := s.taskRequest(cctx, ac, mcp.MethodTasksCancel, taskID, nil, 0)
	if info := ac.task.Load(); info != nil {
		next := *info
		next.Status, next.Message = string(mcp.TaskCancelled), reason
		s.publishTask(ac, next)
	}
	cause := context.Cause(ctx)
	ce := &jsonrpc.CancelledError{ID: ac.first.Load(), Method: ac.method, Reason: reason, Cause: cause, Timeout: errors.Is(cause, jsonrpc.ErrTimeout)}
	if err != nil {
		return fmt.Errorf("%w (tasks/cancel failed: %v)", ce, err)
	}
	return fmt.Errorf("%w; task %s was cancelled (tasks/cancel)", ce, taskID)
}

// modernTask follows a task of the tasks extension to its terminal state:
// tasks/get every pollIntervalMs, answers to its input requests with
// tasks/update, tasks/cancel when the request is cancelled. It returns the
// task's result.
func (s *session) modernTask(ctx context.Context, o callOpts, raw json.RawMessage, ac *activeCall) (json.RawMessage, string, error) {
	t, err := mcp.DecodeTask(raw)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	ctx, stop := context.WithTimeoutCause(ctx, s.c.opts.MaxCallTime,
		fmt.Errorf("%w: task %s still running after the maximum of %s", jsonrpc.ErrTimeout, t.TaskID, s.c.opts.MaxCallTime))
	defer stop()
	answered := map[string]bool{}
	for {
		s.publishTask(ac, TaskInfo{TaskID: t.TaskID, Status: string(t.Status), Message: t.StatusMessage, PollInterval: t.PollInterval()})
		switch t.Status {
		case mcp.TaskCompleted:
			if len(t.Result) == 0 {
				return nil, t.TaskID, fmt.Errorf("%w: task %s completed without a result", ErrProtocol, t.TaskID)
			}
			return t.Result, t.TaskID, nil
		case mcp.TaskFailed:
			return nil, t.TaskID, taskFailure(t.TaskID, t.StatusMessage, t.Error)
		case mcp.TaskCancelled:
			return nil, t.TaskID, &jsonrpc.CancelledError{ID: ac.first.Load(), Method: o.method, Reason: "the server cancelled task " + t.TaskID + suffixed(": ", t.StatusMessage)}
		case mcp.TaskInputRequired:
			if err := s.answerTask(ctx, ac, t, answered); err != nil {
				if ctx.Err() != nil {
					return nil, t.TaskID, s.cancelTask(ctx, ac, t.TaskID)
				}
				// Without the answer the task waits until its TTL: give
				// it up, and say so to the server.
				_ = s.cancelTask(context.WithoutCancel(ctx), ac, t.TaskID)
				return nil, t.TaskID, err
			}
		}
		select {
		case <-ctx.Done():
			return nil, t.TaskID, s.cancelTask(ctx, ac, t.TaskID)
		case <-time.After(t.PollInterval()):
		}
		raw, err := s.taskRequest(ctx, ac, mcp.MethodTasksGet, t.TaskID, nil, s.cfg.CallTimeout)
		if err != nil {
			if ctx.Err() != nil {
				return nil, t.TaskID, s.cancelTask(ctx, ac, t.TaskID)
			}
			return nil, t.TaskID, err
		}
		if tt, err := mcp.TypeOf(raw, false); err != nil || tt != mcp.Complete {
			return nil, t.TaskID, fmt.Errorf("%w: tasks/get answered resultType %q: %v", ErrProtocol, tt, err)
		}
		if t, err = mcp.DecodeTask(raw); err != nil {
			return nil, t.TaskID, fmt.Errorf("%w: %w", ErrProtocol, err)
		}
	}
}

// answerTask fulfils the input requests of an input_required task not
// answered yet and sends the answers with tasks/update.
func (s *session) answerTask(ctx context.Context, ac *activeCall, t mcp.Task, answered map[string]bool) error {
	caps := s.declared()
	responses := map[string]json.RawMessage{}
	for key, req := range t.InputRequests {
		if answered[key] {
			continue // keys are unique over a task's lifetime: this one is done
		}
		if !caps.Has(req.Method) {
			return fmt.Errorf("%w: %w: task %s asks for %s (%q), which mcpdeck did not declare", ErrProtocol, mcp.ErrBadInputRequired, t.TaskID, req.Method, key)
		}
		out, err := s.fulfil(ctx, key, req)
		if err != nil {
			return fmt.Errorf("answering input request %q of task %s: %w", key, t.TaskID, err)
		}
		responses[key] = out
	}
	if len(responses) == 0 {
		return nil
	}
	if _, err := s.taskRequest(ctx, ac, mcp.MethodTasksUpdate, t.TaskID, map[string]any{"inputResponses": responses}, s.cfg.CallTimeout); err != nil {
		return err
	}
	for key := range responses {
		answered[key] = true
	}
	return nil
}

// legacyTaskState is a task as the 2025-11-25 revision shapes it.
type legacyTaskState struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	PollInterval  *int64 `json:"pollInterval"`
}

// legacyCreateTaskResult is a 2025-11-25 server's answer to a
// task-augmented request that it runs as a task.
type legacyCreateTaskResult struct {
	Task *legacyTaskState `json:"task"`
}

// legacyTaskOf reads the task a response created, if it did.
func legacyTaskOf(raw json.RawMessage) (*legacyTaskState, bool) {
	var created legacyCreateTaskResult
	if json.Unmarshal(raw, &created) != nil || created.Task == nil {
		return nil, false
	}
	return created.Task, true
}

func (t legacyTaskState) info() (TaskInfo, error) {
	mt := mcp.Task{TaskID: t.TaskID, Status: mcp.TaskStatus(t.Status), PollIntervalMs: t.PollInterval}
	if t.TaskID == "" {
		return TaskInfo{}, fmt.Errorf("%w: the task has no taskId", ErrProtocol)
	}
	switch mt.Status {
	case mcp.TaskWorking, mcp.TaskInputRequired, mcp.TaskCompleted, mcp.TaskFailed, mcp.TaskCancelled:
	default:
		return TaskInfo{}, fmt.Errorf("%w: task %s: unknown status %q", ErrProtocol, t.TaskID, t.Status)
	}
	return TaskInfo{TaskID: t.TaskID, Status: t.Status, Message: t.StatusMessage, PollInterval: mt.PollInterval(), Legacy: true}, nil
}

// legacyTask follows a 2025-11-25 task (a task-augmented tools/call): it
// polls tasks/get at the task's pollInterval; once the task needs input
// or ends, tasks/result (which blocks until the task ends, delivering the
// server's elicitation requests on the way, answered like any other) brings
// the result; a cancelled request sends tasks/cancel.
func (s *session) legacyTask(ctx context.Context, o callOpts, raw json.RawMessage, ac *activeCall) (json.RawMessage, string, error) {
	created, ok := legacyTaskOf(raw)
	if !ok {
		return raw, "", nil // the server ran it as a normal request, as it may
	}
	info, err := created.info()
	if err != nil {
		return nil, "", err
	}
	id := info.TaskID
	ctx, stop := context.WithTimeoutCause(ctx, s.c.opts.MaxCallTime,
		fmt.Errorf("%w: task %s still running after the maximum of %s", jsonrpc.ErrTimeout, id, s.c.opts.MaxCallTime))
	defer stop()
	type outcome struct {
		raw json.RawMessage
		err error
	}
	var result chan outcome
	fetch := func() {
		if result != nil {
			return
		}
		result = make(chan outcome, 1)
		go func() {
			raw, err := s.taskRequest(ctx, ac, "tasks/result", id, nil, 0)
			result <- outcome{raw, err}
		}()
	}
	wake := s.watchTask(id)
	defer s.unwatchTask(id)
	for {
		s.publishTask(ac, info)
		if info.Status == string(mcp.TaskInputRequired) || mcp.TaskStatus(info.Status).Terminal() {
			fetch()
		}
		select {
		case r := <-result:
			if r.err != nil && ctx.Err() != nil {
				return nil, id, s.cancelTask(ctx, ac, id)
			}
			if r.err == nil {
				final := info
				final.Status = string(mcp.TaskCompleted)
				if info.Status == string(mcp.TaskFailed) {
					final.Status = info.Status
				}
				s.publishTask(ac, final)
			}
			return r.raw, id, r.err
		case <-ctx.Done():
			if result != nil {
				<-result // its ctx is done too: it ends at once
			}
			return nil, id, s.cancelTask(ctx, ac, id)
		case <-time.After(info.PollInterval):
		case <-wake:
		}
		raw, err := s.taskRequest(ctx, ac, mcp.MethodTasksGet, id, nil, s.cfg.CallTimeout)
		if err != nil {
			if ctx.Err() != nil {
				continue // the select above cancels the task
			}
			return nil, id, err
		}
		var st legacyTaskState
		if err := json.Unmarshal(raw, &st); err != nil {
			return nil, id, fmt.Errorf("%w: tasks/get: %v", ErrProtocol, err)
		}
		if info, err = st.info(); err != nil {
			return nil, id, err
		}
		if info.Status == string(mcp.TaskCancelled) && result == nil {
			return nil, id, &jsonrpc.CancelledError{ID: ac.first.Load(), Method: o.method, Reason: "the server cancelled task " + id + suffixed(": ", info.Message)}
		}
	}
}

// taskFailure turns a failed task's JSON-RPC error into the error the
// request ends with.
func taskFailure(id, message string, raw json.RawMessage) error {
	var e jsonrpc.ErrorObject
	if json.Unmarshal(raw, &e) == nil && (e.Code != 0 || e.Message != "") {
		return fmt.Errorf("task %s failed: %w", id, e.Err())
	}
	return fmt.Errorf("%w: task %s failed%s", ErrProtocol, id, suffixed(": ", message))
}

func suffixed(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}

// watchTask returns a channel that hears of notifications/tasks/status
// for the task, so the next poll need not wait for the interval.
func (s *session) watchTask(id string) <-chan struct{} {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	if s.taskWake == nil {
		s.taskWake = map[string]chan struct{}{}
	}
	s.taskWake[id] = ch
	s.mu.Unlock()
	return ch
}

func (s *session) unwatchTask(id string) {
	s.mu.Lock()
	delete(s.taskWake, id)
	s.mu.Unlock()
}

// taskStatus wakes the task a notifications/tasks/status names.
func (s *session) taskStatus(params json.RawMessage) {
	var p mcp.TaskRef
	if json.Unmarshal(params, &p) != nil {
		return
	}
	s.mu.Lock()
	ch := s.taskWake[p.TaskID]
	s.mu.Unlock()
	if ch != nil {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
