package proc

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// subreaper makes this process a child subreaper once, at the first Start:
// a server's children orphaned by its exit are then reparented to mcpdeck
// instead of init, so they stay visible as members of their group (whose
// id therefore cannot be reused under the watchdog) and Stop reaps them
// itself rather than relying on a PID 1 that may never reap (containers).
var subreaper sync.Once

func platformInit() {
	// The subreaper is set once the watchdog runs (see startSupervision);
	// the watchdog is a direct child, which the adopted-orphan reaper
	// below never reaps (it reaps only server groups).
	startSupervision(func() {
		subreaper.Do(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
	})
}

// adopted reaps, while any server runs, the members of server groups that
// were orphaned (reparented to mcpdeck, the subreaper) and have exited:
// without it a long session would collect their zombies until each
// server's Stop. It runs on SIGCHLD, in one goroutine that exists only
// while at least one server group is registered.
var adopted struct {
	mu     sync.Mutex
	groups map[int]bool // registered server groups
	stop   chan struct{}
	done   chan struct{}
}

// adopt registers group pgid for reaping, starting the reaper with the
// first one.
func adopt(pgid int) {
	adopted.mu.Lock()
	defer adopted.mu.Unlock()
	if adopted.groups == nil {
		adopted.groups = map[int]bool{}
	}
	adopted.groups[pgid] = true
	if len(adopted.groups) > 1 {
		return
	}
	adopted.stop, adopted.done = make(chan struct{}), make(chan struct{})
	sigchld := make(chan os.Signal, 1)
	signal.Notify(sigchld, syscall.SIGCHLD)
	go func(stop, done chan struct{}) {
		defer close(done)
		defer signal.Stop(sigchld)
		for {
			select {
			case <-sigchld:
				adopted.mu.Lock()
				groups := maps.Clone(adopted.groups)
				adopted.mu.Unlock()
				reapGroups(groups)
				checkWatchdog() // a dead watchdog is a SIGCHLD too
			case <-stop:
				return
			}
		}
	}(adopted.stop, adopted.done)
}

// disown unregisters group pgid, stopping the reaper with the last one.
func disown(pgid int) {
	adopted.mu.Lock()
	if !adopted.groups[pgid] {
		adopted.mu.Unlock()
		return
	}
	delete(adopted.groups, pgid)
	var stop, done chan struct{}
	if len(adopted.groups) == 0 {
		stop, done = adopted.stop, adopted.done
	}
	adopted.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
}

// reapGroup reaps the zombies of group pgid that were reparented to us as
// subreaper. It is called once the group's leader is reaped (os/exec's
// to reap) and no live member is left: every child of ours left in the
// group is then an adopted orphan on its way out, and a wait on the group
// reaps them without scanning /proc and without touching any other
// server's leader. A multi-threaded process (any Go or Node program)
// killed with its group shows as a zombie before its other threads have
// exited, and cannot be reaped until they have: reapGroup waits for that,
// at most reapWait, so that the group id is free when Stop returns — a
// check right after Stop saw the group still there (kill(-pgid, 0)
// succeeds on a zombie) in about one run in ten under load.
func reapGroup(pgid int) {
	var deadline time.Time
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil)
		switch {
		case err != nil: // ECHILD: no child of ours left in the group
			return
		case pid > 0:
			continue
		case deadline.IsZero():
			deadline = time.Now().Add(reapWait)
		case time.Now().After(deadline):
			return
		}
		time.Sleep(time.Millisecond) // no event says a zombie became reapable but SIGCHLD, which the reaper owns
	}
}

// reapWait bounds how long reapGroup waits for a dying child of ours to
// become reapable.
const reapWait = 250 * time.Millisecond

// reapGroups reaps our zombie children that belong to one of groups and
// do not lead it. A group kill(2) finds empty (ESRCH: not even a zombie
// left) has nothing to reap: when every group is, as when a server's
// leader has just exited alone and been reaped, /proc is not scanned.
func reapGroups(groups map[int]bool) {
	live := false
	for pgid := range groups {
		if !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
			live = true
			break
		}
	}
	if !live {
		return
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || groups[pid] {
			continue // not a process, or a group leader (os/exec reaps those)
		}
		if st, ok := readProcStat(pid); ok && groups[st.pgrp] && st.ppid == self && st.state == 'Z' {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		}
	}
}

// sysProcAttr puts the child in a new process group (so Stop can signal it
// and its descendants as a unit) and asks the kernel to SIGKILL it when its
// parent dies, so no server outlives a killed mcpdeck.
//
// Pdeathsig fires when the thread that forked the child exits, not the
// process. The Go runtime never retires its threads except when a goroutine
// exits while locked to its thread (runtime.LockOSThread without Unlock), so
// callers must not call Start from such a goroutine. Grandchildren do not
// inherit the parent-death signal; they die with mcpdeck through Stop only.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// groupHasLiveMember scans /proc for a member of group pgid that is not a
// zombie. kill(-pgid, 0) alone is not enough: grandchildren orphaned by the
// leader are reparented to PID 1 (or a subreaper), and a PID 1 that does not
// reap (common in containers and micro-VMs) leaves them as zombies that still
// count as group members for kill. A zombie runs no code and holds no pipe,
// so a group made only of zombies is gone as far as mcpdeck is concerned.
func groupHasLiveMember(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		// Without /proc, trust kill(2): the group is not known to be gone.
		return true
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, ok := readProcStat(pid)
		if ok && st.pgrp == pgid && st.state != 'Z' && st.state != 'X' {
			return true
		}
	}
	return false
}

// procStat is what /proc/<pid>/stat says about a process.
type procStat struct {
	state      byte
	ppid, pgrp int
	start      uint64 // starttime: clock ticks after boot; tells a reused pid apart
}

// readProcStat reads /proc/<pid>/stat. ok is false when the process
// vanished or the file cannot be parsed.
func readProcStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// "pid (comm) state ppid pgrp ...": comm may contain spaces and
	// parentheses, so parse from the last ')'. starttime is field 22 of the
	// line, the 20th after comm.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pgrp, err2 := strconv.Atoi(string(f[2]))
	start, err3 := strconv.ParseUint(string(f[19]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return procStat{}, false
	}
	return procStat{state: f[0][0], ppid: ppid, pgrp: pgrp, start: start}, true
}
