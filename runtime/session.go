package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
	"mcpdeck/runtime/proc"
	"mcpdeck/runtime/telemetry"
)

// session is one live connection to one server: the JSON-RPC connection,
// the process behind it (stdio), and what was learned at initialization.
// The controller owns the session's lifetime; its fields below mu are
// touched by the connection's goroutines (notifications, pings, calls).
type session struct {
	c       *Controller
	name    string
	cfg     config.Server
	redact  *redactor
	conn    *jsonrpc.Conn
	proc    *proc.Process // nil for remote servers
	started time.Time

	// fallback says how the transport was chosen when it was not the
	// declared one; the HTTP stream sets it during initialize.
	fallbackMu sync.Mutex
	fallback   string

	// Set once by the handshake (initialize, or discovery), read-only after
	// the session is handed to the loop.
	init          initResult
	rootsDeclared bool // the roots capability was declared to this server
	era           mcp.Era
	eraReason     string              // why this era, in words
	decided       *negotiated         // remote: the era the HTTP probe decided, before the handshake
	discovered    *mcp.DiscoverResult // modern: what server/discover said
	remote        bool                // Streamable HTTP or SSE, not stdio

	eraDecision EraDecision // how the era was decided
	fromMemory  bool        // the handshake started from a remembered era
	fresh       bool        // the era memory is left out: a remembered era just failed
	// lateProbe is the server/discover probe of a session that is legacy
	// for now (initialize answered first); a modern answer to it before
	// the session is ready still wins. Only the connection attempt uses it.
	lateProbe *pendingCall

	// The modern era's request envelope: env as built, enc as encoded for
	// the hot path. Both change when the log level or the roots do.
	envMu sync.Mutex
	env   mcp.Envelope
	enc   atomic.Pointer[mcp.Encoded]

	// headers are the x-mcp-header annotations of the listed tools, by
	// tool name (modern HTTP only), read by the stream for every tools/call.
	headers sync.Map // string → []mcphttp.ParamHeader

	// noise is what the server wrote on stdout that is not JSON-RPC: how
	// many lines, and the last (cut), for a startup that never answers.
	noise struct {
		mu    sync.Mutex
		lines int
		last  string
	}

	router mcp.Router // modern: notifications by subscriptionId
	listen listenState
	active activeCalls // calls in flight, for Cancel and the Requests view

	ctx    context.Context // ends when the session closes: stops pings and refetches
	cancel context.CancelFunc
	gen    uint64 // the controller's generation for this connection; set before any goroutine starts
	// activated is set by the loop when the session became ready; the stop
	// it starts later reads it.
	activated bool

	// goroutines the session starts (watch, pings, refetches, drops); close
	// waits for them. spawnMu orders spawn against close.
	spawnMu  sync.Mutex
	closed   bool
	routines sync.WaitGroup

	closeOnce sync.Once
	stopped   proc.StopResult

	notifications   atomic.Uint64
	completed, errs atomic.Uint64 // requests we made that completed, and those that failed

	mu    sync.Mutex
	calls map[string]*callState // progress token → call, for routing progress
	ping  pingTracker
	// changed holds list kinds announced by list_changed and not yet
	// refetched: one may arrive while the attempt is still listing, before
	// the loop knows the session.
	changed map[string]bool
	// taskWake wakes the task a notifications/tasks/status names.
	taskWake map[string]chan struct{}
}

// initResult is what initialize (or, for a modern server, discovery) told
// us, and which era that was.
type initResult struct {
	mcp.InitializeResult
	era         mcp.Era
	eraReason   string
	eraDecision EraDecision
}

// callState tracks one request for progress routing and its timeout.
type callState struct {
	id        atomic.Uint64 // the current round's id
	tool      string
	progress  atomic.Pointer[ProgressInfo]
	extend    func() // pushes the current round's timeout back, up to the maximum; set by round under s.mu
	span      *telemetry.Span
	responder CallResponder // the caller's, from its ctx (WithResponder); may be nil
}

// close tears the session down: the JSON-RPC connection (outstanding
// requests are rejected with "closed by the client") and the process,
// waiting until both are gone. Idempotent.
func (s *session) close() proc.StopResult {
	s.closeOnce.Do(func() {
		s.spawnMu.Lock()
		s.closed = true
		s.spawnMu.Unlock()
		s.cancel()
		// The connection's read loop ends only when the server's stdout
		// does, that is when the process is gone: close it alongside the
		// stop sequence, not before it.
		closed := make(chan struct{})
		go func() {
			_ = s.conn.Close()
			close(closed)
		}()
		if s.proc != nil {
			s.stopped = s.proc.Stop()
			for i, l := range s.stopped.Leftovers { // a child's arguments may carry a configured secret
				s.stopped.Leftovers[i].Command = s.redact.str(l.Command)
			}
		}
		<-closed
		s.routines.Wait()
	})
	return s.stopped
}

// spawn runs f on a goroutine the session owns, unless it is closing; it
// reports whether f was started.
func (s *session) spawn(f func()) bool {
	s.spawnMu.Lock()
	defer s.spawnMu.Unlock()
	if s.closed {
		return false
	}
	s.routines.Go(f)
	return true
}

// activate starts what a ready session runs: the watcher that reports the
// connection's end, health checks, and a refetch of lists announced as
// changed while it was still listing.
func (s *session) activate(ping time.Duration) {
	s.activated = true
	s.spawn(s.watch)
	if ping > 0 {
		s.spawn(func() { s.pingLoop(ping) })
	}
	s.refetchChanged()
	s.spawn(s.restoreWishes)
}

// refetchChanged relists, on the session's goroutines, every kind announced
// as changed.
func (s *session) refetchChanged() {
	for _, kind := range s.takeChanged() {
		s.spawn(func() {
			ls, err := s.refetch(kind)
			if err != nil {
				return // the session is closing, or the server failed to list: keep the old list
			}
			s.c.send(s.ctx, msgListed{name: s.name, gen: s.gen, kind: kind, lists: ls, leaks: leaks(ls)})
		})
	}
}

// watch waits for the connection to end on its own and reports it to the
// controller. A process that exits while something else (a grandchild)
// still holds its stdout open also ends the connection.
func (s *session) watch() {
	var procDone <-chan struct{}
	if s.proc != nil {
		procDone = s.proc.Done()
	}
	select {
	case <-s.conn.Done():
	case <-procDone:
		select {
		case <-s.conn.Done():
		case <-time.After(time.Second):
			_ = s.conn.CloseWithCause(fmt.Errorf("server process %v", s.proc.Exit()))
		}
	case <-s.ctx.Done():
		return // closed by the controller
	}
	s.c.send(s.ctx, msgSessionClosed{name: s.name, gen: s.gen, cause: s.conn.Err()})
}

// onNotification routes one notification; it runs on the connection's
// dispatcher goroutine, in arrival order. It first waits for a lagging
// lossless subscriber (watch): that wait is what slows the server's stream.
func (s *session) onNotification(n jsonrpc.Notification) {
	s.c.bus.waitRoom(s.ctx)
	s.notifications.Add(1)
	if s.modern() && s.router.Route(n) {
		return // a listen stream's: deliverListen has it
	}
	s.dispatch(n)
}

// deliverListen handles a notification of the listen stream (a list
// change, a resource update), in arrival order.
func (s *session) deliverListen(n jsonrpc.Notification) { s.dispatch(n) }

// dispatch turns a notification into runtime behaviour and events.
func (s *session) dispatch(n jsonrpc.Notification) {
	h := EventHeader{Time: n.Received, Server: s.name}
	switch n.Method {
	case mcp.NotificationMessage:
		var p mcp.LoggingMessageParams
		_ = json.Unmarshal(n.Params, &p)
		s.c.bus.publish(LogMessage{EventHeader: h, Level: string(p.Level), Logger: p.Logger, Data: p.Data})
	case mcp.NotificationProgress:
		s.c.bus.publish(s.routeProgress(h, n.Params))
	case mcp.NotificationToolsChanged, mcp.NotificationPromptsChanged, mcp.NotificationResourcesChanged:
		kind := strings.TrimSuffix(strings.TrimPrefix(n.Method, "notifications/"), "/list_changed")
		s.mu.Lock()
		s.changed[kind] = true
		s.mu.Unlock()
		s.c.send(s.ctx, msgListChanged{name: s.name, gen: s.gen})
	case mcp.NotificationResourceUpdated:
		var p mcp.URIParams
		_ = json.Unmarshal(n.Params, &p)
		s.c.bus.publish(ResourceUpdated{EventHeader: h, URI: p.URI})
	case mcp.NotificationCancelled:
		// On stdio a modern server ends a subscription this way.
		if id, ok := mcp.CancelledRequest(n.Params); ok && s.modern() {
			s.serverEndedListen(id)
		}
		s.c.bus.publish(NotificationReceived{EventHeader: h, Method: n.Method, Params: n.Params})
	case mcp.NotificationTasksStatus:
		s.taskStatus(n.Params)
		s.c.bus.publish(NotificationReceived{EventHeader: h, Method: n.Method, Params: n.Params})
	default:
		s.c.bus.publish(NotificationReceived{EventHeader: h, Method: n.Method, Params: n.Params})
	}
}

// routeProgress matches a progress notification to its call, records it and
// extends the call's timeout.
func (s *session) routeProgress(h EventHeader, params json.RawMessage) Progress {
	var p mcp.ProgressParams
	_ = json.Unmarshal(params, &p)
	token := p.TokenString()
	ev := Progress{EventHeader: h, Token: token, Progress: p.Progress, Total: p.Total, Message: p.Message}
	s.mu.Lock()
	cs := s.calls[token]
	var extend func()
	if cs != nil {
		extend = cs.extend
	}
	s.mu.Unlock()
	if cs != nil {
		ev.RequestID = cs.id.Load()
		cs.progress.Store(&ProgressInfo{Progress: p.Progress, Total: p.Total, Message: p.Message, At: h.Time})
		cs.span.Progress(p.Progress, p.Total, p.Message)
		if extend != nil {
			extend()
		}
	}
	return ev
}

func (s *session) onAnomaly(a jsonrpc.Anomaly) {
	h := EventHeader{Time: a.Time, Server: s.name}
	switch a.Kind {
	case jsonrpc.AnomalyNoise, jsonrpc.AnomalyInvalid:
		s.noise.mu.Lock()
		s.noise.lines++
		s.noise.last = cutRunes(string(a.Raw), 2*noiseQuote)
		s.noise.mu.Unlock()
		s.c.bus.publish(StdoutNoise{EventHeader: h, Line: string(a.Raw), Detail: a.Kind.String()})
	default:
		s.c.bus.publish(ProtocolAnomaly{EventHeader: h, Kind: a.Kind.String(), ID: a.ID, Detail: a.Detail})
	}
}

func (s *session) onTrace(f jsonrpc.Frame) {
	if f.Dir == jsonrpc.Out { // what comes in passed the intake
		f.Raw = s.redact.bytes(f.Raw)
	}
	s.c.bus.publish(TrafficFrame{EventHeader: EventHeader{Time: f.Time, Server: s.name}, Frame: f})
}

func (s *session) onStderr(line string) {
	s.c.bus.waitRoom(s.ctx) // as for notifications: a lossless subscriber slows the server's stderr
	s.c.bus.publish(StderrLine{EventHeader: EventHeader{Time: time.Now(), Server: s.name}, Line: line})
}

// handle answers the server's requests to us.
func (s *session) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if req.Method == mcp.MethodSample {
		return s.legacySample(ctx, req.Params) // sampling.go: one path for both eras
	}
	if result, handled, err := s.routeToCaller(ctx, req); handled {
		return result, err
	}
	switch req.Method {
	case mcp.MethodListRoots:
		offered := s.c.rootsFor(s.name, s.cfg.Roots)
		if len(offered) == 0 {
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "mcpdeck offers this server no roots")
		}
		return rootsResult(offered), nil
	case mcp.MethodElicit:
		e := s.c.elicitor()
		if e == nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "mcpdeck did not declare elicitation")
		}
		er, err := s.elicitRequest(req.Params)
		if err != nil {
			return nil, err
		}
		return e.Elicit(ctx, er)
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "mcpdeck does not handle %s", req.Method)
}

// rootsResult is the answer to roots/list.
func rootsResult(roots []Root) mcp.ListRootsResult {
	out := mcp.ListRootsResult{Roots: make([]mcp.Root, 0, len(roots))}
	for _, r := range roots {
		out.Roots = append(out.Roots, mcp.Root{URI: r.URI, Name: r.Name})
	}
	return out
}

// elicitRequest decodes a server's elicitation/create params.
func (s *session) elicitRequest(params json.RawMessage) (ElicitRequest, error) {
	var p mcp.ElicitRequest
	if err := json.Unmarshal(params, &p); err != nil {
		return ElicitRequest{}, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "elicitation/create: %v", err)
	}
	if p.Mode == "" {
		p.Mode = "form"
	}
	return ElicitRequest{Server: s.name, Mode: p.Mode, Message: p.Message, RequestedSchema: p.RequestedSchema, URL: p.URL, ElicitationID: p.ElicitationID}, nil
}

// healthMethod is the health probe of the session's era: ping, which the
// 2026-07-28 revision removed, or server/discover, the cheapest request a
// modern server must answer.
func (s *session) healthMethod() string {
	if s.modern() {
		return mcp.MethodDiscover
	}
	return mcp.MethodPing
}

// healthCheck sends one health probe.
func (s *session) healthCheck(ctx context.Context) error {
	_, err := s.conn.Call(ctx, s.healthMethod(), s.wire(nil, "", nil))
	return err
}

// pingLoop probes health every interval; it reports misses to the
// controller (2 → degraded, 3 → failed) and recoveries.
func (s *session) pingLoop(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		timeout := min(interval, 10*time.Second)
		ctx, cancel := context.WithTimeout(s.ctx, timeout)
		start := time.Now()
		err := s.healthCheck(ctx)
		cancel()
		if s.ctx.Err() != nil {
			return
		}
		var closed *jsonrpc.ClosedError
		if errors.As(err, &closed) {
			return // the watcher reports the closure
		}
		took := time.Since(start)
		s.c.opts.Telemetry.RecordPing(s.name, took, err == nil)
		s.mu.Lock()
		missed := s.ping.record(took, err == nil)
		s.mu.Unlock()
		ev := HealthChecked{EventHeader: EventHeader{Time: time.Now(), Server: s.name}, Method: s.healthMethod(), Latency: took, OK: err == nil, Missed: missed}
		if err != nil {
			ev.Err = err.Error()
		}
		s.c.bus.publish(ev)
		s.c.send(s.ctx, msgPing{name: s.name, gen: s.gen, missed: missed})
	}
}

// nearestRank is the index of the p-th percentile of n sorted values
// (nearest-rank method: the smallest value with at least p% at or below it).
func nearestRank(n, p int) int { return max((n*p+99)/100-1, 0) }

// pingTracker keeps latency statistics over the last pingWindow pings.
type pingTracker struct {
	recent []time.Duration // ring, oldest first once full
	next   int
	last   time.Duration
	ewma   time.Duration
	missed int
	lastAt time.Time
}

const pingWindow = 100

// record adds one ping and returns the consecutive misses.
func (p *pingTracker) record(d time.Duration, ok bool) int {
	p.lastAt = time.Now()
	if !ok {
		p.missed++
		return p.missed
	}
	p.missed = 0
	p.last = d
	if p.ewma == 0 {
		p.ewma = d
	} else {
		p.ewma = (p.ewma*4 + d) / 5
	}
	if len(p.recent) < pingWindow {
		p.recent = append(p.recent, d)
	} else {
		p.recent[p.next] = d
		p.next = (p.next + 1) % pingWindow
	}
	return 0
}

func (p *pingTracker) stats() PingStats {
	st := PingStats{Last: p.last, EWMA: p.ewma, Missed: p.missed, LastAt: p.lastAt}
	st.Recent = append(append([]time.Duration(nil), p.recent[p.next:]...), p.recent[:p.next]...)
	if n := len(st.Recent); n > 0 {
		sorted := append([]time.Duration(nil), st.Recent...)
		sortDurations(sorted)
		st.P50 = sorted[nearestRank(n, 50)]
		st.P95 = sorted[nearestRank(n, 95)]
	}
	return st
}

// live returns the parts of the server's snapshot that change without a
// publication: outstanding requests, pings, counters, stderr.
func (s *session) live(v *ServerSnapshot) {
	out := s.conn.Outstanding()
	s.mu.Lock()
	byID := map[uint64]*callState{}
	for _, cs := range s.calls {
		byID[cs.id.Load()] = cs
	}
	v.Ping = s.ping.stats()
	s.mu.Unlock()
	for _, o := range out {
		if o.Method == mcp.MethodListen {
			// The listen stream is the session's standing subscription, not
			// a request anyone waits on: it is v.Listen, never "outstanding".
			continue
		}
		ri := RequestInfo{ID: o.ID, Server: s.name, Method: o.Method, Tool: o.Label, Started: o.Start}
		if ac := s.active.lookup(o.ID); ac != nil {
			if _, poll := ac.polls.Load(o.ID); poll {
				continue // shown as its task's row below
			}
			ri.FirstID, ri.Round = ac.first.Load(), int(ac.rounds.Load())
		}
		if cs := byID[o.ID]; cs != nil {
			ri.Progress = cs.progress.Load()
		}
		v.Outstanding = append(v.Outstanding, ri)
	}
	for _, ac := range s.active.tasks() {
		first := ac.first.Load()
		ri := RequestInfo{ID: first, FirstID: first, Round: int(ac.rounds.Load()), Server: s.name, Method: ac.method, Tool: ac.tool, Started: ac.started, Task: ac.task.Load()}
		if cs := byID[first]; cs != nil {
			ri.Progress = cs.progress.Load()
		}
		v.Outstanding = append(v.Outstanding, ri)
	}
	v.Listen = s.listenInfo()
	st := s.conn.Stats()
	v.Counters.Notifications += s.notifications.Load()
	v.Counters.Calls += s.completed.Load()
	v.Counters.Errors += s.errs.Load()
	v.Counters.DroppedEvents += st.DroppedNotifications
	v.Counters.LateResponses += st.LateResponses
	v.Counters.UnknownResponses += st.UnknownResponses
	v.Counters.NoiseLines += st.NoiseLines
	if s.proc != nil {
		v.PID = s.proc.Pid()
		v.Stderr = s.proc.StderrTail()
	}
}

// takeChanged returns and clears the list kinds waiting for a refetch.
func (s *session) takeChanged() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var kinds []string
	for k := range s.changed {
		kinds = append(kinds, k)
	}
	clear(s.changed)
	return kinds
}
