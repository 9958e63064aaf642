//go:build !unix && !windows

package proc

import (
	"errors"
	"syscall"
)

// Without Unix process groups or Windows jobs, only the direct child can be
// stopped: SIGTERM is skipped and SIGKILL kills the child alone.

type platform struct{}

func sysProcAttr() *syscall.SysProcAttr { return nil }

func platformInit() {}

func (p *Process) attach() error { return nil }
func (p *Process) detach(bool)   {}

func (p *Process) signalGroup(sig syscall.Signal) error {
	if sig != syscall.SIGKILL {
		return errors.ErrUnsupported
	}
	return p.cmd.Process.Kill()
}

func (p *Process) groupGone() bool { return true }

// GroupAlive cannot tell on this platform and answers false.
func GroupAlive(pid int) bool { return false }

// WatchdogErr is always nil here: there is no watchdog on this platform.
func WatchdogErr() error { return nil }

// WatchdogPid is 0: no watchdog process runs on this platform.
func WatchdogPid() int { return 0 }
