//go:build linux

package proc

import (
	"bufio"
	"strings"
	"syscall"
	"testing"
)

// wantLeftover fails unless res names exactly the one leftover gc.
func wantLeftover(t *testing.T, res StopResult, gc int, leftGroup bool) {
	t.Helper()
	if len(res.Leftovers) != 1 {
		t.Fatalf("Stop = %+v, want exactly one leftover, pid %d", res, gc)
	}
	l := res.Leftovers[0]
	if l.Pid != gc || l.LeftGroup != leftGroup || !strings.Contains(l.Command, self()) {
		t.Errorf("leftover = %+v (%s), want pid %d, leftGroup %v, a command line naming %s", l, l, gc, leftGroup, self())
	}
}

// A server that leaves its child running when it exits is seen doing so,
// whether it exits when stdin closes or before Stop: Stop names the child
// before it clears the group, and then clears it as before.
func TestStopReportsChildLeftInGroup(t *testing.T) {
	for after, step := range map[string]StopStep{"eof": StepStdinClose, "exit": StepExited} {
		t.Run(after, func(t *testing.T) {
			p := start(t, "spawn", func(s *Spec) {
				s.Grace = shortGrace
				s.Env = append(s.Env, afterEnv+"="+after)
			})
			gc := readGrandchild(t, p)
			if step == StepExited {
				waitDone(t, p)
			}
			res := p.Stop()
			// A loaded machine may not run the server's exit on EOF within
			// shortGrace; it is then stopped with SIGTERM, and what it left
			// must be named all the same.
			late := after == "eof" && res.Step == StepSIGTERM
			if (res.Step != step && !late) || res.Err != nil {
				t.Fatalf("Stop = %+v, want step %v", res, step)
			}
			wantLeftover(t, res, gc, false)
			assertGroupGone(t, p.Pid())
		})
	}
}

// A descendant that left the group (setsid) is found through the process
// tree taken before the stop; the group kill cannot reach it, so it is
// still running afterwards, which the leftover says. The tree is read from
// every thread of the server, not only its main one: a Go or Node server
// forks from whichever thread it is on.
func TestStopReportsDescendantThatLeftTheGroup(t *testing.T) {
	for _, mode := range []string{"spawn-setsid", "spawn-setsid-thread"} {
		t.Run(mode, func(t *testing.T) {
			p := start(t, mode, func(s *Spec) {
				s.Grace = shortGrace
				s.Env = append(s.Env, afterEnv+"=eof")
			})
			gc := readGrandchild(t, p)
			res := p.Stop()
			if res.Err != nil {
				t.Fatalf("Stop = %+v", res)
			}
			wantLeftover(t, res, gc, true)
			if !alive(gc) {
				t.Fatalf("the descendant %d that left the group died with it; the test proves nothing", gc)
			}
			// It is this process's child now (the subreaper): kill and reap it.
			_ = syscall.Kill(gc, syscall.SIGKILL)
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(gc, &ws, 0, nil)
		})
	}
}

// A child that exits on the same stdin EOF a moment after its parent is
// not a leftover, nor is anything of a well-behaved server.
func TestStopReportsNoLeftoverOfTidyServers(t *testing.T) {
	p := start(t, "trail", func(s *Spec) { s.Grace = 2 * leftoverSettle })
	readGrandchild(t, p)
	if res := p.Stop(); res.Err != nil || len(res.Leftovers) != 0 {
		t.Errorf("Stop of a server whose child trails it = %+v, want no leftovers", res)
	}
	q := start(t, "echo", nil)
	if res := q.Stop(); res.Err != nil || len(res.Leftovers) != 0 {
		t.Errorf("Stop of a tidy server = %+v, want no leftovers", res)
	}
}

// When only SIGKILL ended the server, its group died with it: nothing is
// the server's leftover.
func TestStopReportsNoLeftoverAfterSIGKILL(t *testing.T) {
	p := start(t, "spawn-stay", func(s *Spec) {
		s.Grace = shortGrace
		s.Env = append(s.Env, afterEnv+"=stay")
	})
	readGrandchild(t, p)
	if res := p.Stop(); res.Step != StepSIGKILL || len(res.Leftovers) != 0 {
		t.Errorf("Stop = %+v, want SIGKILL and no leftovers", res)
	}
}

func TestLeftoverString(t *testing.T) {
	for l, want := range map[Leftover]string{
		{Pid: 7, Command: "sleep 9"}:            "pid 7 (sleep 9)",
		{Pid: 7}:                                "pid 7",
		{Command: "members of group 7"}:         "members of group 7",
		{Pid: 7, Command: "x", LeftGroup: true}: "pid 7 (x)",
	} {
		if got := l.String(); got != want {
			t.Errorf("%+v.String() = %q, want %q", l, got, want)
		}
	}
	if got := cutCommand(strings.Repeat("é", maxCommandBytes)); len(got) > maxCommandBytes+len("…") || !strings.HasSuffix(got, "…") {
		t.Errorf("cutCommand of a long line = %d bytes", len(got))
	}
}

// BenchmarkDescendants is what Stop now spends reading a server's process
// tree before it asks the server to stop: here a server with one child.
func BenchmarkDescendants(b *testing.B) {
	p, err := Start(Spec{Path: self(), Env: childEnv("spawn-stay", afterEnv+"=stay"), Grace: shortGrace})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Stop()
	line, _ := bufio.NewReader(p.Stdout()).ReadString('\n')
	if !strings.HasPrefix(line, "gc ") {
		b.Fatalf("child said %q", line)
	}
	b.ResetTimer()
	for b.Loop() {
		if len(descendants(p.Pid())) != 1 {
			b.Fatal("the child is not in the tree")
		}
	}
}

// BenchmarkLeftoversOfTidyServer is what Stop now spends looking for
// leftovers once a tidy server has exited: its group is already empty.
func BenchmarkLeftoversOfTidyServer(b *testing.B) {
	p, err := Start(Spec{Path: self(), Env: childEnv("echo")})
	if err != nil {
		b.Fatal(err)
	}
	p.Stop()
	b.ResetTimer()
	for b.Loop() {
		if p.leftovers(nil, leftoverSettle) != nil {
			b.Fatal("leftovers of a tidy server")
		}
	}
}

// BenchmarkReapGoneGroup is what the SIGCHLD reaper spends when the signal
// was a tidy server's leader exiting: its group is empty (kill(-pgid, 0)
// finds no one), so there is nothing to reap and /proc is not scanned.
func BenchmarkReapGoneGroup(b *testing.B) {
	p, err := Start(Spec{Path: self(), Env: childEnv("echo")})
	if err != nil {
		b.Fatal(err)
	}
	p.Stop()
	groups := map[int]bool{p.Pid(): true}
	b.ResetTimer()
	for b.Loop() {
		reapGroups(groups)
	}
}

// BenchmarkStopThreadedServer is the whole stop of a tidy server with
// several threads, from the tree read to its reap: what a one-shot command
// waits for after printing its result.
func BenchmarkStopThreadedServer(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		p, err := Start(Spec{Path: self(), Env: childEnv("threads")})
		if err != nil {
			b.Fatal(err)
		}
		if line, _ := bufio.NewReader(p.Stdout()).ReadString('\n'); line != "ready\n" {
			b.Fatalf("child said %q", line)
		}
		b.StartTimer()
		if res := p.Stop(); res.Step != StepStdinClose || res.Err != nil {
			b.Fatalf("Stop = %+v", res)
		}
	}
}
