//go:build unix && !linux && !darwin

package proc

import (
	"errors"
	"strconv"
	"syscall"
)

// On the other Unixes mcpdeck can tell that the server's process group
// still has members (kill(-pgid, 0)) but not which: the leftover names the
// group, with pid 0.

func descendants(int) []procEntry { return nil }

func (procEntry) alive() bool { return false }

func (p *Process) members() []Leftover {
	if errors.Is(syscall.Kill(-p.pid, 0), syscall.ESRCH) {
		return nil
	}
	return []Leftover{{Command: "members of process group " + strconv.Itoa(p.pid) + " (this platform cannot name them; ps -g " + strconv.Itoa(p.pid) + " does)"}}
}

func commandLine(int) string { return "" }
