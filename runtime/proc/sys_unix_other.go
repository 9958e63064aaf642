//go:build unix && !linux

package proc

import "syscall"

// sysProcAttr puts the child in a new process group so Stop can signal it and
// its descendants as a unit. Only Linux has a parent-death signal; elsewhere
// the watchdog alone kills the group of an mcpdeck that dies without running
// Stop, a moment after it died.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// groupHasLiveMember is only asked after kill(-pgid, 0) found members. Without
// a portable process table, zombies cannot be told apart, so every member
// counts as live.
func groupHasLiveMember(pgid int) bool { return true }

func platformInit() { startSupervision(func() {}) }

// Without a subreaper nothing is adopted: init reaps orphans.
func adopt(int)  {}
func disown(int) {}

// reapGroup has nothing to do without a subreaper: orphaned members belong
// to init, which reaps them.
func reapGroup(pgid int) {}
