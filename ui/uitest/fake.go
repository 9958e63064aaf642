// Package uitest provides a fake mcpdeck runtime for UI tests and demos: it
// implements the ui.Runtime interface in memory, publishes events the way
// the real controller does (a lossy channel per subscriber, snapshots
// announced by runtime.Published) and records every control call so a test
// can wait for it.
package uitest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/check"
)

// ErrNoCall is returned by the default CallFunc for a tool it does not know.
var ErrNoCall = errors.New("uitest: no such tool")

// Runtime is an in-memory runtime. The zero value is not usable: use New.
type Runtime struct {
	// CallFunc answers Call; nil echoes the arguments back as text. It runs
	// on the caller's goroutine, so it may block on ctx.
	CallFunc func(ctx context.Context, req runtime.CallRequest) (*runtime.Result, error)
	// ReloadPlan is what Reload returns when MCP is on.
	ReloadPlan runtime.Plan
	// HoldShutdown, when set, makes Shutdown wait for it to close (or for
	// its context to end), as a slow teardown would.
	HoldShutdown chan struct{}
	// CheckItems are what Check decides, in order; nil means the
	// CheckFixture items.
	CheckItems []check.Item
	// CheckErr, when set, is what Check returns after its items.
	CheckErr error
	// HoldCheck, when set, makes Check wait for it to close (or for its
	// context to end) after deciding HoldCheckAt items, as a slow step
	// would.
	HoldCheck   chan struct{}
	HoldCheckAt int
	// Contents are what ReadResource answers, by URI (a raw
	// resources/read result); a URI mapped to nil is not found.
	Contents map[string]json.RawMessage
	// PromptFunc answers GetPrompt; nil quotes the arguments back.
	PromptFunc func(name string, args map[string]string) (json.RawMessage, error)
	// Completions are the values Complete offers (those starting with
	// what was typed).
	Completions []string
	// HistoryDropped is the dropped count History reports.
	HistoryDropped uint64
	// Configured is the configuration Configure was given last.
	Configured *config.Config

	// mu guards everything below: the UI calls from its command goroutines
	// while tests emit from theirs.
	mu       sync.Mutex
	snap     *runtime.Snapshot
	on       map[string]runtime.State // the state each server reaches when enabled
	subs     map[*subscription]struct{}
	elicitor runtime.Elicitor
	sampler  runtime.Sampler
	// lastID numbers requests per server from 1, as the runtime numbers
	// them per connection: two servers each have a request 1.
	lastID   map[string]uint64
	shutdown bool
	dropped  uint64
	reads    map[string]int
	history  []runtime.CallRecord

	actions chan string
}

type subscription struct {
	ch     chan runtime.Event
	closed bool
}

// New returns a fake runtime publishing snap. States records the state each
// server reaches when MCP is switched on (default ready).
func New(snap *runtime.Snapshot) *Runtime {
	r := &Runtime{
		snap:        snap,
		on:          map[string]runtime.State{},
		subs:        map[*subscription]struct{}{},
		lastID:      map[string]uint64{},
		reads:       map[string]int{},
		Contents:    EverythingContents(),
		Completions: Names,
		actions:     make(chan string, 1024),
	}
	return r
}

// SetOnState says which state server name reaches when MCP is switched on.
func (r *Runtime) SetOnState(name string, st runtime.State) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on[name] = st
}

// Actions reports every control call ("enable", "disable", "server off
// NAME", "reconnect NAME", "reload", "call SERVER TOOL ARGS", "cancel ID",
// "shutdown", "elicitor", "check NAME", "check NAME done"), in order. It
// is buffered and never blocks the caller; a test that needs one waits on
// it with a deadline.
func (r *Runtime) Actions() <-chan string { return r.actions }

func (r *Runtime) record(format string, args ...any) {
	select {
	case r.actions <- fmt.Sprintf(format, args...):
	default:
	}
}

// Snapshot returns the current snapshot.
func (r *Runtime) Snapshot() *runtime.Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.snap
}

// Subscribe adds a lossy subscriber: when its buffer is full new events
// are dropped and counted, as a slow UI would see them.
func (r *Runtime) Subscribe(opts runtime.SubscribeOptions) (<-chan runtime.Event, func()) {
	n := opts.Buffer
	if n <= 0 {
		n = 4096
	}
	s := &subscription{ch: make(chan runtime.Event, n)}
	r.mu.Lock()
	r.subs[s] = struct{}{}
	r.mu.Unlock()
	return s.ch, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if !s.closed {
			s.closed = true
			delete(r.subs, s)
			close(s.ch)
		}
	}
}

// Emit publishes events to every subscriber.
func (r *Runtime) Emit(events ...runtime.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.emitLocked(events...)
}

func (r *Runtime) emitLocked(events ...runtime.Event) {
	for _, e := range events {
		for s := range r.subs {
			select {
			case s.ch <- e:
			default:
				r.dropped++
			}
		}
	}
}

// Publish replaces the snapshot with a modified copy and announces it.
func (r *Runtime) Publish(change func(*runtime.Snapshot)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.publishLocked(change)
}

func (r *Runtime) publishLocked(change func(*runtime.Snapshot)) {
	next := *r.snap
	next.Servers = slices.Clone(r.snap.Servers)
	next.Tools = slices.Clone(r.snap.Tools)
	if change != nil {
		change(&next)
	}
	next.Generation++
	next.DroppedEvents = r.dropped
	r.snap = &next
	r.emitLocked(runtime.Published{EventHeader: runtime.EventHeader{Time: next.At}, Generation: next.Generation, Enabled: next.Enabled})
}

// liveServerLocked replaces the snapshot with a copy in which change has
// been applied to the server called name, without announcing it: the
// runtime's live part (outstanding requests, counters) changes so, and the
// UI reads it on its next clock tick.
func (r *Runtime) liveServerLocked(name string, change func(srv *runtime.ServerSnapshot)) {
	next := *r.snap
	next.Servers = slices.Clone(r.snap.Servers)
	for i := range next.Servers {
		if next.Servers[i].Name == name {
			change(&next.Servers[i])
		}
	}
	r.snap = &next
}

// startRequestLocked numbers a request to server, emits RequestStarted and
// lists the request among the server's outstanding ones in the snapshot,
// as the runtime does: the UI reads the snapshot on its clock tick and
// drops a request it learned from an event that a later snapshot no longer
// lists.
func (r *Runtime) startRequestLocked(server, method, tool string) (uint64, time.Time) {
	r.lastID[server]++
	id := r.lastID[server]
	now := r.snap.At
	r.emitLocked(runtime.RequestStarted{EventHeader: runtime.EventHeader{Time: now, Server: server}, ID: id, Method: method, Tool: tool})
	r.liveServerLocked(server, func(srv *runtime.ServerSnapshot) {
		srv.Outstanding = append(slices.Clone(srv.Outstanding), runtime.RequestInfo{ID: id, Server: server, Method: method, Tool: tool, Started: now})
	})
	return id, now
}

// forgetRequestLocked takes request id off its server's outstanding
// requests.
func (r *Runtime) forgetRequestLocked(server string, id uint64) {
	r.liveServerLocked(server, func(srv *runtime.ServerSnapshot) {
		srv.Outstanding = slices.DeleteFunc(slices.Clone(srv.Outstanding), func(o runtime.RequestInfo) bool { return o.ID == id })
	})
}

// publishServerLocked publishes a snapshot in which change has been
// applied to the server called name.
func (r *Runtime) publishServerLocked(name string, change func(s *runtime.Snapshot, srv *runtime.ServerSnapshot)) {
	r.publishLocked(func(s *runtime.Snapshot) {
		for i := range s.Servers {
			if s.Servers[i].Name == name {
				change(s, &s.Servers[i])
			}
		}
	})
}

// SetEnabled switches MCP on (every enabled server reaches its SetOnState
// state, ready by default) or off (every server disabled, tools withdrawn).
func (r *Runtime) SetEnabled(_ context.Context, on bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.shutdown {
		return runtime.ErrShutdown
	}
	if on {
		r.record("enable")
	} else {
		r.record("disable")
	}
	r.publishLocked(func(s *runtime.Snapshot) {
		s.Enabled = on
		s.Tools = nil
		for i := range s.Servers {
			srv := &s.Servers[i]
			to := runtime.StateDisabled
			if on && srv.Enabled {
				to = runtime.StateReady
				if st, ok := r.on[srv.Name]; ok {
					to = st
				}
			}
			srv.State = to
			if !to.Live() {
				srv.Outstanding = nil
			} else {
				s.Tools = append(s.Tools, srv.Tools...)
			}
		}
		slices.SortFunc(s.Tools, func(a, b runtime.Tool) int { return cmpString(a.Name, b.Name) })
	})
	return nil
}

// SetServerEnabled flips one server's switch.
func (r *Runtime) SetServerEnabled(_ context.Context, name string, on bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record("server %s %s", onOff(on), name)
	if _, ok := r.snap.Server(name); !ok {
		return fmt.Errorf("switching %q: %w", name, runtime.ErrUnknownServer)
	}
	r.publishServerLocked(name, func(s *runtime.Snapshot, srv *runtime.ServerSnapshot) {
		srv.Enabled = on
		switch {
		case !on:
			srv.State = runtime.StateDisabled
		case s.Enabled:
			srv.State = runtime.StateReady
		}
	})
	return nil
}

// Reconnect marks the server ready again and counts a restart.
func (r *Runtime) Reconnect(_ context.Context, name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record("reconnect %s", name)
	if !r.snap.Enabled {
		return fmt.Errorf("reconnecting %q: %w", name, runtime.ErrNotEnabled)
	}
	if srv, ok := r.snap.Server(name); ok && !srv.Enabled {
		// As the runtime: a server that is off cannot start by a reconnect.
		return &runtime.TransitionError{Server: name, From: srv.State, To: runtime.StateStarting}
	}
	r.publishServerLocked(name, func(_ *runtime.Snapshot, srv *runtime.ServerSnapshot) {
		srv.State = runtime.StateReady
		srv.Restarts++
		srv.LastError = nil
		srv.Reason = ""
	})
	return nil
}

// Reload returns ReloadPlan, or runtime.ErrNotEnabled when MCP is off.
func (r *Runtime) Reload(_ context.Context, cfg *config.Config) (runtime.Plan, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record("reload")
	if !r.snap.Enabled {
		return runtime.Plan{}, fmt.Errorf("reloading: %w", runtime.ErrNotEnabled)
	}
	return r.ReloadPlan, nil
}

// Call registers an outstanding request, emits RequestStarted, runs
// CallFunc and emits RequestFinished; the snapshot lists the request while
// CallFunc runs.
func (r *Runtime) Call(ctx context.Context, req runtime.CallRequest) (*runtime.Result, error) {
	r.mu.Lock()
	r.record("call %s %s %s", req.Server, req.Tool, string(req.Arguments))
	id, now := r.startRequestLocked(req.Server, "tools/call", req.Tool)
	fn := r.CallFunc
	r.mu.Unlock()
	if req.OnStarted != nil {
		req.OnStarted(id)
	}
	var res *runtime.Result
	var err error
	if fn != nil {
		res, err = fn(ctx, req)
	} else {
		res = &runtime.Result{Content: []runtime.Content{{Type: "text", Text: "echo: " + string(req.Arguments)}}}
	}
	if res != nil {
		res.RequestID = id
	}
	r.addHistory(req, id, res, err)
	r.mu.Lock()
	r.forgetRequestLocked(req.Server, id)
	r.mu.Unlock()
	fin := runtime.RequestFinished{EventHeader: runtime.EventHeader{Time: now, Server: req.Server}, ID: id, Method: "tools/call", Tool: req.Tool}
	if err != nil {
		fin.Err = err.Error()
	} else if res != nil {
		fin.IsError = res.IsError
	}
	r.Emit(fin)
	return res, err
}

// Cancel records the cancellation and emits RequestCancelled.
func (r *Runtime) Cancel(server string, id uint64, reason string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record("cancel %d", id)
	r.forgetRequestLocked(server, id) // gone at once, as the runtime's is, whenever CallFunc returns
	r.emitLocked(runtime.RequestCancelled{EventHeader: runtime.EventHeader{Time: r.snap.At, Server: server}, ID: id, Reason: reason})
	return true
}

// SetElicitor installs the UI's elicitor.
func (r *Runtime) SetElicitor(e runtime.Elicitor) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.elicitor = e
	r.record("elicitor")
}

// Elicit asks the installed elicitor, as a server's elicitation/create
// would; it blocks until the UI answers or ctx ends.
func (r *Runtime) Elicit(ctx context.Context, req runtime.ElicitRequest) (runtime.ElicitResponse, error) {
	r.mu.Lock()
	e := r.elicitor
	r.mu.Unlock()
	if e == nil {
		return runtime.ElicitResponse{Action: "decline"}, nil
	}
	return e.Elicit(ctx, req)
}

// SetSampler installs the UI's sampler.
func (r *Runtime) SetSampler(s runtime.Sampler) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sampler = s
}

// Sample asks the installed sampler, as a server's sampling/createMessage
// would; it blocks until the UI answers or ctx ends.
func (r *Runtime) Sample(ctx context.Context, req runtime.SampleRequest) (runtime.SampleResponse, error) {
	r.mu.Lock()
	s := r.sampler
	r.mu.Unlock()
	if s == nil {
		return runtime.SampleResponse{Declined: true, Reason: "no sampler"}, nil
	}
	return s.Sample(ctx, req)
}

// Shutdown stops every server.
func (r *Runtime) Shutdown(ctx context.Context) error {
	r.record("shutdown")
	if r.HoldShutdown != nil {
		select {
		case <-r.HoldShutdown:
		case <-ctx.Done():
			return fmt.Errorf("stopping servers: %w", ctx.Err())
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.shutdown {
		return nil
	}
	r.shutdown = true
	r.publishLocked(func(s *runtime.Snapshot) {
		s.Enabled = false
		s.Tools = nil
		for i := range s.Servers {
			s.Servers[i].State = runtime.StateStopped
			s.Servers[i].Outstanding = nil
		}
	})
	return nil
}

// Dropped is how many events subscribers missed.
func (r *Runtime) Dropped() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// WaitAction waits until the runtime reports the action want, discarding
// others, or until the deadline.
func (r *Runtime) WaitAction(want string, within time.Duration) error {
	deadline := time.After(within)
	var seen []string
	for {
		select {
		case a := <-r.actions:
			if a == want {
				return nil
			}
			seen = append(seen, a)
		case <-deadline:
			return fmt.Errorf("waiting for %q: not reported within %s (saw %q)", want, within, seen)
		}
	}
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// raw is a JSON literal for fixtures.
func raw(s string) json.RawMessage { return json.RawMessage(s) }
