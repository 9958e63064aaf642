//go:build !linux

package fleettest

import "os/exec"

// dieWithParent does nothing where there is no parent-death signal: the
// test's cleanup stops Prometheus.
func dieWithParent(*exec.Cmd) {}
