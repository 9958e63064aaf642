package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime/proc"
)

// loop is the controller goroutine's state. Only run (and what it calls)
// touches it: that is what serializes enable, disable, reload, toggles,
// reconnects and shutdown without locks.
type loop struct {
	c       *Controller
	cfg     *config.Config
	enabled bool
	servers map[string]*server
	gen     uint64 // publication counter
	nextAtt uint64 // attempt generation counter
	batch   *batch // connections whose capabilities are published together
	// pending are state events held until the publication that shows
	// them, so a subscriber reading Snapshot on an event sees it.
	pending []Event
}

// server is the loop's record of one configured server.
type server struct {
	cfg           config.Server
	on            bool // the server's own switch: config, then toggles
	state         State
	reason        string
	reconnectable bool
	lastErr       *ErrorInfo

	sess      *session
	att       *attempt
	published bool // its capabilities are in the current publication
	lists     lists
	leaks     []string // where configured secrets were found in the lists
	init      initResult
	fallback  string

	restarts   int
	attempts   int // consecutive automatic reconnect attempts
	retry      *time.Timer
	retryGen   uint64
	nextRetry  time.Time
	readySince time.Time
	waiters    []chan reply // replied when the current attempt ends

	// What the last closed session left behind, shown while failed.
	counters   Counters
	lastStderr []string
	lastStop   StopInfo
}

// attempt is one connection attempt running on its own goroutine. Its
// result fields are written before done is closed.
type attempt struct {
	gen    uint64
	cancel context.CancelFunc
	done   chan struct{}
	sess   *session
	lists  lists
	err    error
}

// batch holds back the capabilities of servers connecting together, so
// that they are published as one snapshot when the last one is done.
type batch struct {
	pending map[string]bool
	waiters []waiter
}

type waiter struct {
	ch   chan reply
	plan Plan
}

// Reports to the loop.
type (
	msgAttemptState struct {
		name  string
		att   *attempt
		state State
	}
	msgAttemptDone struct {
		name string
		att  *attempt
	}
	msgSessionClosed struct {
		session *session
		err     error
	}
	msgListChanged struct {
		session *session
		kind    string
	}
	msgListed struct {
		session *session
		kind    string
		lists   lists
		err     error
	}
	msgPing struct {
		session *session
		missed  int
	}
	msgRetry struct {
		name string
		gen  uint64
	}
)

func newLoop(c *Controller, cfg *config.Config) *loop {
	l := &loop{c: c, cfg: cfg, servers: map[string]*server{}}
	for _, sc := range cfg.Servers {
		l.servers[sc.Name] = &server{cfg: sc, on: sc.Enabled}
	}
	return l
}

func (l *loop) run() {
	for {
		select {
		case cmd := <-l.c.cmds:
			if l.apply(l.collect(cmd)) {
				close(l.c.loopDone)
				return
			}
		case m := <-l.c.internal:
			l.handle(m)
		}
	}
}

// collect takes cmd and every command already queued behind it.
func (l *loop) collect(first command) []command {
	cmds := []command{first}
	for {
		select {
		case cmd := <-l.c.cmds:
			cmds = append(cmds, cmd)
		default:
			return cmds
		}
	}
}

func (cmd command) key() string {
	switch cmd.kind {
	case cmdSetEnabled:
		return "enabled"
	case cmdReload:
		return "reload"
	case cmdServerEnabled:
		return "server:" + cmd.server
	case cmdReconnect:
		return "reconnect:" + cmd.server
	}
	return "shutdown"
}

// apply runs a burst of commands: a command with a later one of the same
// kind (and server) is superseded; shutdown supersedes everything. It
// reports whether the loop should exit.
func (l *loop) apply(cmds []command) (exit bool) {
	last := map[string]int{}
	shutdown := -1
	for i, cmd := range cmds {
		last[cmd.key()] = i
		if cmd.kind == cmdShutdown {
			shutdown = i
		}
	}
	for i, cmd := range cmds {
		if shutdown >= 0 && i != shutdown {
			cmd.reply <- reply{err: ErrShutdown}
			continue
		}
		if last[cmd.key()] != i {
			cmd.reply <- reply{err: ErrSuperseded}
			continue
		}
		switch cmd.kind {
		case cmdSetEnabled:
			l.setEnabled(cmd.on, cmd.reply)
		case cmdServerEnabled:
			l.setServer(cmd.server, cmd.on, cmd.reply)
		case cmdReconnect:
			l.reconnect(cmd.server, cmd.reply)
		case cmdReload:
			l.reload(cmd.cfg, cmd.reply)
		case cmdShutdown:
			l.abortBatch()
			l.enabled = false
			l.teardown(l.names(), StateStopped)
			l.publish()
			cmd.reply <- reply{}
			return true
		}
	}
	return false
}

func (l *loop) names() []string {
	names := make([]string, 0, len(l.servers))
	for n := range l.servers {
		names = append(names, n)
	}
	return names
}

func (l *loop) eligible(s *server) bool { return s.on && s.cfg.NeedsInput == "" }

func (l *loop) setEnabled(on bool, r chan reply) {
	if on == l.enabled {
		if on && l.batch != nil {
			l.batch.waiters = append(l.batch.waiters, waiter{ch: r})
			return
		}
		r <- reply{}
		return
	}
	if !on {
		l.abortBatch()
		l.enabled = false // the withdrawal publication already says MCP is off
		l.teardown(l.names(), StateStopped)
		l.publish()
		r <- reply{}
		return
	}
	l.enabled = true
	var start []string
	for name, s := range l.servers {
		if l.eligible(s) {
			start = append(start, name)
		}
	}
	l.startBatch(start, waiter{ch: r})
}

// startBatch starts servers together; w is replied when all are done.
func (l *loop) startBatch(names []string, w waiter) {
	if l.batch == nil {
		l.batch = &batch{pending: map[string]bool{}}
	}
	l.batch.waiters = append(l.batch.waiters, w)
	for _, name := range names {
		l.batch.pending[name] = true
		l.start(l.servers[name])
	}
	l.publish()
	l.maybeFinishBatch()
}

// abortBatch answers the waiters of a batch that a disable or shutdown
// overtook.
func (l *loop) abortBatch() {
	if l.batch == nil {
		return
	}
	for _, w := range l.batch.waiters {
		w.ch <- reply{err: ErrSuperseded}
	}
	l.batch = nil
}

func (l *loop) maybeFinishBatch() {
	if l.batch == nil || len(l.batch.pending) > 0 {
		return
	}
	b := l.batch
	l.batch = nil
	for _, s := range l.servers {
		if s.sess != nil && s.state.Live() {
			s.published = true
		}
	}
	l.publish()
	for _, w := range b.waiters {
		w.ch <- reply{plan: w.plan}
	}
}

func (l *loop) setServer(name string, on bool, r chan reply) {
	s, ok := l.servers[name]
	if !ok {
		r <- reply{err: fmt.Errorf("%w %q", ErrUnknownServer, name)}
		return
	}
	s.on = on
	switch {
	case !on:
		l.teardown([]string{name}, StateDisabled)
		l.publish()
		r <- reply{}
	case !l.enabled || s.sess != nil || s.att != nil:
		l.publish()
		r <- reply{}
	case s.cfg.NeedsInput != "":
		l.publish()
		r <- reply{err: fmt.Errorf("starting %q: %s", name, s.cfg.NeedsInput)}
	default:
		s.waiters = append(s.waiters, r)
		l.start(s)
		l.publish()
	}
}

func (l *loop) reconnect(name string, r chan reply) {
	s, ok := l.servers[name]
	switch {
	case !ok:
		r <- reply{err: fmt.Errorf("%w %q", ErrUnknownServer, name)}
		return
	case !l.enabled:
		r <- reply{err: fmt.Errorf("reconnecting %q: %w (turn MCP on first)", name, ErrNotEnabled)}
		return
	case !l.eligible(s):
		r <- reply{err: fmt.Errorf("reconnecting %q: the server is disabled; enable it first", name)}
		return
	}
	l.teardown([]string{name}, StateStopped)
	s.restarts++
	s.attempts = 0
	s.waiters = append(s.waiters, r)
	l.start(s)
	l.publish()
}

func (l *loop) reload(cfg *config.Config, r chan reply) {
	if !l.enabled {
		r <- reply{err: fmt.Errorf("reloading: %w (turn MCP on first, or restart mcpdeck)", ErrNotEnabled)}
		return
	}
	have := make([]config.Server, 0, len(l.servers))
	for _, s := range l.servers {
		have = append(have, s.cfg)
	}
	plan := Reconcile(cfg.Servers, have)
	l.teardown(append(append([]string(nil), plan.Remove...), plan.Restart...), StateStopped)
	for _, name := range plan.Remove {
		delete(l.servers, name)
	}
	l.cfg = cfg
	var start []string
	for _, sc := range cfg.Servers {
		s, ok := l.servers[sc.Name]
		if !ok {
			s = &server{on: sc.Enabled}
			l.servers[sc.Name] = s
		}
		changed := !sc.Equal(s.cfg)
		s.cfg = sc
		if changed {
			s.on = sc.Enabled
			if !l.eligible(s) && s.sess == nil && s.att == nil {
				l.setState(s, StateDisabled, "")
			}
		}
		if (changed || s.sess == nil && s.att == nil && s.state != StateFailed) && l.eligible(s) {
			start = append(start, sc.Name)
		}
	}
	l.startBatch(start, waiter{ch: r, plan: plan})
}

// start launches a connection attempt for s on its own goroutine.
func (l *loop) start(s *server) {
	l.cancelRetry(s)
	l.nextAtt++
	ctx, cancel := context.WithCancel(context.Background())
	att := &attempt{gen: l.nextAtt, cancel: cancel, done: make(chan struct{})}
	s.att = att
	s.reason = "" // LastError stays: the overview shows the last error even after recovery
	l.setState(s, StateStarting, "")
	name, cfg := s.cfg.Name, s.cfg
	go func() {
		sess, ls, err := l.c.connect(ctx, cfg, func(st State) {
			l.c.send(ctx, msgAttemptState{name: name, att: att, state: st})
		})
		att.sess, att.lists, att.err = sess, ls, err
		close(att.done)
		l.c.send(context.Background(), msgAttemptDone{name: name, att: att})
	}()
}

func (l *loop) cancelRetry(s *server) {
	if s.retry != nil {
		s.retry.Stop()
		s.retry = nil
	}
	s.retryGen++
	s.nextRetry = time.Time{}
}

// teardown stops the named servers: first their capabilities are
// withdrawn and that is published, then every attempt is cancelled and
// every transport and process closed, concurrently, waiting for each.
func (l *loop) teardown(names []string, final State) {
	var live []*server
	for _, name := range names {
		s := l.servers[name]
		if s == nil {
			continue
		}
		l.cancelRetry(s)
		if l.batch != nil && l.batch.pending[name] {
			delete(l.batch.pending, name)
		}
		if s.sess != nil || s.att != nil {
			live = append(live, s)
		}
		s.published = false
	}
	l.publish() // withdrawal first, so nothing calls into a closing transport
	for _, s := range live {
		l.setState(s, StateStopping, "")
	}
	l.publish()
	var wg sync.WaitGroup
	for _, s := range live {
		sess, att := s.sess, s.att
		wg.Go(func() {
			if att != nil {
				att.cancel()
				<-att.done
				if att.sess != nil {
					att.sess.close()
				}
			}
			if sess != nil {
				sess.close()
			}
		})
	}
	wg.Wait()
	for _, s := range live {
		if s.sess != nil {
			s.lastStop = stopInfo(s.sess.close()) // returns the recorded result
		}
	}
	for _, name := range names {
		s := l.servers[name]
		if s == nil {
			continue
		}
		if s.sess != nil {
			l.keepLeftovers(s, s.sess)
		}
		s.sess, s.att = nil, nil
		s.lists, s.leaks, s.init, s.fallback = lists{}, nil, initResult{}, ""
		if s.state != StateDisabled || final == StateDisabled {
			l.setState(s, final, "")
		}
		l.replyWaiters(s, ErrSuperseded)
	}
	l.maybeFinishBatch()
}

func (l *loop) replyWaiters(s *server, err error) {
	for _, w := range s.waiters {
		w <- reply{err: err}
	}
	s.waiters = nil
}

// keepLeftovers keeps a closing session's counters and stderr, so a failed
// server still shows what happened.
func (l *loop) keepLeftovers(s *server, sess *session) {
	var v ServerSnapshot
	sess.live(&v)
	s.counters.Notifications += v.Counters.Notifications
	s.counters.Calls += v.Counters.Calls
	s.counters.Errors += v.Counters.Errors
	s.counters.DroppedEvents += v.Counters.DroppedEvents
	s.counters.LateResponses += v.Counters.LateResponses
	s.counters.UnknownResponses += v.Counters.UnknownResponses
	s.counters.NoiseLines += v.Counters.NoiseLines
	s.lastStderr = v.Stderr
}

func (l *loop) setState(s *server, to State, reason string) {
	from := s.state
	s.state, s.reason = to, reason
	if from != to {
		l.pending = append(l.pending, StateChanged{EventHeader: EventHeader{Time: time.Now(), Server: s.cfg.Name}, From: from, To: to, Reason: reason})
	}
}

// handle applies one report.
func (l *loop) handle(m any) {
	switch m := m.(type) {
	case msgAttemptState:
		if s := l.servers[m.name]; s != nil && s.att == m.att {
			l.setState(s, m.state, "")
			l.publish()
		}
	case msgAttemptDone:
		s := l.servers[m.name]
		if s == nil || s.att != m.att {
			return // a teardown already dealt with it
		}
		l.attemptDone(s, m.att)
	case msgSessionClosed:
		if s := l.byName(m.session); s != nil {
			l.sessionClosed(s, m.err)
		}
	case msgListChanged:
		if l.byName(m.session) != nil {
			l.refetch(m.session)
		}
	case msgListed:
		if s := l.byName(m.session); s != nil && m.err == nil {
			m.lists, _ = s.sess.redact.lists(m.lists)
			switch m.kind {
			case "tools":
				s.lists.Tools = m.lists.Tools
			case "prompts":
				s.lists.Prompts = m.lists.Prompts
			case "resources":
				s.lists.Resources = m.lists.Resources
			}
			l.publish()
			l.c.bus.publish(ListChanged{EventHeader: EventHeader{Time: time.Now(), Server: s.cfg.Name}, Kind: m.kind})
		}
	case msgPing:
		if s := l.byName(m.session); s != nil {
			l.pinged(s, m.session, m.missed)
		}
	case msgRetry:
		s := l.servers[m.name]
		if s != nil && s.retryGen == m.gen && l.enabled && l.eligible(s) && s.sess == nil && s.att == nil {
			s.retry = nil
			s.restarts++
			l.start(s)
			l.publish()
		}
	}
}

// refetch relists, on its own goroutine, every kind the session announced
// as changed.
func (l *loop) refetch(sess *session) {
	for _, kind := range sess.takeChanged() {
		go func() {
			ls, err := sess.refetch(kind)
			l.c.send(sess.ctx, msgListed{session: sess, kind: kind, lists: ls, err: err})
		}()
	}
}

// byName finds the server whose current session is sess; reports from
// replaced sessions find none and are ignored.
func (l *loop) byName(sess *session) *server {
	if s := l.servers[sess.name]; s != nil && s.sess == sess {
		return s
	}
	return nil
}

func (l *loop) attemptDone(s *server, att *attempt) {
	s.att = nil
	if att.err != nil {
		l.fail(s, att.err)
		if l.batch != nil {
			delete(l.batch.pending, s.cfg.Name)
		}
		l.publish()
		l.replyWaiters(s, s.lastErr)
		l.maybeFinishBatch()
		return
	}
	sess := att.sess
	sess.fallbackMu.Lock()
	s.sess, s.init, s.fallback = sess, sess.init, sess.fallback
	sess.fallbackMu.Unlock()
	s.lists, s.leaks = sess.redact.lists(att.lists)
	s.readySince = time.Now()
	s.lastStderr = nil
	l.setState(s, StateReady, "")
	go sess.watch()
	l.refetch(sess) // lists announced as changed while connecting
	if s.cfg.PingInterval > 0 {
		go sess.pingLoop(s.cfg.PingInterval)
	}
	if l.batch != nil && l.batch.pending[s.cfg.Name] {
		delete(l.batch.pending, s.cfg.Name)
	} else {
		s.published = true
	}
	l.publish() // before replying: whoever waited reads this snapshot next
	l.replyWaiters(s, nil)
	l.maybeFinishBatch()
}

// healthyFor is how long a connection must stay up for its failure to
// reset the reconnect attempts. A variable so tests need not wait a minute.
var healthyFor = 60 * time.Second

// fail records a failure and schedules an automatic reconnect where the
// policy allows it.
func (l *loop) fail(s *server, err error) {
	info := errorInfo(s.cfg.Name, "", err)
	info.Message = newRedactor(s.cfg).str(info.Message) // error text may quote the server's env
	s.lastErr = info
	s.reconnectable = reconnectable(err)
	l.setState(s, StateFailed, info.Message)
	policy := s.cfg.AutoReconnect
	if !l.enabled || !s.reconnectable || !policy.Enabled || s.attempts >= policy.MaxAttempts {
		return
	}
	backoff := policy.InitialBackoff << s.attempts
	if backoff > policy.MaxBackoff || backoff <= 0 {
		backoff = policy.MaxBackoff
	}
	s.attempts++
	s.retryGen++
	gen, name := s.retryGen, s.cfg.Name
	s.nextRetry = time.Now().Add(backoff)
	s.retry = time.AfterFunc(backoff, func() { l.c.send(context.Background(), msgRetry{name: name, gen: gen}) })
}

// reconnectable reports whether trying again may help: transport failures
// yes; a missing command or an unusable protocol version no.
func reconnectable(err error) bool {
	return !errors.Is(err, proc.ErrNoCommand) && !errors.Is(err, proc.ErrNotFound) &&
		!errors.Is(err, proc.ErrNotExecutable) && !errors.Is(err, proc.ErrBadDir) &&
		!errors.Is(err, ErrUnsupportedVersion)
}

func (l *loop) sessionClosed(s *server, cause error) {
	sess := s.sess
	s.published = false
	l.publish() // withdraw before the transport goes
	s.lastStop = stopInfo(sess.close())
	l.keepLeftovers(s, sess)
	s.sess = nil
	if time.Since(s.readySince) >= healthyFor {
		s.attempts = 0 // a healthy run earns a fresh set of reconnect attempts
	}
	s.readySince = time.Time{}
	if cause == nil {
		cause = errors.New("connection closed")
	}
	l.fail(s, fmt.Errorf("connection closed: %w", cause))
	l.publish()
}

func (l *loop) pinged(s *server, sess *session, missed int) {
	switch {
	case missed == 0 && s.state == StateDegraded:
		l.setState(s, StateReady, "")
	case missed == 2:
		l.setState(s, StateDegraded, "2 pings missed")
	case missed >= 3:
		go sess.conn.CloseWithCause(fmt.Errorf("%d pings in a row went unanswered", missed))
		return
	default:
		return
	}
	l.publish()
}
