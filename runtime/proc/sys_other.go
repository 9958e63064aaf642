//go:build !unix

package proc

import (
	"errors"
	"syscall"
)

// Without Unix process groups, only the direct child can be stopped: SIGTERM
// is skipped and SIGKILL kills the child alone.

func sysProcAttr() *syscall.SysProcAttr { return nil }

func (p *Process) signalGroup(sig syscall.Signal) error {
	if sig != syscall.SIGKILL {
		return errors.ErrUnsupported
	}
	return p.cmd.Process.Kill()
}

func (p *Process) groupGone() bool { return true }
