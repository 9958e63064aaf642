package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
	"mcpdeck/runtime/telemetry"
)

// inflight is the part of a session that knows the callers' requests in
// flight (those that went down the chain with forCaller; see
// chain_track.go): each with every id it used (MRTR rounds, task polls),
// so a cancel by any of them reaches the whole request; by progress
// token, so a progress notification reaches its request; the responder
// its caller gave, for the questions a legacy server asks meanwhile; and
// the tasks waiting for a notifications/tasks/status.
//
// Ownership: the request's own goroutine adds and removes its entry; the
// notification dispatcher (progress, task status), Cancel and the
// snapshot overlay (live) read them. mu guards the maps; an entry's
// changing fields are atomics, or guarded by mu where noted.
type inflight struct {
	mu     sync.Mutex
	calls  map[*activeCall]struct{}
	byID   map[uint64]*activeCall
	tokens map[string]*activeCall   // progress token → request
	wakes  map[string]chan struct{} // task id → the task following it (legacy tasks)
	// ended keeps the tokens of the requests that ended within
	// lateProgressWindow, so progress sent after the end still names its
	// request (Progress.Late); endedOrder is the same tokens oldest first,
	// so forgetting the expired ones costs only those, and at most
	// maxEndedTokens are kept (a bench ends thousands of calls a second).
	ended      map[string]endedCall
	endedOrder []string
}

// maxEndedTokens bounds what ended keeps: late progress that comes after
// this many later requests ended is shown by its token alone.
const maxEndedTokens = 1024

// lateProgressWindow is how long a request's progress token is still
// known after the request ended: a server reads a cancel late, or not at
// all (server-everything's long operation reports to its end), and its
// progress meanwhile is the late progress of that call, not of a token
// nobody knows.
const lateProgressWindow = time.Minute

// endedCall is what a progress token still says after its request ended.
type endedCall struct {
	tool string    // the request's tool, or its method
	how  string    // "cancelled" or "ended"
	at   time.Time // when it ended
}

// activeCall is one caller's request being driven down the chain.
type activeCall struct {
	method, tool string
	started      time.Time
	cancel       context.CancelCauseFunc
	token        string          // its progress token
	span         *telemetry.Span // nil when telemetry is off
	responder    CallResponder   // the caller's, from its ctx (WithResponder); may be nil
	hear         func(Progress)  // the caller's, from its ctx (WithProgress); may be nil

	first   atomic.Uint64 // the first round's id: the request's row
	current atomic.Uint64 // the current round's id, for progress events
	rounds  atomic.Int32  // round trips of the request itself
	task    atomic.Pointer[TaskInfo]
	polls   sync.Map // ids of task requests (tasks/get …): shown as the task's row, not their own
	// progress is the latest progress notification.
	progress atomic.Pointer[ProgressInfo]
	// extend pushes the running timeout back (progress proves life); the
	// round link or the task link sets it. Guarded by inflight.mu.
	extend func()
}

// add records a new request and gives it its progress token.
func (f *inflight) add(ac *activeCall, progressID uint64) {
	ac.token = "mcpdeck-" + strconv.FormatUint(progressID, 10)
	f.mu.Lock()
	if f.calls == nil {
		f.calls, f.byID, f.tokens = map[*activeCall]struct{}{}, map[uint64]*activeCall{}, map[string]*activeCall{}
	}
	f.calls[ac] = struct{}{}
	f.tokens[ac.token] = ac
	f.mu.Unlock()
}

// remove forgets a request that ended, cancelled or not, keeping its
// token for lateProgressWindow.
func (f *inflight) remove(ac *activeCall, cancelled bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.calls, ac)
	delete(f.tokens, ac.token)
	now := time.Now()
	for len(f.endedOrder) > 0 {
		oldest := f.endedOrder[0]
		if e, ok := f.ended[oldest]; ok && now.Sub(e.at) <= lateProgressWindow && len(f.endedOrder) < maxEndedTokens {
			break
		}
		delete(f.ended, oldest)
		f.endedOrder = f.endedOrder[1:]
	}
	if ac.token == "" {
		f.forgetID(ac)
		return
	}
	if f.ended == nil {
		f.ended = map[string]endedCall{}
	}
	e := endedCall{tool: ac.tool, how: "ended", at: now}
	if e.tool == "" {
		e.tool = ac.method
	}
	if cancelled {
		e.how = "cancelled"
	}
	f.ended[ac.token] = e
	f.endedOrder = append(f.endedOrder, ac.token)
	f.forgetID(ac)
}

// forgetID drops ac's round ids. f.mu is held.
func (f *inflight) forgetID(ac *activeCall) {
	for id, c := range f.byID {
		if c == ac {
			delete(f.byID, id)
		}
	}
}

// addID records one more id of the request; the first becomes its row.
func (f *inflight) addID(ac *activeCall, id uint64) {
	ac.first.CompareAndSwap(0, id)
	f.mu.Lock()
	if f.byID != nil {
		f.byID[id] = ac
	}
	f.mu.Unlock()
}

// addPoll records the id of one of the task's own requests.
func (f *inflight) addPoll(ac *activeCall, id uint64) {
	ac.polls.Store(id, true)
	f.addID(ac, id)
}

// setExtend sets what a progress notification for ac extends.
func (f *inflight) setExtend(ac *activeCall, extend func()) {
	f.mu.Lock()
	ac.extend = extend
	f.mu.Unlock()
}

// cancel cancels the request that used id, telling the server with
// reason; it reports whether there was one.
func (f *inflight) cancel(id uint64, reason string) bool {
	f.mu.Lock()
	ac := f.byID[id]
	f.mu.Unlock()
	if ac == nil {
		return false
	}
	ac.cancel(&userCancel{reason: reason})
	return true
}

// lookup returns the request that used id.
func (f *inflight) lookup(id uint64) *activeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.byID[id]
}

// byCurrent returns the requests by the id of their current round.
func (f *inflight) byCurrent() map[uint64]*activeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[uint64]*activeCall, len(f.calls))
	for ac := range f.calls {
		out[ac.current.Load()] = ac
	}
	return out
}

// tasks returns the requests following a task now.
func (f *inflight) tasks() []*activeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*activeCall
	for ac := range f.calls {
		if ac.task.Load() != nil {
			out = append(out, ac)
		}
	}
	return out
}

// progressed routes a progress notification to its request, records it
// there and extends the request's timeout; it fills in ev's request (its
// current round id and tool, or, for a request that ended within
// lateProgressWindow, its tool and how it ended) and returns the caller's
// progress hook (WithProgress), if any.
func (f *inflight) progressed(ev *Progress, p ProgressInfo) func(Progress) {
	f.mu.Lock()
	ac := f.tokens[ev.Token]
	var extend func()
	if ac != nil {
		extend = ac.extend
	} else if e, ok := f.ended[ev.Token]; ok && time.Since(e.at) <= lateProgressWindow {
		ev.Tool, ev.Late = e.tool, e.how
	}
	f.mu.Unlock()
	if ac == nil {
		return nil
	}
	ev.Tool = ac.tool
	if ev.Tool == "" {
		ev.Tool = ac.method
	}
	ac.progress.Store(&p)
	ac.span.Progress(p.Progress, p.Total, p.Message)
	if extend != nil {
		extend()
	}
	ev.RequestID = ac.current.Load()
	return ac.hear
}

// responder returns the responder every request in flight carries, or nil
// when there is none, or more than one.
func (f *inflight) responder() CallResponder {
	f.mu.Lock()
	defer f.mu.Unlock()
	var found CallResponder
	for ac := range f.calls {
		switch {
		case ac.responder == nil:
			return nil
		case found == nil:
			found = ac.responder
		case !sameResponder(found, ac.responder):
			return nil
		}
	}
	return found
}

func sameResponder(a, b CallResponder) bool {
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && ta.Comparable() && a == b
}

// watchTask returns a channel that hears of notifications/tasks/status
// for the task, so the next poll need not wait for the interval.
func (f *inflight) watchTask(id string) <-chan struct{} {
	ch := make(chan struct{}, 1)
	f.mu.Lock()
	if f.wakes == nil {
		f.wakes = map[string]chan struct{}{}
	}
	f.wakes[id] = ch
	f.mu.Unlock()
	return ch
}

func (f *inflight) unwatchTask(id string) {
	f.mu.Lock()
	delete(f.wakes, id)
	f.mu.Unlock()
}

// taskStatus wakes the task a notifications/tasks/status names.
func (f *inflight) taskStatus(params json.RawMessage) {
	var p mcp.TaskRef
	if json.Unmarshal(params, &p) != nil {
		return
	}
	f.mu.Lock()
	ch := f.wakes[p.TaskID]
	f.mu.Unlock()
	if ch != nil {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
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
