package proc

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

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
		state, pg, ok := procStat(pid)
		if ok && pg == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// procStat reads the state and process group of pid from /proc/<pid>/stat.
// ok is false when the process vanished or the file cannot be parsed.
func procStat(pid int) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// "pid (comm) state ppid pgrp ...": comm may contain spaces and
	// parentheses, so parse from the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err = strconv.Atoi(string(f[2]))
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pgrp, true
}
