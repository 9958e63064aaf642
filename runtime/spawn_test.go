package runtime

import (
	"errors"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
)

// queueOf is a machine whose spawn queue lets limit stdio servers spawn at
// once, each start waiting at most a minute.
func queueOf(t *testing.T, limit int, names ...string) *rig {
	t.Helper()
	servers := make([]config.Server, 0, len(names))
	for _, n := range names {
		servers = append(servers, plainServer(n))
	}
	r := machineOf(t, servers...)
	r.m.spawnLimit, r.m.queueTimeout = limit, time.Minute
	return r
}

func countOf(effects []effect, f func(effect) bool) int {
	n := 0
	for _, e := range effects {
		if f(e) {
			n++
		}
	}
	return n
}

func isAnyStart(e effect) bool { _, ok := e.(effStart); return ok }

// A start beyond the bound waits, in state starting with a reason, and
// no attempt runs for it (so its startup timeout does not run either);
// the turn passes on once a queued server's process is spawned.
func TestSpawnQueueStartsInTurn(t *testing.T) {
	t.Parallel()
	r := queueOf(t, 2, "a", "b", "c")
	ch := r.cmd(command{kind: cmdSetEnabled, on: true})
	if n := countOf(r.out, isAnyStart); n != 2 {
		t.Fatalf("enable started %d attempts with a bound of 2: %s", n, kinds(r.out))
	}
	var queued string
	for _, n := range []string{"a", "b", "c"} {
		if index(r.out, isStart(n)) < 0 {
			queued = n
		}
	}
	r.wantState(queued, StateStarting)
	if reason := r.m.servers[queued].life.reason; !strings.Contains(reason, "waiting for its turn to spawn") {
		t.Fatalf("a queued start says %q", reason)
	}
	if index(r.out, func(e effect) bool {
		q, ok := e.(effQueueTimeout)
		return ok && q.name == queued && q.after == time.Minute
	}) < 0 {
		t.Fatalf("no bound set on the queued start: %s", kinds(r.out))
	}

	first := "a"
	if queued == "a" {
		first = "b"
	}
	r.step(msgAttemptState{name: first, gen: r.gen(first), state: StateStarting}) // not spawned yet
	if index(r.out, isStart(queued)) >= 0 {
		t.Fatal("the queued start began before a turn was free")
	}
	r.step(msgAttemptState{name: first, gen: r.gen(first), state: StateInitializing})
	if index(r.out, isStart(queued)) < 0 {
		t.Fatalf("spawning %s did not pass the turn on: %s", first, kinds(r.out))
	}
	if index(r.out, func(e effect) bool { c, ok := e.(effCancelQueueTimeout); return ok && c.gen == r.gen(queued) }) < 0 {
		t.Fatalf("the queued start's bound was not cancelled when its turn came: %s", kinds(r.out))
	}
	if reason := r.m.servers[queued].life.reason; reason != "" {
		t.Fatalf("a started server still says %q", reason)
	}
	// A stale bound, fired after the turn came, changes nothing.
	r.step(msgQueueTimeout{name: queued, gen: r.gen(queued)})
	r.wantState(queued, StateStarting)
	for _, n := range []string{"a", "b", "c"} {
		ready(r, n)
	}
	r.wantReply(ch, nil)
	if r.m.spawning != 0 {
		t.Fatalf("%d turns still held after every server is ready", r.m.spawning)
	}
}

// A start that waits past its bound fails with a timeout that says it was
// never spawned; the batch it belongs to still ends.
func TestSpawnQueueBoundFailsTheWait(t *testing.T) {
	t.Parallel()
	r := queueOf(t, 1, "a", "b")
	ch := r.cmd(command{kind: cmdSetEnabled, on: true})
	queued := "b"
	if index(r.out, isStart("b")) >= 0 {
		queued = "a"
	}
	gen := r.gen(queued)
	r.step(msgQueueTimeout{name: queued, gen: gen})
	r.wantState(queued, StateFailed)
	last := r.m.servers[queued].life.lastErr
	if last == nil || last.Kind != KindTimeout || !errors.Is(last, ErrTimeout) || !strings.Contains(last.Message, "not spawned within 1m0s") {
		t.Fatalf("the failure is %+v", last)
	}
	if index(r.out, isStop(queued)) < 0 {
		t.Fatalf("the failed start's generation is not closed: %s", kinds(r.out))
	}
	r.step(msgStopped{name: queued, gen: gen})
	other := "a"
	if queued == "a" {
		other = "b"
	}
	r.wantNoReply(ch)
	ready(r, other)
	r.wantReply(ch, nil)
}

// A queued start that is stopped leaves the queue, and a failed attempt
// gives its turn back.
func TestSpawnQueueSkipsStoppedStartsAndFreesFailedTurns(t *testing.T) {
	t.Parallel()
	r := queueOf(t, 1, "a", "b", "c")
	r.cmd(command{kind: cmdSetEnabled, on: true})
	var running string
	for _, n := range []string{"a", "b", "c"} {
		if index(r.out, isStart(n)) >= 0 {
			running = n
		}
	}
	var waiting []string
	for _, n := range []string{"a", "b", "c"} {
		if n != running {
			waiting = append(waiting, n)
		}
	}
	r.cmd(command{kind: cmdServerEnabled, server: waiting[0], on: false})
	r.step(msgAttemptDone{name: running, gen: r.gen(running), err: errors.New("exec format error")})
	if index(r.out, isStart(waiting[0])) >= 0 {
		t.Fatalf("a stopped start was spawned: %s", kinds(r.out))
	}
	if index(r.out, isStart(waiting[1])) < 0 {
		t.Fatalf("the failed attempt's turn did not pass on: %s", kinds(r.out))
	}
}

// With NoAutoReconnect a failure schedules no retry, whatever the
// server's own policy says.
func TestNoAutoReconnect(t *testing.T) {
	t.Parallel()
	r := machineOf(t, plainServer("a"))
	r.m.noRetry = true
	r.cmd(command{kind: cmdSetEnabled, on: true})
	r.step(msgAttemptDone{name: "a", gen: r.gen("a"), err: errors.New("connection refused")})
	r.wantState("a", StateFailed)
	if index(r.out, func(e effect) bool { _, ok := e.(effRetry); return ok }) >= 0 {
		t.Fatalf("a retry was scheduled: %s", kinds(r.out))
	}
}
