//go:build unix

package proc

import (
	"errors"
	"syscall"
)

// The process is started with Setpgid and Pgid 0, so it leads a new group
// whose id is its pid, and signals to -pid reach it and every descendant that
// did not move itself to another group. The group id cannot be recycled while
// any member is alive (the kernel keeps the id in use), so signalling -pid
// after the leader was reaped still reaches only our leftovers.

// platform is the per-process state of the Unix supervision: none beyond
// the process group, which the pid names. Process.plat holds the Windows
// job (sys_windows.go); here it is empty, and so never read.
//
//lint:ignore U1000 the type of Process.plat, which only Windows reads
type platform struct{}

// attach hands the new process group to the watchdog, so it dies with
// mcpdeck however mcpdeck ends.
func (p *Process) attach() error {
	watch(p.pid)
	adopt(p.pid)
	return nil
}

// detach runs after Stop: a group found empty is unregistered and its
// zombie leftovers reaped; one that survived SIGKILL stays registered, so
// the watchdog still kills it when mcpdeck exits.
func (p *Process) detach(gone bool) {
	disown(p.pid)
	if !gone {
		return
	}
	reapGroup(p.pid)
	unwatch(p.pid)
}

// signalGroup sends sig to every member of the process group.
func (p *Process) signalGroup(sig syscall.Signal) error {
	err := syscall.Kill(-p.pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		// Nobody left to signal; the caller's wait will see that at once.
		return nil
	}
	return err
}

// groupGone reports whether no live member of the process group remains.
func (p *Process) groupGone() bool {
	if errors.Is(syscall.Kill(-p.pid, 0), syscall.ESRCH) {
		return true
	}
	return !groupHasLiveMember(p.pid)
}

// GroupAlive reports whether any process of group pgid still exists
// (zombies included), for checks that a stopped server left nothing behind.
func GroupAlive(pgid int) bool {
	err := syscall.Kill(-pgid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
