package runtime

import (
	"errors"
	"testing"
)

// A burst of reports stepped with hold publishes once, at flush, with the
// state events of the whole burst; a held step that replies to someone
// publishes first, so the caller finds its result in the snapshot.
func TestMachineHeldReportsPublishOnceAtFlush(t *testing.T) {
	t.Parallel()
	r := machineOf(t, plainServer("a"), plainServer("b"), plainServer("c"))
	r.cmd(command{kind: cmdSetEnabled, on: true})
	r.m.hold = true
	for _, n := range []string{"a", "b"} {
		r.step(msgAttemptState{name: n, gen: r.gen(n), state: StateInitializing})
		if index(r.out, isPublish) >= 0 {
			t.Fatalf("a held report published: %s", kinds(r.out))
		}
	}
	r.m.hold = false
	r.out = r.m.flush(r.now)
	if n := countOf(r.out, isPublish); n != 1 {
		t.Fatalf("flush published %d times: %s", n, kinds(r.out))
	}
	changed := 0
	for _, e := range r.lastView().events {
		if sc, ok := e.(StateChanged); ok && sc.To == StateInitializing {
			changed++
		}
	}
	if changed != 2 {
		t.Fatalf("the publication carries %d of the burst's 2 state changes", changed)
	}
	if r.out = r.m.flush(r.now); len(r.out) != 0 {
		t.Fatalf("a flush with nothing changed did %s", kinds(r.out))
	}

	// c's switch-off waits for its stop; the report of the stop replies,
	// so it publishes even while held.
	off := r.cmd(command{kind: cmdServerEnabled, server: "c", on: false})
	gen := r.closing("c")
	r.m.hold = true
	r.step(msgStopped{name: "c", gen: gen})
	r.wantReply(off, nil)
	pub, rep := index(r.out, isPublish), index(r.out, func(e effect) bool { _, ok := e.(effReply); return ok })
	if pub < 0 || pub > rep {
		t.Fatalf("a held step that replies must publish before its reply: %s", kinds(r.out))
	}
	r.m.hold = false

	// A held failure, too, shows at flush.
	r.m.hold = true
	r.step(msgAttemptDone{name: "a", gen: r.gen("a"), err: errors.New("boom")})
	r.m.hold = false
	r.out = r.m.flush(r.now)
	if index(r.out, isPublish) < 0 {
		t.Fatalf("a held failure was never published: %s", kinds(r.out))
	}
	r.wantState("a", StateFailed)
}
