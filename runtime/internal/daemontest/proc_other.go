//go:build !linux

package daemontest

import "os/exec"

// dieWithParent does nothing where there is no parent-death signal: the
// test's cleanup stops the server.
func dieWithParent(*exec.Cmd) {}
