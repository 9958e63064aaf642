//go:build unix

package jsonrpctest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// ownGroup makes cmd lead a new process group, so killGroup reaches its
// descendants too.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup sends SIGKILL to the process group p leads.
func killGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }

// ProcessGone reports whether pid no longer names a live process: it does not exist
// (kill(pid, 0) fails with ESRCH) or it has exited and waits to be reaped (a zombie,
// per /proc/<pid>/stat), which for a test is just as gone. A pid below 1 names no one
// process, so it is never reported gone.
func ProcessGone(pid int) bool {
	if pid < 1 {
		return false
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		// Gone between the two looks, or no /proc: the next look decides.
		return false
	}
	// The state follows the command name, which is in parentheses and may contain any
	// byte, so look after the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return false
	}
	state := stat[i+2]
	return state == 'Z' || state == 'X'
}
