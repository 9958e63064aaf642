//go:build unix

package suite

import (
	"os"
	"syscall"
)

// ownGroup starts a peer in a process group of its own, so killGroup
// reaches what it starts too.
func ownGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func killGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }
