//go:build unix

package proc

import (
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The watchdog script kills, at EOF, exactly the groups still registered:
// a group unregistered before (its server stopped) is left alone, whatever
// its position in the list.
func TestWatchdogScriptKillsOnlyRegisteredGroups(t *testing.T) {
	start := func() *exec.Cmd {
		c := exec.Command("sleep", "60")
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
		return c
	}
	a, b, c := start(), start(), start()
	in := fmt.Sprintf("+%d\n+%d\n+%d\nnoise\n+0x1\n-%d\n", a.Process.Pid, b.Process.Pid, c.Process.Pid, b.Process.Pid)
	sh := exec.Command("/bin/sh", "-c", watchdogScript, "mcpdeck-watchdog")
	sh.Stdin = strings.NewReader(in)
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("the watchdog script failed: %v\n%s", err, out)
	}
	for _, k := range []*exec.Cmd{a, c} {
		done := make(chan error, 1)
		go func() { done <- k.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("registered group %d was not killed", k.Process.Pid)
		}
	}
	if err := syscall.Kill(b.Process.Pid, 0); err != nil {
		t.Fatalf("unregistered group %d was killed: %v", b.Process.Pid, err)
	}
}
