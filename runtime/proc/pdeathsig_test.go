//go:build linux

package proc

import (
	"bufio"
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// sysPidfdOpen is pidfd_open(2); the number is the same on every Linux
// architecture, and package syscall does not name it.
const sysPidfdOpen = 434

// waitPidExit blocks until pid has exited (zombie or gone) or d passes. It
// waits on a pidfd, which becomes readable when the process exits, so the test
// waits on an event rather than polling.
func waitPidExit(pid int, d time.Duration) (bool, error) {
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if errno == syscall.ESRCH {
		return true, nil
	}
	if errno != 0 {
		return false, errno
	}
	defer syscall.Close(int(fd))
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return false, err
	}
	defer syscall.Close(ep)
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(fd)}
	if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, int(fd), &ev); err != nil {
		return false, err
	}
	deadline := time.Now().Add(d)
	events := make([]syscall.EpollEvent, 1)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return false, nil
		}
		n, err := syscall.EpollWait(ep, events, int(left/time.Millisecond)+1)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return false, err
		}
		if n > 0 {
			return true, nil
		}
	}
}

// middleProcess is the test binary standing in for mcpdeck: it starts
// children through Start, reports them on stdout, and is then killed with
// SIGKILL, so it runs no cleanup at all.
type middleProcess struct {
	cmd    *exec.Cmd
	out    *bufio.Reader
	killed bool
}

func startMiddle(t *testing.T, mode string) *middleProcess {
	t.Helper()
	m := &middleProcess{cmd: exec.Command(self())}
	m.cmd.Env = childEnv(mode)
	out, err := m.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.cmd.Start(); err != nil {
		t.Fatalf("starting the middle process: %v", err)
	}
	t.Cleanup(func() {
		if !m.killed {
			m.cmd.Process.Kill()
			m.cmd.Wait()
		}
	})
	m.out = bufio.NewReader(out)
	return m
}

// scan reads the middle process's next line as format says.
func (m *middleProcess) scan(t *testing.T, what, format string, args ...any) {
	t.Helper()
	line := readLine(t, m.out)
	if _, err := fmt.Sscanf(line, format, args...); err != nil {
		t.Fatalf("middle process said %q, want %s", line, what)
	}
}

// kill SIGKILLs the middle process and reaps it.
func (m *middleProcess) kill(t *testing.T) {
	t.Helper()
	if err := m.cmd.Process.Kill(); err != nil {
		t.Fatalf("killing the middle process: %v", err)
	}
	m.cmd.Wait()
	m.killed = true
}

// waitGone waits for each of pids to exit after the middle process died.
func waitGone(t *testing.T, why string, pids ...int) {
	t.Helper()
	for _, pid := range pids {
		gone, err := waitPidExit(pid, testDeadline)
		if err != nil {
			t.Fatalf("waiting for %d: %v", pid, err)
		}
		if !gone {
			t.Fatalf("process %d outlived its SIGKILLed parent by %v: %s", pid, testDeadline, why)
		}
	}
}

// TestParentDeathKillsChild kills a middle process with SIGKILL, so it runs
// no cleanup at all; the child it started through Start must die anyway.
func TestParentDeathKillsChild(t *testing.T) {
	m := startMiddle(t, "middle")
	var child int
	m.scan(t, "the child's pid", "%d", &child)
	t.Cleanup(func() {
		if alive(child) {
			syscall.Kill(child, syscall.SIGKILL)
		}
	})
	if !alive(child) {
		t.Fatalf("child %d is not running before its parent dies", child)
	}
	m.kill(t)
	waitGone(t, "no parent-death signal", child)
}

// startServerWithGrandchild has the middle process start a server whose
// own child (same process group) ignores SIGTERM, and returns both pids.
func startServerWithGrandchild(t *testing.T, m *middleProcess) (server, gc int) {
	t.Helper()
	m.scan(t, "the server's and the grandchild's pids", "%d gc %d", &server, &gc)
	t.Cleanup(func() {
		syscall.Kill(-server, syscall.SIGKILL)
		reapGroup(server)
	})
	if st, ok := readProcStat(gc); !ok || st.pgrp != server {
		t.Fatalf("grandchild %d is not in the server's group %d: %+v", gc, server, st)
	}
	return server, gc
}

// TestKilledParentTakesGrandchildren is the case the parent-death signal
// misses: a server whose own child (same process group) ignores SIGTERM.
// The middle process (standing in for mcpdeck) starts the server through
// Start and is then SIGKILLed, running no cleanup; the watchdog must kill
// the server's whole group, grandchild included.
func TestKilledParentTakesGrandchildren(t *testing.T) {
	m := startMiddle(t, "middle-gc")
	server, gc := startServerWithGrandchild(t, m)
	m.kill(t)
	waitGone(t, "the watchdog did not kill the server's group", server, gc)
	if groupHasLiveMember(server) {
		t.Fatalf("process group %d still has a live member", server)
	}
}

// TestKilledWatchdogIsReplaced: the watchdog is killed first (SIGKILL, as
// an OOM killer or a careless pkill would), then mcpdeck. mcpdeck notices
// the watchdog's death, starts a new one with every group still
// registered, and that one kills the server's group, grandchild included,
// when mcpdeck is killed in turn. Without the replacement the grandchild
// outlived both.
func TestKilledWatchdogIsReplaced(t *testing.T) {
	m := startMiddle(t, "middle-wd")
	server, gc := startServerWithGrandchild(t, m)
	var wd, next int
	m.scan(t, "its watchdog's pid", "watchdog %d", &wd)
	if err := syscall.Kill(wd, syscall.SIGKILL); err != nil {
		t.Fatalf("killing the watchdog %d: %v", wd, err)
	}
	m.scan(t, "a new watchdog's pid", "restarted %d", &next)
	if next == wd || !alive(next) {
		t.Fatalf("the new watchdog %d (the old one was %d) is not running", next, wd)
	}
	m.kill(t)
	waitGone(t, "its first watchdog was killed and not replaced", server, gc, next)
}

// TestPrepareStartsTheWatchdogAlone: Prepare, which a command calls before
// loading its state so that the watchdog's spawn overlaps it, starts a
// watchdog of this process without any Start; the watchdog ends when this
// process dies, as the one a Start spawns does.
func TestPrepareStartsTheWatchdogAlone(t *testing.T) {
	m := startMiddle(t, "prepared")
	var wd int
	m.scan(t, "its watchdog's pid", "watchdog %d", &wd)
	if st, ok := readProcStat(wd); !ok || st.ppid != m.cmd.Process.Pid {
		t.Fatalf("watchdog %d is not a running child of the middle process %d: %+v", wd, m.cmd.Process.Pid, st)
	}
	m.kill(t)
	waitGone(t, "the watchdog outlived the process it watched", wd)
}
