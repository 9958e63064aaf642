//go:build !linux

package otelcoltest

import "os/exec"

// dieWithParent does nothing where there is no parent-death signal: the
// test's cleanup stops the collector.
func dieWithParent(*exec.Cmd) {}
