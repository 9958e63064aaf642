package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
)

// taskLink follows the task a caller's request created to its terminal
// state and returns the task's result in the answer's place: a modern
// server's answer with resultType task (the tasks extension, for the
// requests that may go on: mrtrMethods), or a 2025-11-25 server's answer
// to a task-augmented tools/call (request.task). The task's own requests
// (tasks/get, tasks/update, tasks/cancel, tasks/result) go down the chain
// from the top as the session's own, joined to the request's row. How a
// task is followed is in tasks.go.
func taskLink(ctx context.Context, s *session, r *request, next sender) (json.RawMessage, error) {
	body, err := next(ctx, r)
	if err != nil || r.next != string(mcp.TaskResult) || (s.modern() && !mrtrMethods[r.method]) {
		return body, err
	}
	ctx, stop := s.tasks.deadline(ctx, r)
	defer stop()
	if s.modern() {
		body, r.taskID, err = s.tasks.followModern(ctx, r, body)
	} else {
		body, r.taskID, err = s.tasks.followLegacy(ctx, r, body)
	}
	return body, err
}

// deadline bounds the task a call follows by the call's own timeout
// when one was asked for (CallRequest.Timeout, call --timeout): as for any
// call, the task is given up on (and cancelled with tasks/cancel) after
// that long without progress; a progress notification starts the clock
// again. Without one, each of the task's requests has the server's call
// timeout and the task as a whole MaxCallTime: tasks are for work that
// takes long.
func (tf *taskFollower) deadline(ctx context.Context, r *request) (context.Context, func()) {
	s := tf.s
	if r.total <= 0 {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	expired := fmt.Errorf("%w after %s without progress (the call's timeout, which covers its task)", jsonrpc.ErrTimeout, r.total)
	var mu sync.Mutex
	timer := time.AfterFunc(r.total, func() { cancel(expired) })
	s.inflight.setExtend(r.active, func() {
		mu.Lock()
		timer.Reset(r.total)
		mu.Unlock()
	})
	return ctx, func() {
		mu.Lock()
		timer.Stop()
		mu.Unlock()
		cancel(nil)
	}
}
