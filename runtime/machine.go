package runtime

import (
	"errors"
	"fmt"
	"maps"
	"time"

	"mcpdeck/config"
)

// machine is the controller's state as plain values. Only step changes it,
// and step never blocks and performs no I/O: the slow work a change needs
// (start a connection, stop one, schedule a retry, reply to a caller,
// publish) leaves step as effects, which the loop runs off the owner
// goroutine. Their outcomes come back as inputs carrying the generation of
// the connection they concern, so a report about a connection the machine
// has already given up cannot change a newer one.
//
// The machine holds no handles: connections are known by generation; the
// loop keeps the sessions and processes behind them.
type machine struct {
	enabled bool
	cfg     *config.Config
	servers map[string]*srv
	nextGen uint64 // connection generations
	pubGen  uint64 // publication counter
	batch   *batch
	// stopWaits are replies owed once every connection they name is gone
	// (disable, per-server switch-off).
	stopWaits []*stopWait
	// shutdown is set once shutdown began: it is replied, and the loop
	// exits, when every connection is gone.
	shutdown chan reply
	// noRetry turns automatic reconnection off (Options.NoAutoReconnect).
	noRetry bool
	// tools are the operator's tool decisions (Options.Tools), applied to
	// every publication. A publication reads their current state, an
	// immutable value, and never waits for them; a change of decisions
	// reaches the machine as cmdRepublish.
	tools *ToolPolicy

	// The spawn queue (spawn.go): at most spawnLimit stdio attempts are
	// spawning (0: no bound); the rest wait in queue, each at most
	// queueTimeout.
	spawnLimit   int
	spawning     int
	queue        []queuedStart
	queueTimeout time.Duration

	// hold is set by the loop while it steps through a burst of reports:
	// a step then leaves its publication to flush, unless it replies to
	// someone (who must find the result published). One publication per
	// burst instead of one per report: with a thousand servers starting,
	// building every snapshot was most of the loop's time.
	hold bool

	// Per step.
	now     time.Time
	out     []effect
	replies []effect // sent after the step's last publication
	events  []Event  // state events, released with the next publication
	dirty   bool     // something visible changed since the last publication
	faults  []error  // refused transitions seen during the step
}

// srv is one configured server, in three parts: what the configuration
// says, where it is in its lifecycle, and the connection the machine knows
// of.
type srv struct {
	cfg    config.Server
	target string // cfg's command line or URL, redacted: what publications show
	on     bool   // the server's own switch: the configuration's, then toggles
	life   lifecycle
	conn   connState
}

// setConfig gives s its definition and the redacted target publications
// show. Redacting once here, not per publication, spares every snapshot a
// scan of the inherited environment for secrets.
func (s *srv) setConfig(c config.Server) { s.cfg, s.target = c, target(c.Redacted()) }

// lifecycle is a server's state and its history across connections.
type lifecycle struct {
	state         State
	reason        string
	reconnectable bool
	lastErr       *ErrorInfo // kept after recovery: the overview shows the last error

	restarts   int
	attempts   int // consecutive automatic reconnect attempts
	retryGen   uint64
	nextRetry  time.Time
	readySince time.Time

	waiters []chan reply // replied when the current attempt ends
	after   afterStop    // what happens once the connection being closed is gone
	left    leftovers    // what closed connections left behind
}

// afterStop says what to do when a closing connection is gone.
type afterStop struct {
	stop   bool  // a stop was asked for: end in final
	final  State // stopped or disabled
	start  bool  // start again (reconnect, restart, a start asked for meanwhile)
	remove bool  // forget the server (a reload removed it)
}

// leftovers are what closed connections leave behind, shown while the
// server has none: counters add up, stderr and the stop are the last ones.
type leftovers struct {
	counters Counters
	stderr   []string
	stop     StopInfo
}

// connState is the machine's knowledge of a server's connection.
type connState struct {
	gen     uint64 // the attempt or session in use; 0: none
	live    bool   // gen's attempt finished: it is a session
	closing uint64 // a connection being closed in the background; 0: none
	// closingLive says the closing connection was a session (its attempt
	// had finished), so the loop may read its live data meanwhile.
	closingLive bool
	published   bool // its capabilities are in the current publication
	queued      bool // gen waits for its turn to spawn: no attempt runs yet (spawn.go)
	spawning    bool // gen's attempt holds a turn to spawn
	startedAt   time.Time
	info        connInfo
}

// connInfo is what a connection attempt learned, valid while live.
type connInfo struct {
	init     initResult
	lists    lists
	leaks    []string // where configured secrets were found in the lists
	fallback string
	identity string // what its tool decisions are kept by (toolIdentity)
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

type stopWait struct {
	names map[string]bool
	ch    chan reply
}

// Effects: what the loop does for the machine.
type (
	effStart struct { // open a connection
		name string
		gen  uint64
		cfg  config.Server
	}
	effStop struct { // close the connection gen (cancel its attempt, stop its process) and report msgStopped
		name string
		gen  uint64
	}
	effActivate struct { // a session became ready: watch it, ping it, refetch what changed while listing
		name string
		gen  uint64
		ping time.Duration
	}
	effRefetch struct { // relist what a list_changed announced
		name string
		gen  uint64
	}
	effDrop struct { // close a live transport on purpose (missed health checks)
		name  string
		gen   uint64
		cause error
	}
	effRetry struct { // report msgRetry after a backoff
		name  string
		gen   uint64
		after time.Duration
	}
	effCancelRetry  struct{ name string }
	effQueueTimeout struct { // report msgQueueTimeout unless cancelled first
		name  string
		gen   uint64
		after time.Duration
	}
	effCancelQueueTimeout struct{ gen uint64 }
	effPublish            struct{ view view }
	effReply              struct {
		ch chan reply
		r  reply
	}
	effExit struct{}
)

type effect any

// Reports to the machine, each about one connection generation.
type (
	msgAttemptState struct {
		name  string
		gen   uint64
		state State
	}
	msgAttemptDone struct {
		name string
		gen  uint64
		info connInfo
		err  error
	}
	msgStopped struct {
		name string
		gen  uint64
		left leftovers
	}
	msgSessionClosed struct {
		name  string
		gen   uint64
		cause error
	}
	msgListChanged struct {
		name string
		gen  uint64
	}
	msgListed struct {
		name  string
		gen   uint64
		kind  string
		lists lists
		leaks []string
	}
	msgPing struct {
		name   string
		gen    uint64
		missed int
	}
	msgRetry struct {
		name string
		gen  uint64 // the retry generation
	}
	msgQueueTimeout struct {
		name string
		gen  uint64
	}
)

func newMachine(cfg *config.Config) *machine {
	m := &machine{cfg: cfg, servers: map[string]*srv{}}
	for _, sc := range cfg.Servers {
		s := &srv{on: sc.Enabled, life: lifecycle{state: initialState(sc)}}
		s.setConfig(sc)
		m.servers[sc.Name] = s
	}
	return m
}

func initialState(sc config.Server) State {
	if sc.Invalid != nil {
		return StateInvalid
	}
	return StateDisabled
}

// step applies one input: a burst of commands, or a report. It returns the
// effects to run, in order, and the refused transitions it met (none, when
// the machine is used as designed).
func (m *machine) step(now time.Time, in any) ([]effect, error) {
	m.now, m.out, m.replies, m.faults = now, nil, nil, nil
	switch in := in.(type) {
	case []command:
		m.commands(in)
	case msgAttemptState:
		m.attemptState(in)
	case msgAttemptDone:
		m.attemptDone(in)
	case msgStopped:
		m.stopped(in)
	case msgSessionClosed:
		m.sessionClosed(in)
	case msgListChanged:
		if s := m.liveServer(in.name, in.gen); s != nil {
			m.emit(effRefetch(in))
		}
	case msgListed:
		m.listed(in)
	case msgPing:
		m.pinged(in)
	case msgRetry:
		m.retry(in)
	case msgQueueTimeout:
		m.queueTimedOut(in)
	default:
		m.faults = append(m.faults, fmt.Errorf("machine: unknown input %T", in))
	}
	exiting := m.shutdown != nil && m.quiet()
	if m.dirty && (!m.hold || len(m.replies) > 0 || exiting) {
		m.publish()
	}
	out := append(m.out, m.replies...)
	if exiting {
		out = append(out, effReply{ch: m.shutdown, r: reply{}}, effExit{})
		m.shutdown = nil
	}
	return out, errors.Join(m.faults...)
}

// flush publishes what steps taken with hold changed.
func (m *machine) flush(now time.Time) []effect {
	m.now, m.out = now, nil
	if m.dirty {
		m.publish()
	}
	return m.out
}

func (m *machine) emit(e effect) { m.out = append(m.out, e) }

func (m *machine) reply(ch chan reply, r reply) {
	m.replies = append(m.replies, effReply{ch: ch, r: r})
}

// quiet reports whether no connection is open, starting or closing.
func (m *machine) quiet() bool {
	for _, s := range m.servers {
		if s.conn.gen != 0 || s.conn.closing != 0 {
			return false
		}
	}
	return true
}

// setState moves s to a new state if the lifecycle has that transition.
func (m *machine) setState(s *srv, to State, reason string) error {
	from := s.life.state
	if !CanMove(from, to) {
		err := &TransitionError{Server: s.cfg.Name, From: from, To: to}
		m.faults = append(m.faults, err)
		return err
	}
	s.life.state, s.life.reason = to, reason
	m.dirty = true
	if from != to {
		m.events = append(m.events, StateChanged{EventHeader: EventHeader{Time: m.now, Server: s.cfg.Name}, From: from, To: to, Reason: reason})
	}
	return nil
}

// eligible reports whether s may start now that MCP is on.
func eligible(s *srv) bool {
	return s.on && s.cfg.NeedsInput == "" && s.cfg.Invalid == nil && !s.cfg.Unapproved
}

// liveServer returns the server whose live session is gen.
func (m *machine) liveServer(name string, gen uint64) *srv {
	if s := m.servers[name]; s != nil && s.conn.live && s.conn.gen == gen {
		return s
	}
	return nil
}

// commands applies a burst: a command with a later one of the same kind
// (and server) is superseded; shutdown supersedes everything.
func (m *machine) commands(cmds []command) {
	if m.shutdown != nil {
		for _, cmd := range cmds {
			m.reply(cmd.reply, reply{err: ErrShutdown})
		}
		return
	}
	last := map[string]int{}
	shutdown := -1
	for i, cmd := range cmds {
		last[cmd.key()] = i
		if cmd.kind == cmdShutdown {
			shutdown = i
		}
	}
	for i, cmd := range cmds {
		switch {
		case shutdown >= 0 && i != shutdown:
			m.reply(cmd.reply, reply{err: ErrShutdown})
		case last[cmd.key()] != i:
			m.reply(cmd.reply, reply{err: ErrSuperseded})
		case cmd.kind == cmdSetEnabled:
			m.setEnabled(cmd.on, cmd.reply)
		case cmd.kind == cmdServerEnabled:
			m.setServer(cmd.server, cmd.on, cmd.reply)
		case cmd.kind == cmdReconnect:
			m.reconnect(cmd.server, cmd.reply)
		case cmd.kind == cmdReload:
			m.reload(cmd.cfg, cmd.reply)
		case cmd.kind == cmdConfigure:
			m.configure(cmd.cfg, cmd.reply)
		case cmd.kind == cmdRepublish:
			m.dirty = true
			m.reply(cmd.reply, reply{})
		case cmd.kind == cmdShutdown:
			m.abortBatch()
			m.enabled = false
			m.dirty = true
			m.stopServers(m.names(), StateStopped, nil)
			m.shutdown = cmd.reply
		}
	}
}

func (m *machine) names() []string {
	names := make([]string, 0, len(m.servers))
	for n := range m.servers {
		names = append(names, n)
	}
	return names
}

func (m *machine) setEnabled(on bool, r chan reply) {
	switch {
	case on && m.enabled && m.batch != nil:
		m.batch.waiters = append(m.batch.waiters, waiter{ch: r})
	case on && m.enabled:
		m.reply(r, reply{})
	case !on && !m.enabled:
		m.waitForClosing(m.names(), r) // a disable still in progress
	case !on:
		m.abortBatch()
		m.enabled = false // the withdrawal publication already says MCP is off
		m.dirty = true
		m.stopServers(m.names(), StateStopped, r)
	default:
		m.enabled = true
		m.dirty = true
		var start []string
		for name, s := range m.servers {
			if eligible(s) {
				start = append(start, name)
			}
		}
		m.startBatch(start, waiter{ch: r})
	}
}

// startBatch starts servers together; w is replied when all are done.
func (m *machine) startBatch(names []string, w waiter) {
	if m.batch == nil {
		m.batch = &batch{pending: map[string]bool{}}
	}
	m.batch.waiters = append(m.batch.waiters, w)
	for _, name := range names {
		m.batch.pending[name] = true
		m.start(m.servers[name])
	}
	m.maybeFinishBatch()
}

// abortBatch answers the waiters of a batch that a disable or shutdown
// overtook.
func (m *machine) abortBatch() {
	if m.batch == nil {
		return
	}
	for _, w := range m.batch.waiters {
		m.reply(w.ch, reply{err: ErrSuperseded})
	}
	m.batch = nil
}

func (m *machine) maybeFinishBatch() {
	if m.batch == nil || len(m.batch.pending) > 0 {
		return
	}
	b := m.batch
	m.batch = nil
	for _, s := range m.servers {
		if s.conn.live && s.life.state.Live() {
			s.conn.published = true
		}
	}
	m.publish() // the batch's capabilities, together
	for _, w := range b.waiters {
		m.reply(w.ch, reply{plan: w.plan})
	}
}

// start launches a connection attempt for s, or, while its previous
// connection is still closing, arranges for one once it is gone.
func (m *machine) start(s *srv) {
	m.cancelRetry(s)
	switch {
	case s.conn.closing != 0:
		s.life.after.start = true
		return
	case s.conn.gen != 0:
		return // already running or on its way
	}
	if m.setState(s, StateStarting, "") != nil {
		return
	}
	m.nextGen++
	s.conn = connState{gen: m.nextGen}
	m.launch(s)
}

func (m *machine) cancelRetry(s *srv) {
	if !s.life.nextRetry.IsZero() {
		m.emit(effCancelRetry{name: s.cfg.Name})
	}
	s.life.retryGen++
	s.life.nextRetry = time.Time{}
}

// stopServers stops the named servers: their capabilities are withdrawn
// and that is published first, so nothing calls into a closing transport;
// then each connection is closed in the background and the server ends in
// final once it is gone. r, if set, is replied then.
func (m *machine) stopServers(names []string, final State, r chan reply) {
	for _, name := range names {
		if s := m.servers[name]; s != nil {
			m.cancelRetry(s)
			if m.batch != nil {
				delete(m.batch.pending, name)
			}
			s.conn.published = false
		}
	}
	m.publish() // the withdrawal
	for _, name := range names {
		s := m.servers[name]
		if s == nil {
			continue
		}
		s.life.after = afterStop{stop: true, final: final}
		switch {
		case s.conn.gen != 0:
			gen, live := s.conn.gen, s.conn.live
			m.release(s)
			s.conn = connState{closing: gen, closingLive: live}
			_ = m.setState(s, StateStopping, "")
			m.emit(effStop{name: name, gen: gen})
		case s.conn.closing != 0:
			// Closing already (after a crash, or an earlier stop): it ends in final.
		default:
			s.life.after = afterStop{}
			m.settle(s, final)
		}
		m.replyWaiters(s, ErrSuperseded)
	}
	if r != nil {
		m.waitForClosing(names, r)
	}
	m.maybeFinishBatch()
}

// settle moves an idle server to the final state of a stop. A server that
// is switched off stays disabled when MCP as a whole goes off.
func (m *machine) settle(s *srv, final State) {
	if (s.life.state == StateInvalid && final != StateInvalid) || (s.life.state == StateDisabled && final != StateDisabled) {
		return
	}
	_ = m.setState(s, final, "")
}

// waitForClosing replies to r once none of the named servers has a
// connection closing.
func (m *machine) waitForClosing(names []string, r chan reply) {
	w := &stopWait{names: map[string]bool{}, ch: r}
	for _, name := range names {
		if s := m.servers[name]; s != nil && s.conn.closing != 0 {
			w.names[name] = true
		}
	}
	if len(w.names) == 0 {
		m.reply(r, reply{})
		return
	}
	m.stopWaits = append(m.stopWaits, w)
}

func (m *machine) replyWaiters(s *srv, err error) {
	for _, w := range s.life.waiters {
		m.reply(w, reply{err: err})
	}
	s.life.waiters = nil
}

func (m *machine) setServer(name string, on bool, r chan reply) {
	s, ok := m.servers[name]
	if !ok {
		m.reply(r, reply{err: fmt.Errorf("%w %q", ErrUnknownServer, name)})
		return
	}
	s.on = on
	m.dirty = true
	switch {
	case !on:
		m.stopServers([]string{name}, StateDisabled, r)
	case s.cfg.Invalid != nil:
		m.reply(r, reply{err: fmt.Errorf("starting %q: %w", name, s.cfg.Invalid)})
	case !m.enabled || s.conn.gen != 0:
		m.reply(r, reply{})
	case s.cfg.NeedsInput != "":
		m.reply(r, reply{err: fmt.Errorf("starting %q: %s: %w", name, s.cfg.NeedsInput, ErrConfig)})
	case s.cfg.Unapproved:
		m.reply(r, reply{err: fmt.Errorf("starting %q: %s is not approved: %w", name, s.cfg.Source, ErrConfig)})
	default:
		s.life.waiters = append(s.life.waiters, r)
		m.start(s)
	}
}

func (m *machine) reconnect(name string, r chan reply) {
	s, ok := m.servers[name]
	switch {
	case !ok:
		m.reply(r, reply{err: fmt.Errorf("%w %q", ErrUnknownServer, name)})
		return
	case !m.enabled:
		m.reply(r, reply{err: fmt.Errorf("reconnecting %q: %w", name, ErrNotEnabled)})
		return
	case !eligible(s):
		m.reply(r, reply{err: fmt.Errorf("reconnecting %q: %w", name, &TransitionError{Server: name, From: s.life.state, To: StateStarting})})
		return
	}
	m.stopServers([]string{name}, StateStopped, nil)
	s.life.restarts++
	s.life.attempts = 0
	s.life.waiters = append(s.life.waiters, r)
	m.start(s)
}

// reload applies a new configuration by the plan Reconcile makes of it:
// removed servers close, changed ones restart, added ones start, and the
// rest keep their connections. The plan is applied as made.
func (m *machine) reload(cfg *config.Config, r chan reply) {
	if !m.enabled {
		err := fmt.Errorf("reloading: %w", ErrNotEnabled)
		m.events = append(m.events, ReloadPlanned{EventHeader: EventHeader{Time: m.now}, Err: err.Error()})
		m.dirty = true
		m.reply(r, reply{err: err})
		return
	}
	plan := m.plan(cfg)
	m.events = append(m.events, ReloadPlanned{EventHeader: EventHeader{Time: m.now}, Plan: plan})
	want := map[string]config.Server{}
	for _, sc := range cfg.Servers {
		want[sc.Name] = sc
	}
	m.cfg = cfg
	m.dirty = true
	m.stopServers(append(append([]string(nil), plan.Remove...), plan.Changed()...), StateStopped, nil)
	m.forget(plan.Remove)
	var start []string
	for _, name := range plan.Changed() {
		s := m.servers[name]
		s.setConfig(want[name])
		s.on = want[name].Enabled
		start = m.reconfigured(s, start)
	}
	for _, name := range plan.Add {
		s := m.servers[name]
		if s == nil { // a server still closing from an earlier removal is reused
			s = &srv{life: lifecycle{state: StateDisabled}}
			m.servers[name] = s
		}
		s.life.after.remove = false
		s.setConfig(want[name])
		s.on = want[name].Enabled
		start = m.reconfigured(s, start)
	}
	for _, name := range plan.Keep {
		s := m.servers[name]
		s.setConfig(want[name]) // where it is defined may have moved
		if eligible(s) && s.conn.gen == 0 && s.conn.closing == 0 && (s.life.state == StateDisabled || s.life.state == StateStopped) {
			start = append(start, name)
		}
	}
	m.startBatch(start, waiter{ch: r, plan: plan})
}

// plan is how cfg differs from the servers configured now (those to be
// removed once closed left out).
func (m *machine) plan(cfg *config.Config) Plan {
	have := make([]config.Server, 0, len(m.servers))
	for _, s := range m.servers {
		if !s.life.after.remove {
			have = append(have, s.cfg)
		}
	}
	return Reconcile(cfg.Servers, have)
}

// forget removes servers from the configuration: at once, or once a
// server still closing has closed.
func (m *machine) forget(names []string) {
	for _, name := range names {
		if s := m.servers[name]; s.conn.closing != 0 {
			s.life.after.remove = true
		} else {
			delete(m.servers, name)
		}
	}
}

// configure replaces the configuration while MCP is off: servers come and
// go and take their new definitions, and nothing starts.
func (m *machine) configure(cfg *config.Config, r chan reply) {
	if m.enabled {
		m.reply(r, reply{err: fmt.Errorf("configuring while MCP is on: %w (reload instead)", ErrRefused)})
		return
	}
	plan := m.plan(cfg)
	m.cfg = cfg
	m.dirty = true
	m.forget(plan.Remove)
	for _, sc := range cfg.Servers {
		s := m.servers[sc.Name]
		if s == nil {
			s = &srv{life: lifecycle{state: StateDisabled}}
			m.servers[sc.Name] = s
		}
		changed := !sc.Equal(s.cfg) || s.life.after.remove
		s.life.after.remove = false
		s.setConfig(sc)
		if changed {
			s.on = sc.Enabled
			m.reconfigured(s, nil)
		}
	}
	m.reply(r, reply{plan: plan})
}

// reconfigured brings a server with a new configuration to the state it
// implies, and adds it to start when it should run.
func (m *machine) reconfigured(s *srv, start []string) []string {
	switch {
	case s.cfg.Invalid != nil && s.conn.closing != 0:
		s.life.after.final = StateInvalid
	case s.cfg.Invalid != nil:
		_ = m.setState(s, StateInvalid, s.cfg.Invalid.Error())
	case s.life.state == StateInvalid:
		_ = m.setState(s, StateDisabled, "")
	}
	switch {
	case eligible(s):
		return append(start, s.cfg.Name)
	case s.conn.closing != 0 && s.cfg.Invalid == nil:
		s.life.after.final = StateDisabled // the configuration switched it off
	case s.conn.closing == 0 && s.life.state != StateInvalid:
		_ = m.setState(s, StateDisabled, "")
	}
	return start
}

func (m *machine) attemptState(in msgAttemptState) {
	if s := m.servers[in.name]; s != nil && s.conn.gen == in.gen && !s.conn.live {
		if in.state != StateStarting {
			m.release(s) // spawned (or connected): its turn to spawn is over
		}
		_ = m.setState(s, in.state, "")
	}
}

func (m *machine) attemptDone(in msgAttemptDone) {
	s := m.servers[in.name]
	if s == nil || s.conn.gen != in.gen || s.conn.live {
		return // a stop took this attempt over; its effect closes what the attempt opened
	}
	if in.err != nil {
		m.attemptFailed(s, in.gen, in.err)
		return
	}
	m.release(s)
	inBatch := m.batch != nil && m.batch.pending[in.name]
	if inBatch {
		delete(m.batch.pending, in.name)
	}
	s.conn.live, s.conn.info, s.conn.startedAt = true, in.info, m.now
	s.life.readySince = m.now
	s.life.left.stderr = nil
	_ = m.setState(s, StateReady, "")
	m.emit(effActivate{name: in.name, gen: in.gen, ping: s.cfg.PingInterval})
	s.conn.published = !inBatch // a batch publishes its servers together
	m.replyWaiters(s, nil)
	m.maybeFinishBatch()
}

// attemptFailed ends the connection attempt gen of s with err. What the
// attempt opened is closed in the background; the failure shows now.
func (m *machine) attemptFailed(s *srv, gen uint64, err error) {
	m.release(s)
	if m.batch != nil {
		delete(m.batch.pending, s.cfg.Name)
	}
	s.conn = connState{closing: gen}
	m.emit(effStop{name: s.cfg.Name, gen: gen})
	m.fail(s, err)
	m.replyWaiters(s, s.life.lastErr)
	m.maybeFinishBatch()
}

// healthyFor is how long a connection must stay up for its failure to
// reset the reconnect attempts. A variable so tests need not wait a minute.
var healthyFor = 60 * time.Second

// fail records a failure and schedules an automatic reconnect where the
// policy allows it.
func (m *machine) fail(s *srv, err error) {
	info := errorInfo(s.cfg.Name, "", err)
	info.Message = newRedactor(s.cfg).str(info.Message) // error text may quote the server's env
	info.At = m.now
	s.life.lastErr = info
	s.life.reconnectable = reconnectable(info.Kind)
	to := StateFailed
	if info.Kind == KindNeedsLogin {
		to = StateNeedsLogin
	}
	_ = m.setState(s, to, info.Message)
	policy := s.cfg.AutoReconnect
	if m.noRetry || !m.enabled || !s.life.reconnectable || !policy.Enabled || s.life.attempts >= policy.MaxAttempts {
		return
	}
	backoff := policy.InitialBackoff << s.life.attempts
	if backoff > policy.MaxBackoff || backoff <= 0 {
		backoff = policy.MaxBackoff
	}
	s.life.attempts++
	s.life.retryGen++
	s.life.nextRetry = m.now.Add(backoff)
	m.emit(effRetry{name: s.cfg.Name, gen: s.life.retryGen, after: backoff})
}

// reconnectable reports whether trying again may help: transport failures
// yes; a configuration that cannot work (a command that is not there, a
// redirect to another origin, credentials the server rejects, a
// certificate that is not trusted), an authorization that failed (its
// metadata, registration, a token request: KindAuth, which was
// KindConfig's until it had a kind of its own), a protocol revision in
// common that does not exist, or a login nobody has done, no.
//
// Nor a message over the size limit (KindTooLarge): a server that sent an
// over-size frame at startup sends the same listing again on the next
// attempt, so retrying would only fail the same way three times instead of
// once. The failure says to raise maxMessageSize (or make the server send
// less); a manual reconnect (R, reload) still tries again at once.
func reconnectable(k ErrorKind) bool {
	return k != KindConfig && k != KindAuth && k != KindUnsupportedVersion && k != KindNeedsLogin && k != KindTooLarge
}

func (m *machine) retry(in msgRetry) {
	s := m.servers[in.name]
	if s == nil || s.life.retryGen != in.gen || !m.enabled || !eligible(s) || s.conn.gen != 0 {
		return
	}
	s.life.nextRetry = time.Time{}
	s.life.restarts++
	m.start(s)
}

func (m *machine) stopped(in msgStopped) {
	s := m.servers[in.name]
	if s == nil || s.conn.closing != in.gen {
		return
	}
	s.conn.closing, s.conn.closingLive = 0, false
	s.life.left.counters = addCounters(s.life.left.counters, in.left.counters)
	if in.left.stderr != nil {
		s.life.left.stderr = in.left.stderr
	}
	if in.left.stop.Step != 0 {
		s.life.left.stop = in.left.stop
	}
	m.dirty = true
	after := s.life.after
	s.life.after = afterStop{}
	if after.stop {
		m.settle(s, after.final)
	}
	for i := 0; i < len(m.stopWaits); i++ {
		w := m.stopWaits[i]
		delete(w.names, in.name)
		if len(w.names) == 0 {
			m.reply(w.ch, reply{})
			m.stopWaits = append(m.stopWaits[:i], m.stopWaits[i+1:]...)
			i--
		}
	}
	switch {
	case after.remove:
		delete(m.servers, in.name)
	case after.start && m.enabled && eligible(s):
		m.start(s)
	}
	m.maybeFinishBatch()
}

func addCounters(a, b Counters) Counters {
	a.Notifications += b.Notifications
	a.DroppedEvents += b.DroppedEvents
	a.LateResponses += b.LateResponses
	a.UnknownResponses += b.UnknownResponses
	a.NoiseLines += b.NoiseLines
	a.Calls += b.Calls
	a.Errors += b.Errors
	return a
}

func (m *machine) sessionClosed(in msgSessionClosed) {
	s := m.liveServer(in.name, in.gen)
	if s == nil {
		return
	}
	s.conn.published = false
	m.publish() // withdraw before the transport goes
	s.conn = connState{closing: in.gen, closingLive: true}
	m.emit(effStop{name: in.name, gen: in.gen})
	if m.now.Sub(s.life.readySince) >= healthyFor {
		s.life.attempts = 0 // a healthy run earns a fresh set of reconnect attempts
	}
	s.life.readySince = time.Time{}
	cause := in.cause
	if cause == nil {
		cause = errors.New("connection closed")
	}
	m.fail(s, fmt.Errorf("connection closed: %w", cause))
}

func (m *machine) listed(in msgListed) {
	s := m.liveServer(in.name, in.gen)
	if s == nil {
		return
	}
	switch in.kind {
	case "tools":
		s.conn.info.lists.Tools = in.lists.Tools
		s.conn.info.lists.Dropped = in.lists.Dropped
	case "prompts":
		s.conn.info.lists.Prompts = in.lists.Prompts
	case "resources":
		s.conn.info.lists.Resources = in.lists.Resources
		s.conn.info.lists.Templates = in.lists.Templates
	}
	if l, ok := in.lists.Listed[in.kind]; ok {
		s.conn.info.lists.Listed = maps.Clone(s.conn.info.lists.Listed)
		if s.conn.info.lists.Listed == nil {
			s.conn.info.lists.Listed = map[string]Listing{}
		}
		s.conn.info.lists.Listed[in.kind] = l
	}
	s.conn.info.leaks = MergeLeaks(s.conn.info.leaks, in.leaks...)
	// Released with the publication that carries the new list.
	m.events = append(m.events, ListChanged{EventHeader: EventHeader{Time: m.now, Server: in.name}, Kind: in.kind})
	m.dirty = true
}

func (m *machine) pinged(in msgPing) {
	s := m.liveServer(in.name, in.gen)
	if s == nil {
		return
	}
	switch {
	case in.missed == 0 && s.life.state == StateDegraded:
		_ = m.setState(s, StateReady, "")
	case in.missed == 2:
		_ = m.setState(s, StateDegraded, "2 health checks missed")
	case in.missed >= 3:
		m.emit(effDrop{name: in.name, gen: in.gen, cause: fmt.Errorf("%d health checks in a row went unanswered", in.missed)})
	}
}
