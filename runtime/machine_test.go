package runtime

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
)

// The machine is tested with plain values: no process, no goroutine, no
// clock. Each input's effects are checked as the loop would run them.

var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

type rig struct {
	t   *testing.T
	m   *machine
	now time.Time
	out []effect
}

func machineOf(t *testing.T, servers ...config.Server) *rig {
	t.Helper()
	return &rig{t: t, m: newMachine(&config.Config{Servers: servers}), now: t0}
}

func plainServer(name string) config.Server {
	return config.Server{Name: name, Transport: config.TransportStdio, Command: name, Enabled: true,
		StartupTimeout: time.Second, CallTimeout: time.Second, PingInterval: 15 * time.Second,
		AutoReconnect: config.DefaultReconnect()}
}

// step feeds one input and keeps its effects; a refused transition fails
// the test unless the input is expected to cause one.
func (r *rig) step(in any) []effect {
	r.t.Helper()
	r.now = r.now.Add(time.Millisecond)
	out, err := r.m.step(r.now, in)
	if err != nil {
		r.t.Fatalf("%T: refused transition: %v", in, err)
	}
	r.out = out
	return out
}

// cmd feeds one command and returns its reply channel.
func (r *rig) cmd(c command) chan reply {
	r.t.Helper()
	c.reply = make(chan reply, 1)
	r.step([]command{c})
	return c.reply
}

func (r *rig) state(name string) State {
	r.t.Helper()
	s := r.m.servers[name]
	if s == nil {
		r.t.Fatalf("no server %q", name)
	}
	return s.life.state
}

func (r *rig) wantState(name string, want State) {
	r.t.Helper()
	if got := r.state(name); got != want {
		r.t.Fatalf("%s is %s, want %s", name, got, want)
	}
}

// gen is the generation of name's current connection (attempt or session).
func (r *rig) gen(name string) uint64 { return r.m.servers[name].conn.gen }

// closing is the generation of name's connection being closed.
func (r *rig) closing(name string) uint64 { return r.m.servers[name].conn.closing }

// replies returns the replies among the last effects, by channel.
func (r *rig) replied(ch chan reply) (reply, bool) {
	for _, e := range r.out {
		if e, ok := e.(effReply); ok && e.ch == ch {
			return e.r, true
		}
	}
	return reply{}, false
}

func (r *rig) wantReply(ch chan reply, want error) {
	r.t.Helper()
	got, ok := r.replied(ch)
	switch {
	case !ok:
		r.t.Fatalf("no reply; effects: %s", kinds(r.out))
	case want == nil && got.err != nil, want != nil && !errors.Is(got.err, want):
		r.t.Fatalf("reply %v, want %v", got.err, want)
	}
}

func (r *rig) wantNoReply(ch chan reply) {
	r.t.Helper()
	if got, ok := r.replied(ch); ok {
		r.t.Fatalf("replied too early: %+v; effects: %s", got, kinds(r.out))
	}
}

func kinds(effects []effect) string {
	var out []string
	for _, e := range effects {
		out = append(out, strings.TrimPrefix(reflect.TypeOf(e).Name(), "eff"))
	}
	return strings.Join(out, " ")
}

// index returns the position of the first effect matching f, or -1.
func index(effects []effect, f func(effect) bool) int {
	return slices.IndexFunc(effects, f)
}

func isStop(name string) func(effect) bool {
	return func(e effect) bool { s, ok := e.(effStop); return ok && s.name == name }
}

func isStart(name string) func(effect) bool {
	return func(e effect) bool { s, ok := e.(effStart); return ok && s.name == name }
}

func isPublish(e effect) bool { _, ok := e.(effPublish); return ok }

// lastView is the last publication among the effects.
func (r *rig) lastView() view {
	r.t.Helper()
	for i := len(r.out) - 1; i >= 0; i-- {
		if p, ok := r.out[i].(effPublish); ok {
			return p.view
		}
	}
	r.t.Fatalf("no publication in %s", kinds(r.out))
	return view{}
}

func ready(r *rig, name string) {
	r.t.Helper()
	tools := lists{Tools: []Tool{{ServerTool: "echo", InputSchema: []byte(`{"type":"object"}`)}}}
	r.step(msgAttemptDone{name: name, gen: r.gen(name), info: connInfo{lists: tools}})
}

func enabled(r *rig, names ...string) {
	r.t.Helper()
	ch := r.cmd(command{kind: cmdSetEnabled, on: true})
	for _, n := range names {
		ready(r, n)
	}
	r.wantReply(ch, nil)
}

func TestMachineEnablePublishesTogetherAndRepliesLast(t *testing.T) {
	t.Parallel()
	r := machineOf(t, plainServer("a"), plainServer("b"))
	r.wantState("a", StateDisabled)
	ch := r.cmd(command{kind: cmdSetEnabled, on: true})
	if index(r.out, isStart("a")) < 0 || index(r.out, isStart("b")) < 0 {
		t.Fatalf("enable started %s", kinds(r.out))
	}
	r.wantState("a", StateStarting)
	r.wantNoReply(ch)

	r.step(msgAttemptState{name: "a", gen: r.gen("a"), state: StateInitializing})
	r.wantState("a", StateInitializing)
	r.step(msgAttemptState{name: "a", gen: r.gen("a") + 7, state: StateListing}) // stale: ignored
	r.wantState("a", StateInitializing)

	ready(r, "a")
	r.wantState("a", StateReady)
	if v := r.lastView(); len(v.snap.Tools) != 0 || len(v.published) != 0 {
		t.Fatalf("a's tools published before b was done: %+v", v.published)
	}
	r.wantNoReply(ch)
	ready(r, "b")
	v := r.lastView()
	if len(v.snap.Tools) != 2 || len(v.published) != 2 {
		t.Fatalf("batch published %d tools, %v", len(v.snap.Tools), v.published)
	}
	// The reply comes after the publication it waited for.
	pub, rep := index(r.out, isPublish), index(r.out, func(e effect) bool { _, ok := e.(effReply); return ok })
	if rep < 0 || pub < 0 || rep < pub {
		t.Fatalf("effects %s: the reply must follow the publication", kinds(r.out))
	}
	r.wantReply(ch, nil)
}

func TestMachineDisableWithdrawsThenStopsAndRepliesWhenGone(t *testing.T) {
	t.Parallel()
	r := machineOf(t, plainServer("a"), plainServer("b"))
	enabled(r, "a", "b")
	ga, gb := r.gen("a"), r.gen("b")
	ch := r.cmd(command{kind: cmdSetEnabled, on: false})
	// The withdrawal is published before any stop runs.
	first := index(r.out, isPublish)
	if first < 0 || first > index(r.out, isStop("a")) || first > index(r.out, isStop("b")) {
		t.Fatalf("effects %s: withdraw first", kinds(r.out))
	}
	if v := r.out[first].(effPublish).view; v.snap.Enabled || len(v.snap.Tools) != 0 {
		t.Fatalf("withdrawal still shows %d tools", len(v.snap.Tools))
	}
	r.wantState("a", StateStopping)
	r.wantNoReply(ch)
	r.step(msgStopped{name: "a", gen: ga})
	r.wantState("a", StateStopped)
	r.wantNoReply(ch)
	r.step(msgStopped{name: "b", gen: gb})
	r.wantState("b", StateStopped)
	r.wantReply(ch, nil)
}

// While one server is still stopping, everything else goes on: another
// server starts and is ready, and its caller is answered.
func TestMachineSlowStopBlocksNothingElse(t *testing.T) {
	t.Parallel()
	b := plainServer("b")
	b.Enabled = false
	r := machineOf(t, plainServer("a"), b)
	enabled(r, "a")
	ga := r.gen("a")
	off := r.cmd(command{kind: cmdServerEnabled, server: "a", on: false})
	r.wantState("a", StateStopping)
	on := r.cmd(command{kind: cmdServerEnabled, server: "b", on: true})
	if index(r.out, isStart("b")) < 0 {
		t.Fatalf("b did not start while a was stopping: %s", kinds(r.out))
	}
	ready(r, "b")
	r.wantReply(on, nil)
	r.wantState("b", StateReady)
	r.wantState("a", StateStopping)
	r.step(msgStopped{name: "a", gen: ga})
	r.wantReply(off, nil)
	r.wantState("a", StateDisabled)
}

func TestMachineStartWaitsForTheOldConnection(t *testing.T) {
	t.Parallel()
	r := machineOf(t, plainServer("a"))
	enabled(r, "a")
	g := r.gen("a")
	r.cmd(command{kind: cmdSetEnabled, on: false})
	on := r.cmd(command{kind: cmdSetEnabled, on: true})
	if index(r.out, isStart("a")) >= 0 {
		t.Fatal("a new connection started while the old one was still closing: two at once")
	}
	r.step(msgStopped{name: "a", gen: g})
	if index(r.out, isStart("a")) < 0 {
		t.Fatalf("no start once the old connection was gone: %s", kinds(r.out))
	}
	r.wantState("a", StateStarting)
	ready(r, "a")
	r.wantReply(on, nil)
}

func TestMachineFailureShowsAtOnceAndRetriesAfterCleanup(t *testing.T) {
	t.Parallel()
	r := machineOf(t, plainServer("a"))
	ch := r.cmd(command{kind: cmdSetEnabled, on: true})
	g := r.gen("a")
	r.step(msgAttemptDone{name: "a", gen: g, err: fmt.Errorf("initialize: %w", ErrTimeout)})
	r.wantState("a", StateFailed)
	r.wantReply(ch, nil) // the batch is done: a failed
	if index(r.out, isStop("a")) < 0 || r.closing("a") != g {
		t.Fatalf("what the attempt opened is not closed: %s", kinds(r.out))
	}
	var retry effRetry
	if i := index(r.out, func(e effect) bool { _, ok := e.(effRetry); return ok }); i < 0 {
		t.Fatalf("no retry scheduled: %s", kinds(r.out))
	} else {
		retry = r.out[i].(effRetry)
	}
	if retry.after != config.DefaultInitialBackoff {
		t.Fatalf("first backoff %s", retry.after)
	}
	snap := r.m.servers["a"]
	if snap.life.lastErr.Kind != KindTimeout || !snap.life.reconnectable {
		t.Fatalf("last error %+v", snap.life.lastErr)
	}
	r.step(msgRetry{name: "a", gen: retry.gen - 1}) // stale timer
	if index(r.out, isStart("a")) >= 0 {
		t.Fatal("a stale retry started the server")
	}
	r.step(msgRetry{name: "a", gen: retry.gen})
	if index(r.out, isStart("a")) >= 0 {
		t.Fatal("retry started before the failed attempt was cleaned up")
	}
	r.step(msgStopped{name: "a", gen: g})
	if index(r.out, isStart("a")) < 0 {
		t.Fatalf("no start after cleanup: %s", kinds(r.out))
	}
	if r.m.servers["a"].life.restarts != 1 {
		t.Fatalf("restarts %d", r.m.servers["a"].life.restarts)
	}
}

func TestMachineNeedsLoginAndConfigErrorsAreNotRetried(t *testing.T) {
	t.Parallel()
	r := machineOf(t, plainServer("a"), plainServer("b"))
	r.cmd(command{kind: cmdSetEnabled, on: true})
	r.step(msgAttemptDone{name: "a", gen: r.gen("a"), err: fmt.Errorf("connecting: %w", ErrNeedsLogin)})
	r.wantState("a", StateNeedsLogin)
	if index(r.out, func(e effect) bool { _, ok := e.(effRetry); return ok }) >= 0 {
		t.Fatal("a login nobody did is retried")
	}
	r.step(msgAttemptDone{name: "b", gen: r.gen("b"), err: fmt.Errorf("starting: %w", ErrConfig)})
	r.wantState("b", StateFailed)
	if r.m.servers["b"].life.reconnectable {
		t.Fatal("a configuration error is reconnectable")
	}
}

func TestMachineSessionClosedWithdrawsFailsAndCleansUp(t *testing.T) {
	t.Parallel()
	r := machineOf(t, plainServer("a"))
	enabled(r, "a")
	g := r.gen("a")
	r.step(msgSessionClosed{name: "a", gen: g + 1, cause: errors.New("EOF")}) // another connection's
	r.wantState("a", StateReady)
	r.step(msgSessionClosed{name: "a", gen: g, cause: fmt.Errorf("server process %w", ErrProcessExited)})
	r.wantState("a", StateFailed)
	first := index(r.out, isPublish)
	if first < 0 || first > index(r.out, isStop("a")) || len(r.out[first].(effPublish).view.snap.Tools) != 0 {
		t.Fatalf("effects %s: withdraw, then close", kinds(r.out))
	}
	if k := r.m.servers["a"].life.lastErr.Kind; k != KindExited {
		t.Fatalf("kind %s", k)
	}
	// What the session left behind is kept once it is gone.
	r.step(msgStopped{name: "a", gen: g, left: leftovers{counters: Counters{Calls: 3, Errors: 1}, stderr: []string{"boom"}}})
	v := r.lastView().snap.Servers[0]
	if v.Counters.Calls != 3 || v.Counters.Errors != 1 || v.Stderr[0] != "boom" {
		t.Fatalf("leftovers not shown: %+v", v)
	}
}

func TestMachineHealthChecksDegradeRecoverAndDrop(t *testing.T) {
	t.Parallel()
	r := machineOf(t, plainServer("a"))
	enabled(r, "a")
	g := r.gen("a")
	r.step(msgPing{name: "a", gen: g, missed: 1})
	r.wantState("a", StateReady)
	r.step(msgPing{name: "a", gen: g, missed: 2})
	r.wantState("a", StateDegraded)
	r.step(msgPing{name: "a", gen: g, missed: 0})
	r.wantState("a", StateReady)
	r.step(msgPing{name: "a", gen: g, missed: 3})
	if index(r.out, func(e effect) bool { d, ok := e.(effDrop); return ok && d.gen == g }) < 0 {
		t.Fatalf("3 misses did not drop the transport: %s", kinds(r.out))
	}
}

func TestMachineReconnectStopsThenStarts(t *testing.T) {
	t.Parallel()
	r := machineOf(t, plainServer("a"))
	enabled(r, "a")
	g := r.gen("a")
	ch := r.cmd(command{kind: cmdReconnect, server: "a"})
	r.wantState("a", StateStopping)
	if index(r.out, isStart("a")) >= 0 {
		t.Fatal("started before the old connection was gone")
	}
	r.step(msgStopped{name: "a", gen: g})
	r.wantState("a", StateStarting)
	if r.gen("a") == g {
		t.Fatal("reconnect reused the generation")
	}
	ready(r, "a")
	r.wantReply(ch, nil)
	if s := r.m.servers["a"]; s.life.restarts != 1 {
		t.Fatalf("restarts %d", s.life.restarts)
	}
	// Refusals name the state.
	r.cmd(command{kind: cmdServerEnabled, server: "a", on: false})
	ch = r.cmd(command{kind: cmdReconnect, server: "a"})
	var te *TransitionError
	got, _ := r.replied(ch)
	if !errors.As(got.err, &te) || !errors.Is(got.err, ErrRefused) || !strings.Contains(got.err.Error(), "stopping") {
		t.Fatalf("reconnecting a switched-off server: %v", got.err)
	}
}

func TestMachineReloadAppliesThePlan(t *testing.T) {
	t.Parallel()
	keep, restart, remove, off := plainServer("keep"), plainServer("restart"), plainServer("remove"), plainServer("off")
	r := machineOf(t, keep, restart, remove, off)
	enabled(r, "keep", "off", "remove", "restart")
	gens := map[string]uint64{}
	for _, n := range []string{"keep", "restart", "remove", "off"} {
		gens[n] = r.gen(n)
	}
	restart2 := restart
	restart2.Args = []string{"--new"}
	off2 := off
	off2.Enabled = false
	add := plainServer("add")
	ch := r.cmd(command{kind: cmdReload, cfg: &config.Config{Servers: []config.Server{keep, restart2, off2, add}}})
	for _, n := range []string{"restart", "remove", "off"} {
		if index(r.out, isStop(n)) < 0 {
			t.Fatalf("%s not stopped: %s", n, kinds(r.out))
		}
	}
	if index(r.out, isStop("keep")) >= 0 || index(r.out, isStart("add")) < 0 || index(r.out, isStart("restart")) >= 0 {
		t.Fatalf("plan not applied as made: %s", kinds(r.out))
	}
	r.wantState("keep", StateReady)
	r.step(msgStopped{name: "remove", gen: gens["remove"]})
	if _, ok := r.m.servers["remove"]; ok {
		t.Fatal("removed server still known once stopped")
	}
	r.step(msgStopped{name: "off", gen: gens["off"]})
	r.wantState("off", StateDisabled)
	r.step(msgStopped{name: "restart", gen: gens["restart"]})
	r.wantState("restart", StateStarting)
	ready(r, "add")
	r.wantNoReply(ch)
	ready(r, "restart")
	got, _ := r.replied(ch)
	want := Plan{Add: []string{"add"}, Remove: []string{"remove"}, Restart: []string{"restart"}, Keep: []string{"keep"}, Stop: []string{"off"}}
	if !reflect.DeepEqual(got.plan, want) || got.err != nil {
		t.Fatalf("reply %+v, want plan %+v", got, want)
	}
	// Refused while MCP is off.
	r2 := machineOf(t, keep)
	ch = r2.cmd(command{kind: cmdReload, cfg: &config.Config{}})
	r2.wantReply(ch, ErrNotEnabled)
}

func TestMachineInvalidServerNeverStarts(t *testing.T) {
	t.Parallel()
	bad := plainServer("bad")
	bad.Invalid = errors.New(`mcp.json:3:17: "timeout": "5 s" is not a duration`)
	r := machineOf(t, bad, plainServer("good"))
	r.wantState("bad", StateInvalid)
	ch := r.cmd(command{kind: cmdSetEnabled, on: true})
	if index(r.out, isStart("bad")) >= 0 || index(r.out, isStart("good")) < 0 {
		t.Fatalf("effects %s", kinds(r.out))
	}
	ready(r, "good")
	r.wantReply(ch, nil)
	if v := r.lastView().snap; v.Servers[0].State != StateInvalid || !strings.Contains(v.Servers[0].Note, "5 s") {
		t.Fatalf("invalid server shown as %+v", v.Servers[0])
	}
	ch = r.cmd(command{kind: cmdServerEnabled, server: "bad", on: true})
	if got, ok := r.replied(ch); !ok || got.err == nil || !strings.Contains(got.err.Error(), "5 s") {
		t.Fatal("switching on an invalid server succeeded")
	}
}

func TestMachineCollapsesBurstsAndRefusesAfterShutdown(t *testing.T) {
	t.Parallel()
	r := machineOf(t, plainServer("a"))
	var chans []chan reply
	var cmds []command
	for i := 0; i < 5; i++ {
		c := command{kind: cmdSetEnabled, on: i%2 == 0, reply: make(chan reply, 1)}
		chans = append(chans, c.reply)
		cmds = append(cmds, c)
	}
	r.step(cmds)
	for _, ch := range chans[:4] {
		r.wantReply(ch, ErrSuperseded)
	}
	r.wantNoReply(chans[4]) // on: waits for a
	g := r.gen("a")
	shut := r.cmd(command{kind: cmdShutdown})
	r.wantReply(chans[4], ErrSuperseded)
	r.wantNoReply(shut)
	late := r.cmd(command{kind: cmdSetEnabled, on: true})
	r.wantReply(late, ErrShutdown)
	r.step(msgStopped{name: "a", gen: g})
	r.wantReply(shut, nil)
	if index(r.out, func(e effect) bool { _, ok := e.(effExit); return ok }) < 0 {
		t.Fatalf("no exit after shutdown: %s", kinds(r.out))
	}
}

func TestTransitionsAreChecked(t *testing.T) {
	t.Parallel()
	all := []State{StateDisabled, StateStarting, StateInitializing, StateListing, StateReady, StateDegraded,
		StateFailed, StateStopping, StateStopped, StateNeedsLogin, StateInvalid}
	if len(all) != len(stateNames) {
		t.Fatalf("test lists %d states, there are %d", len(all), len(stateNames))
	}
	for _, from := range all {
		if _, ok := transitions[from]; !ok {
			t.Errorf("%s has no transitions", from)
		}
		for _, to := range all {
			want := from == to || slices.Contains(transitions[from], to)
			if CanMove(from, to) != want {
				t.Errorf("CanMove(%s, %s) = %v", from, to, !want)
			}
			m := &machine{servers: map[string]*srv{}}
			s := &srv{cfg: config.Server{Name: "x"}, life: lifecycle{state: from}}
			err := m.setState(s, to, "")
			switch {
			case want && err != nil:
				t.Errorf("%s → %s refused: %v", from, to, err)
			case !want && (err == nil || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), from.String()) || s.life.state != from):
				t.Errorf("%s → %s: err %v, state now %s; want a refusal naming %s", from, to, err, s.life.state, from)
			}
		}
	}
	// Nothing reachable from disabled without passing through starting
	// becomes ready: the only ways up are through a connection attempt.
	for _, from := range []State{StateDisabled, StateStopped, StateFailed, StateNeedsLogin, StateInvalid, StateStopping} {
		if CanMove(from, StateReady) {
			t.Errorf("%s → ready skips the handshake", from)
		}
	}
}

// While MCP is off the configuration can be replaced (after an approval,
// say): nothing starts, and servers from an unapproved file never do.
func TestMachineConfigureWhileOffStartsNothing(t *testing.T) {
	t.Parallel()
	pending := plainServer("proj")
	pending.Unapproved = true
	r := machineOf(t, pending, plainServer("user"))
	ch := r.cmd(command{kind: cmdSetEnabled, on: true})
	if index(r.out, isStart("proj")) >= 0 {
		t.Fatal("a server from an unapproved file started")
	}
	ready(r, "user")
	r.wantReply(ch, nil)
	if v := r.lastView().snap.Servers[0]; !strings.Contains(v.Note, "not approved") {
		t.Fatalf("proj's note %q", v.Note)
	}
	on := r.cmd(command{kind: cmdServerEnabled, server: "proj", on: true})
	if got, _ := r.replied(on); got.err == nil {
		t.Fatal("switching on an unapproved server succeeded")
	}
	ch = r.cmd(command{kind: cmdConfigure, cfg: &config.Config{Servers: []config.Server{plainServer("proj")}}})
	r.wantReply(ch, ErrRefused) // MCP is on

	off := r.cmd(command{kind: cmdSetEnabled, on: false})
	r.step(msgStopped{name: "user", gen: r.closing("user")})
	r.wantReply(off, nil)
	approved := plainServer("proj")
	ch = r.cmd(command{kind: cmdConfigure, cfg: &config.Config{Servers: []config.Server{approved}}})
	got, _ := r.replied(ch)
	if got.err != nil || !reflect.DeepEqual(got.plan.Remove, []string{"user"}) || !reflect.DeepEqual(got.plan.Restart, []string{"proj"}) {
		t.Fatalf("configure: %+v", got)
	}
	if index(r.out, func(e effect) bool { _, ok := e.(effStart); return ok }) >= 0 {
		t.Fatalf("configure started something: %s", kinds(r.out))
	}
	if _, ok := r.m.servers["user"]; ok || r.m.servers["proj"].cfg.Unapproved {
		t.Fatal("the configuration was not replaced")
	}
	r.cmd(command{kind: cmdSetEnabled, on: true})
	if index(r.out, isStart("proj")) < 0 {
		t.Fatalf("the approved server did not start: %s", kinds(r.out))
	}
}

// Reconcile names a changed server by its "enabled" before and after:
// switched off is Stop, switched on is Start, changed while off is Update;
// only a server enabled on both sides is restarted.
func TestReconcileByEnablement(t *testing.T) {
	t.Parallel()
	def := func(name string, enabled bool, cmd string) config.Server {
		return config.Server{Name: name, Transport: config.TransportStdio, Command: cmd, Enabled: enabled}
	}
	have := []config.Server{def("run", true, "a"), def("off", true, "a"), def("on", false, "a"), def("idle", false, "a"), def("same", true, "a")}
	want := []config.Server{def("run", true, "b"), def("off", false, "a"), def("on", true, "a"), def("idle", false, "b"), def("same", true, "a")}
	got := Reconcile(want, have)
	exp := Plan{Restart: []string{"run"}, Stop: []string{"off"}, Start: []string{"on"}, Update: []string{"idle"}, Keep: []string{"same"}}
	if !reflect.DeepEqual(got, exp) {
		t.Fatalf("plan = %+v, want %+v", got, exp)
	}
	if !reflect.DeepEqual(got.Changed(), []string{"run", "off", "on", "idle"}) || got.Empty() {
		t.Fatalf("Changed() = %v, Empty() = %v", got.Changed(), got.Empty())
	}
}

// TestFailedAuthorizationIsNotRetried: an authorization that failed (the
// server's metadata, registration, a token request) fails the same way on
// the next attempt, as it did while it was of kind config; a manual
// reconnect still tries again.
func TestFailedAuthorizationIsNotRetried(t *testing.T) {
	for _, k := range []ErrorKind{KindAuth, KindConfig, KindNeedsLogin} {
		if reconnectable(k) {
			t.Errorf("kind %s is retried by the automatic reconnect", k)
		}
	}
	if !reconnectable(KindTransport) {
		t.Error("kind transport is not retried")
	}
}
