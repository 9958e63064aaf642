package proc

import (
	"fmt"
	"strings"
	"time"
)

// Leftover is a process a server left running when it exited: a member of
// its process group (Windows: its job) still alive after the server itself
// was reaped, or, on Linux, a descendant that had moved to a process group
// of its own. Stop observes leftovers before it clears the group, so they
// are the server's doing, not something mcpdeck's own stop sequence left.
type Leftover struct {
	// Pid is the process id; 0 when the platform can tell that members
	// remain but not which (Unixes other than Linux and macOS).
	Pid int `json:"pid"`
	// Command is its command line as far as the platform shows it (Linux
	// and macOS: the arguments; Windows: the executable's path), cut to
	// maxCommandBytes.
	Command string `json:"command"`
	// LeftGroup: it had left the server's process group (setsid, a
	// daemonising fork), so the group kill does not reach it and it keeps
	// running after Stop.
	LeftGroup bool `json:"leftGroup,omitempty"`
}

// String renders the leftover for a reason: "pid 4242 (sleep 3600)".
func (l Leftover) String() string {
	if l.Pid == 0 {
		return l.Command
	}
	if l.Command == "" {
		return fmt.Sprintf("pid %d", l.Pid)
	}
	return fmt.Sprintf("pid %d (%s)", l.Pid, l.Command)
}

// leftoverSettle bounds how long Stop lets a server's group empty by itself
// after the server exited before it counts the rest as leftovers: a child
// that exits on the same stdin EOF may trail its parent by a moment.
const leftoverSettle = 500 * time.Millisecond

// maxCommandBytes bounds a leftover's command line.
const maxCommandBytes = 300

// procEntry identifies one process across pid reuse: its pid, its start
// time (clock ticks since boot on Linux) and the group it was in.
type procEntry struct {
	pid   int
	start uint64
	pgrp  int
}

// leftovers waits up to settle for the server's group, and the descendants
// in tree, to be gone, then reports whatever still runs. It is called once
// the server (the group's leader) has been reaped, and only reads: the
// group is cleared afterwards, as before.
func (p *Process) leftovers(tree []procEntry, settle time.Duration) []Leftover {
	var strays []procEntry
	gone := func() bool {
		strays = strays[:0]
		for _, e := range tree {
			if e.pgrp != p.pid && e.alive() {
				strays = append(strays, e)
			}
		}
		return len(strays) == 0 && p.groupGone()
	}
	if !gone() {
		deadline := time.NewTimer(settle)
		defer deadline.Stop()
		tick := time.NewTicker(groupPoll) // there is no event for a group emptying
		defer tick.Stop()
		for waiting := true; waiting && !gone(); {
			select {
			case <-deadline.C:
				waiting = false
			case <-tick.C:
			}
		}
	}
	if gone() {
		return nil
	}
	out := p.members()
	for _, e := range strays {
		out = append(out, Leftover{Pid: e.pid, Command: commandLine(e.pid), LeftGroup: true})
	}
	return out
}

// cutCommand makes one line of a command line, at most maxCommandBytes.
func cutCommand(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxCommandBytes {
		s = cutUTF8(s, maxCommandBytes) + "…"
	}
	return s
}
