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

// taskFollower is the part of a session that follows the tasks its
// callers' requests created (the task link hands them over): polls,
// answers to a task's input requests, tasks/cancel, and the task's state
// for the Requests view, kept on the request's activeCall. It keeps no
// state of its own: a task's requests go down the chain, and a
// notifications/tasks/status wakes its follower through inflight.
type taskFollower struct{ s *session }

// legacyTasks reports whether the server accepts task-augmented tools/call
// (the 2025-11-25 tasks capability); the modern extension needs no opt-in.
func (s *session) legacyTasks() bool {
	return !s.modern() && s.init.Capabilities.LegacyTasks.ToolCalls()
}

// request sends one of a task's own requests (tasks/get and the like)
// down the chain, with timeout when not zero; its id joins the request's,
// so a cancel by it reaches the task, and it shows as the task's row.
func (tf *taskFollower) request(ctx context.Context, ac *activeCall, method, taskID string, extra map[string]any, timeout time.Duration) (json.RawMessage, error) {
	s := tf.s
	params := map[string]any{"taskId": taskID}
	for k, v := range extra {
		params[k] = v
	}
	raw, err := s.chain(ctx, &request{method: method, params: params, label: ac.tool, timeout: timeout,
		onID: func(id uint64) { s.inflight.addPoll(ac, id) }})
	if err != nil {
		return nil, fmt.Errorf("%s for task %s: %w", method, taskID, err)
	}
	return raw, nil
}

// publish records a task's state for the Requests view and tells
// subscribers when it changed.
func (tf *taskFollower) publish(ac *activeCall, info TaskInfo) {
	s := tf.s
	info.Updated = time.Now()
	old := ac.task.Swap(&info)
	if old != nil && old.Status == info.Status && old.Message == info.Message {
		return
	}
	s.c.bus.publish(TaskUpdated{EventHeader: EventHeader{Time: info.Updated, Server: s.name},
		RequestID: ac.first.Load(), Method: ac.method, Tool: ac.tool, Task: info})
}

// cancel tells the server to cancel a task the request no longer
// waits for (tasks/cancel; notifications/cancelled must not be used for a
// task), and returns the error the request ends with.
func (tf *taskFollower) cancel(ctx context.Context, ac *activeCall, taskID string) error {
	s := tf.s
	reason := cancelReason(ctx)
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.CallTimeout)
	defer cancel()
	_, err := tf.request(cctx, ac, mcp.MethodTasksCancel, taskID, nil, 0)
	if info := ac.task.Load(); info != nil {
		next := *info
		next.Status, next.Message = string(mcp.TaskCancelled), reason
		tf.publish(ac, next)
	}
	cause := context.Cause(ctx)
	ce := &jsonrpc.CancelledError{ID: ac.first.Load(), Method: ac.method, Reason: reason, Cause: cause, Timeout: errors.Is(cause, jsonrpc.ErrTimeout)}
	if err != nil {
		return fmt.Errorf("%w (tasks/cancel failed: %v)", ce, err)
	}
	return fmt.Errorf("%w; task %s was cancelled (tasks/cancel)", ce, taskID)
}

// followModern follows a task of the tasks extension to its terminal state:
// tasks/get every pollIntervalMs, answers to its input requests with
// tasks/update, tasks/cancel when the request is cancelled. It returns the
// task's result.
func (tf *taskFollower) followModern(ctx context.Context, r *request, raw json.RawMessage) (json.RawMessage, string, error) {
	s := tf.s
	ac := r.active
	t, err := mcp.DecodeTask(raw)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	ctx, stop := context.WithTimeoutCause(ctx, s.c.opts.MaxCallTime,
		fmt.Errorf("%w: task %s still running after the maximum of %s", jsonrpc.ErrTimeout, t.TaskID, s.c.opts.MaxCallTime))
	defer stop()
	answered := map[string]bool{}
	for {
		tf.publish(ac, TaskInfo{TaskID: t.TaskID, Status: string(t.Status), Message: t.StatusMessage, PollInterval: t.PollInterval()})
		switch t.Status {
		case mcp.TaskCompleted:
			if len(t.Result) == 0 {
				return nil, t.TaskID, fmt.Errorf("%w: task %s completed without a result", ErrProtocol, t.TaskID)
			}
			return t.Result, t.TaskID, nil
		case mcp.TaskFailed:
			return nil, t.TaskID, taskFailure(t.TaskID, t.StatusMessage, t.Error)
		case mcp.TaskCancelled:
			return nil, t.TaskID, &jsonrpc.CancelledError{ID: ac.first.Load(), Method: r.method, Reason: "the server cancelled task " + t.TaskID + suffixed(": ", t.StatusMessage)}
		case mcp.TaskInputRequired:
			if err := tf.answer(ctx, ac, t, answered); err != nil {
				if ctx.Err() != nil {
					return nil, t.TaskID, tf.cancel(ctx, ac, t.TaskID)
				}
				// Without the answer the task waits until its TTL: give
				// it up, and say so to the server.
				_ = tf.cancel(context.WithoutCancel(ctx), ac, t.TaskID)
				return nil, t.TaskID, err
			}
		}
		select {
		case <-ctx.Done():
			return nil, t.TaskID, tf.cancel(ctx, ac, t.TaskID)
		case <-time.After(t.PollInterval()):
		}
		raw, err := tf.request(ctx, ac, mcp.MethodTasksGet, t.TaskID, nil, s.cfg.CallTimeout)
		if err != nil {
			if ctx.Err() != nil {
				return nil, t.TaskID, tf.cancel(ctx, ac, t.TaskID)
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

// answer fulfils the input requests of an input_required task not
// answered yet and sends the answers with tasks/update.
func (tf *taskFollower) answer(ctx context.Context, ac *activeCall, t mcp.Task, answered map[string]bool) error {
	s := tf.s
	caps := s.declaredFor(ctx)
	responses := map[string]json.RawMessage{}
	for key, req := range t.InputRequests {
		if answered[key] {
			continue // keys are unique over a task's lifetime: this one is done
		}
		if !caps.Has(req.Method) {
			return fmt.Errorf("%w: %w: task %s asks for %s (%q), which mcpdeck did not declare", ErrProtocol, mcp.ErrBadInputRequired, t.TaskID, req.Method, key)
		}
		out, err := s.peer.fulfil(ctx, key, req)
		if err != nil {
			return fmt.Errorf("answering input request %q of task %s: %w", key, t.TaskID, err)
		}
		responses[key] = out
	}
	if len(responses) == 0 {
		return nil
	}
	if _, err := tf.request(ctx, ac, mcp.MethodTasksUpdate, t.TaskID, map[string]any{"inputResponses": responses}, s.cfg.CallTimeout); err != nil {
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

// followLegacy follows a 2025-11-25 task (a task-augmented tools/call): it
// polls tasks/get at the task's pollInterval; once the task needs input
// or ends, tasks/result (which blocks until the task ends, delivering the
// server's elicitation requests on the way, answered like any other) brings
// the result; a cancelled request sends tasks/cancel.
func (tf *taskFollower) followLegacy(ctx context.Context, r *request, raw json.RawMessage) (json.RawMessage, string, error) {
	s := tf.s
	ac := r.active
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
			raw, err := tf.request(ctx, ac, "tasks/result", id, nil, 0)
			result <- outcome{raw, err}
		}()
	}
	wake := s.inflight.watchTask(id)
	defer s.inflight.unwatchTask(id)
	for {
		tf.publish(ac, info)
		if info.Status == string(mcp.TaskInputRequired) || mcp.TaskStatus(info.Status).Terminal() {
			fetch()
		}
		select {
		case r := <-result:
			if r.err != nil && ctx.Err() != nil {
				return nil, id, tf.cancel(ctx, ac, id)
			}
			if r.err == nil {
				final := info
				final.Status = string(mcp.TaskCompleted)
				if info.Status == string(mcp.TaskFailed) {
					final.Status = info.Status
				}
				tf.publish(ac, final)
			}
			return r.raw, id, r.err
		case <-ctx.Done():
			if result != nil {
				<-result // its ctx is done too: it ends at once
			}
			return nil, id, tf.cancel(ctx, ac, id)
		case <-time.After(info.PollInterval):
		case <-wake:
		}
		raw, err := tf.request(ctx, ac, mcp.MethodTasksGet, id, nil, s.cfg.CallTimeout)
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
			return nil, id, &jsonrpc.CancelledError{ID: ac.first.Load(), Method: r.method, Reason: "the server cancelled task " + id + suffixed(": ", info.Message)}
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
