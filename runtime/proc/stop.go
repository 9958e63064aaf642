package proc

import (
	"fmt"
	"syscall"
	"time"
)

// StopStep is the step of the stop sequence that ended the process, in the
// order the sequence escalates.
type StopStep int

// The steps of Stop, in escalation order.
const (
	// StepExited means the process had already exited before Stop.
	StepExited StopStep = iota + 1
	// StepStdinClose means the process exited after its stdin was closed.
	StepStdinClose
	// StepSIGTERM means the process exited after SIGTERM to its group.
	StepSIGTERM
	// StepSIGKILL means the process had to be killed with SIGKILL.
	StepSIGKILL
)

// String returns the step as shown to users.
// MarshalText writes the step's name, so JSON output stays readable.
func (s StopStep) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a step's name (recordings, JSON round trips).
func (s *StopStep) UnmarshalText(b []byte) error {
	for step := StepExited; step <= StepSIGKILL; step++ {
		if step.String() == string(b) {
			*s = step
			return nil
		}
	}
	return fmt.Errorf("unknown stop step %q", b)
}

func (s StopStep) String() string {
	switch s {
	case StepExited:
		return "already exited"
	case StepStdinClose:
		return "stdin closed"
	case StepSIGTERM:
		return "SIGTERM"
	case StepSIGKILL:
		return "SIGKILL"
	default:
		return fmt.Sprintf("StopStep(%d)", int(s))
	}
}

// StopResult reports how Stop ended the process.
type StopResult struct {
	// Step is the step that ended the process (the leader of the group).
	Step StopStep
	// Exit is what Exit reports: nil for status 0, else usually an *ExitError.
	Exit error
	// Elapsed is how long the first Stop call took.
	Elapsed time.Duration
	// Err is nil when the process and its whole group are gone; it wraps
	// ErrUnresponsive when something survived SIGKILL past the kill deadline.
	Err error
	// Leftovers are the processes still running once the server itself had
	// exited (after stdin closed, after SIGTERM, or before Stop), observed
	// before Stop cleared the group: what the server left behind, which a
	// client without mcpdeck's group kill would leave running. Empty when
	// only SIGKILL ended the server, which takes its group with it.
	Leftovers []Leftover
}

// groupPoll is how often Stop checks whether a process group is empty. There
// is no event for "the last member of a group is gone" short of being its
// parent, so Stop polls, always within a deadline.
const groupPoll = 10 * time.Millisecond

// Stop ends the process and every member of its process group: close stdin →
// Grace → SIGTERM to the group → Grace → SIGKILL to the group → reap. Once the
// process itself is gone (and unless SIGKILL was needed) Stop observes what it
// left running, as StopResult.Leftovers, before it clears the group: leftover
// group members get SIGTERM, then SIGKILL after Grace. Stop blocks until the
// process is reaped and its group is empty, then releases the pipes. It is
// idempotent and safe to call concurrently: every call returns the result of
// the first.
func (p *Process) Stop() StopResult {
	p.stopOnce.Do(func() { p.stopResult = p.stop() })
	return p.stopResult
}

func (p *Process) stop() StopResult {
	start := time.Now()
	grace := p.spec.Grace
	res := StopResult{Step: StepExited}
	termSent, killSent := false, false

	var tree []procEntry
	select {
	case <-p.reaped:
	default:
		// The tree below the server, while it still leads it: once the
		// server exits, a descendant that left its group is just an orphan.
		tree = descendants(p.pid)
		res.Step = StepStdinClose
		p.stdin.Close()
		if !p.waitReaped(grace) {
			res.Step = StepSIGTERM
			termSent = p.signalGroup(syscall.SIGTERM) == nil
			if !termSent || !p.waitReaped(grace) {
				res.Step = StepSIGKILL
				p.signalGroup(syscall.SIGKILL)
				killSent = true
				if !p.waitReaped(killWait) {
					res.Err = fmt.Errorf("stopping %q (pid %d): still running %s after SIGKILL: %w", p.name, p.pid, killWait, ErrUnresponsive)
				}
			}
		}
	}
	p.stdin.Close() // releases the fd when the process exited by itself

	if res.Err == nil && !killSent {
		res.Leftovers = p.leftovers(tree, min(grace, leftoverSettle))
	}
	if res.Err == nil {
		res.Err = p.clearGroup(grace, termSent, killSent)
		<-p.done // bounded by drainWait after reaped
	}
	res.Exit = p.Exit()
	p.release()
	p.detach(res.Err == nil)
	res.Elapsed = time.Since(start)
	return res
}

// clearGroup makes sure no member of the process group survives the leader:
// a server's own children inherit its group and may ignore the leader's exit.
func (p *Process) clearGroup(grace time.Duration, termSent, killSent bool) error {
	if p.groupGone() {
		return nil
	}
	if !killSent {
		if !termSent {
			p.signalGroup(syscall.SIGTERM)
		}
		if p.waitGroupGone(grace) {
			return nil
		}
	}
	p.signalGroup(syscall.SIGKILL)
	if p.waitGroupGone(killWait) {
		return nil
	}
	return fmt.Errorf("stopping %q: process group %d still has members %s after SIGKILL: %w", p.name, p.pid, killWait, ErrUnresponsive)
}

// release closes the pipes once nothing can write to them any more, and waits
// for the drain goroutine so that Stop leaves no goroutine behind.
func (p *Process) release() {
	p.stdout.Close()
	// Normally the drain already saw EOF; a process that escaped the group
	// (setsid) may still hold stderr, and closing the read end unblocks the
	// drain regardless.
	linger := time.NewTimer(drainLinger)
	select {
	case <-p.drainDone:
	case <-linger.C:
	}
	linger.Stop()
	p.stderr.Close()
	<-p.drainDone
}

// waitReaped reports whether the process was reaped within d.
func (p *Process) waitReaped(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.reaped:
		return true
	case <-t.C:
		return false
	}
}

// waitGroupGone reports whether the process group became empty within d.
func (p *Process) waitGroupGone(d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(groupPoll)
	defer tick.Stop()
	for {
		if p.groupGone() {
			return true
		}
		select {
		case <-deadline.C:
			return p.groupGone()
		case <-tick.C:
		}
	}
}
