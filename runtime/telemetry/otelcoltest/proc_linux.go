package otelcoltest

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill the collector when the test binary
// dies, so a killed test run leaves no collector behind.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
