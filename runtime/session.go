package runtime

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
	"mcpdeck/runtime/proc"
)

// session is one live connection to one server, composed of parts that
// each own one concern and, where goroutines share it, its own lock. A
// part that acts (rather than only holds state) has its methods on its own
// type, with a way back to the session (bind):
//
//	the connection  conn, proc, the handshake's outcome  connect.go, era*.go, remote.go
//	env             the modern request envelope          era.go (mu)
//	chain           every request it sends               chain*.go
//	inflight        the callers' requests in flight      inflight.go (mu)
//	peer            the server's questions to mcpdeck    session_peer.go (no state)
//	tasks           the tasks callers' requests follow   tasks.go (no state)
//	health          the health probe                     session_health.go (mu)
//	lists           listing, refetches, tools' headers   lists.go, cache.go (mu, sync.Map)
//	listen, router  the modern listen stream             listen.go (mu)
//	intake          what arrives besides answers         session_intake.go (atomics, noise.mu)
//	life            the goroutines it owns, and closing  session.go (mu)
//
// The controller owns the session's lifetime: it opens it (connect), hands
// it to the loop, and closes it.
type session struct {
	c      *Controller
	name   string
	cfg    config.Server
	redact *redactor
	gen    uint64 // the controller's generation for this connection; set before any goroutine starts

	// The connection. conn and proc are set by openTransport; the rest by
	// the handshake, before the session is handed to the loop, read-only
	// after (the era reason gains a note when remembering the era fails,
	// still before).
	conn        *jsonrpc.Conn
	proc        *proc.Process // nil for remote servers
	started     time.Time
	remote      bool // Streamable HTTP or SSE, not stdio
	init        initResult
	era         mcp.Era
	eraReason   string              // why this era, in words
	eraDecision EraDecision         // how the era was decided
	decided     *negotiated         // remote: the era the HTTP probe decided, before the handshake
	discovered  *mcp.DiscoverResult // modern: what server/discover said
	fromMemory  bool                // the handshake started from a remembered era
	fresh       bool                // the era memory is left out: a remembered era just failed
	// sessionID is the HTTP transport's MCP-Session-Id ("" for none), for
	// the spans' mcp.session.id; nil for stdio.
	sessionID func() string
	// lateProbe is the server/discover probe of a session that is legacy
	// for now (initialize answered first); a modern answer to it before
	// the session is ready still wins. Only the connection attempt uses it.
	lateProbe *pendingCall
	// fallback says how the transport was chosen when it was not the
	// declared one; the HTTP stream's goroutine sets it during initialize.
	fallback atomic.Pointer[string]

	env      envelopeState // the modern era's request envelope
	chain    sender        // the request chain (chain.go), built with the connection
	inflight inflight      // the callers' requests in flight
	peer     peer          // the server's requests to us
	tasks    taskFollower  // the tasks callers' requests follow
	health   health        // the health probe
	lists    listState     // list changes waiting for a refetch, and the tools' headers
	listen   listenState   // the listen stream (modern)
	router   mcp.Router    // modern: notifications by subscriptionId
	intake   intake        // what came from the server besides answers

	ctx    context.Context // ends when the session closes: stops pings and refetches
	cancel context.CancelFunc
	life   lifetime
	// activated is set by the loop when the session became ready; the stop
	// it starts later reads it. Only the loop touches it.
	activated bool
}

// initResult is what initialize (or, for a modern server, discovery) told
// us, and which era that was.
type initResult struct {
	mcp.InitializeResult
	era         mcp.Era
	eraReason   string
	eraDecision EraDecision
}

// lifetime is the part of a session that owns its goroutines (the watcher,
// pings, refetches, the listen loop, drops): spawn starts one unless the
// session is closing, and close waits for them. mu orders spawn against
// close.
type lifetime struct {
	mu        sync.Mutex
	closed    bool
	routines  sync.WaitGroup
	closeOnce sync.Once
	stopped   proc.StopResult
}

// bind gives each part that acts for the session its way back to it.
func (s *session) bind() {
	s.peer.s, s.tasks.s, s.health.s, s.lists.s, s.listen.s, s.intake.s = s, s, s, s, s, s
}

// close tears the session down: the JSON-RPC connection (outstanding
// requests are rejected with "closed by the client") and the process,
// waiting until both are gone. Idempotent.
func (s *session) close() proc.StopResult {
	s.life.closeOnce.Do(func() {
		s.life.mu.Lock()
		s.life.closed = true
		s.life.mu.Unlock()
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
			s.life.stopped = s.proc.Stop()
			for i, l := range s.life.stopped.Leftovers { // a child's arguments may carry a configured secret
				s.life.stopped.Leftovers[i].Command = s.redact.str(l.Command)
			}
		}
		<-closed
		s.life.routines.Wait()
	})
	return s.life.stopped
}

// spawn runs f on a goroutine the session owns, unless it is closing; it
// reports whether f was started.
func (s *session) spawn(f func()) bool {
	s.life.mu.Lock()
	defer s.life.mu.Unlock()
	if s.life.closed {
		return false
	}
	s.life.routines.Go(f)
	return true
}

// activate starts what a ready session runs: the watcher that reports the
// connection's end, health checks, and a refetch of lists announced as
// changed while it was still listing.
func (s *session) activate(ping time.Duration) {
	s.activated = true
	s.spawn(s.watch)
	if ping > 0 {
		s.spawn(func() { s.health.loop(ping) })
	}
	s.lists.refetchChanged()
	s.spawn(s.restoreWishes)
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

// live returns the parts of the server's snapshot that change without a
// publication: outstanding requests, pings, counters, stderr.
func (s *session) live(v *ServerSnapshot) {
	out := s.conn.Outstanding()
	byID := s.inflight.byCurrent()
	v.Ping = s.health.stats()
	for _, o := range out {
		if o.Method == mcp.MethodListen {
			// The listen stream is the session's standing subscription, not
			// a request anyone waits on: it is v.Listen, never "outstanding".
			continue
		}
		ri := RequestInfo{ID: o.ID, Server: s.name, Method: o.Method, Tool: o.Label, Started: o.Start}
		if ac := s.inflight.lookup(o.ID); ac != nil {
			if _, poll := ac.polls.Load(o.ID); poll {
				continue // shown as its task's row below
			}
			ri.FirstID, ri.Round = ac.first.Load(), int(ac.rounds.Load())
		}
		if ac := byID[o.ID]; ac != nil {
			ri.Progress = ac.progress.Load()
		}
		v.Outstanding = append(v.Outstanding, ri)
	}
	for _, ac := range s.inflight.tasks() {
		first := ac.first.Load()
		ri := RequestInfo{ID: first, FirstID: first, Round: int(ac.rounds.Load()), Server: s.name, Method: ac.method, Tool: ac.tool, Started: ac.started, Task: ac.task.Load()}
		if ac := byID[first]; ac != nil {
			ri.Progress = ac.progress.Load()
		}
		v.Outstanding = append(v.Outstanding, ri)
	}
	v.Listen = s.listen.snapshot()
	st := s.conn.Stats()
	v.Counters.Notifications += s.intake.notifications.Load()
	v.Counters.Calls += s.intake.completed.Load()
	v.Counters.Errors += s.intake.errs.Load()
	v.Counters.DroppedEvents += st.DroppedNotifications
	v.Counters.LateResponses += st.LateResponses
	v.Counters.UnknownResponses += st.UnknownResponses
	v.Counters.NoiseLines += st.NoiseLines
	if s.proc != nil {
		v.PID = s.proc.Pid()
		v.Stderr = s.proc.StderrTail()
	}
}
