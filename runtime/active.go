package runtime

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"mcpdeck/jsonrpc"
)

// activeCalls are the requests a session is driving through session.call,
// each with every id it used (MRTR rounds, task polls), so a cancel by any
// of them reaches the whole request, and the Requests view can show a
// task between its polls. Safe for concurrent use.
type activeCalls struct {
	mu    sync.Mutex
	byID  map[uint64]*activeCall
	calls map[*activeCall]struct{}
}

// activeCall is one request being driven.
type activeCall struct {
	method, tool string
	started      time.Time
	cancel       context.CancelCauseFunc
	first        atomic.Uint64 // the first round's id: the request's row
	rounds       atomic.Int32  // round trips of the request itself
	task         atomic.Pointer[TaskInfo]
	polls        sync.Map // ids of task requests (tasks/get …): shown as the task's row, not their own
}

func (a *activeCalls) add(o callOpts, cancel context.CancelCauseFunc) *activeCall {
	ac := &activeCall{method: o.method, tool: o.tool, started: time.Now(), cancel: cancel}
	a.mu.Lock()
	if a.calls == nil {
		a.calls, a.byID = map[*activeCall]struct{}{}, map[uint64]*activeCall{}
	}
	a.calls[ac] = struct{}{}
	a.mu.Unlock()
	return ac
}

func (a *activeCalls) remove(ac *activeCall) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.calls, ac)
	for id, c := range a.byID {
		if c == ac {
			delete(a.byID, id)
		}
	}
}

// addID records one more id of the request; the first becomes its row.
func (ac *activeCall) addID(a *activeCalls, id uint64) {
	ac.first.CompareAndSwap(0, id)
	a.mu.Lock()
	if a.byID != nil {
		a.byID[id] = ac
	}
	a.mu.Unlock()
}

// addPoll records the id of one of the task's own requests.
func (ac *activeCall) addPoll(a *activeCalls, id uint64) {
	ac.polls.Store(id, true)
	ac.addID(a, id)
}

// cancel cancels the request that used id, telling the server with
// reason; it reports whether there was one.
func (a *activeCalls) cancel(id uint64, reason string) bool {
	a.mu.Lock()
	ac := a.byID[id]
	a.mu.Unlock()
	if ac == nil {
		return false
	}
	ac.cancel(&userCancel{reason: reason})
	return true
}

// lookup returns the request that used id.
func (a *activeCalls) lookup(id uint64) *activeCall {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.byID[id]
}

// tasks returns the requests following a task now.
func (a *activeCalls) tasks() []*activeCall {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []*activeCall
	for ac := range a.calls {
		if ac.task.Load() != nil {
			out = append(out, ac)
		}
	}
	return out
}

// userCancel is the cause of a request cancelled by a person (Cancel):
// its text is the reason the server is sent.
type userCancel struct{ reason string }

func (u *userCancel) Error() string { return u.reason }
func (u *userCancel) Unwrap() error { return jsonrpc.ErrCancelled }

// cancelReason is the reason to tell the server for a cancelled ctx.
func cancelReason(ctx context.Context) string {
	var u *userCancel
	if cause := context.Cause(ctx); errors.As(cause, &u) {
		return u.reason
	} else if cause != nil {
		return cause.Error()
	}
	return "cancelled"
}
