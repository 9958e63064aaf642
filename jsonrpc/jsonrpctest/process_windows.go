//go:build windows

package jsonrpctest

import (
	"os"
	"os/exec"
)

// The fake servers are for Unix (process groups, signals, /proc); these let
// the package build on Windows, where mcpdeck itself must build.

func ownGroup(*exec.Cmd) {}

func killGroup(p *os.Process) { _ = p.Kill() }

// ProcessGone reports whether pid no longer names a running process.
func ProcessGone(pid int) bool {
	if pid < 1 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	_ = p.Release()
	return false
}
