//go:build !unix

package suite

import (
	"os"
	"syscall"
)

// Without process groups the peer alone is killed (the tests that start
// one run on Unix; this keeps the package building everywhere).
func ownGroup() *syscall.SysProcAttr { return nil }

func killGroup(p *os.Process) { _ = p.Kill() }
