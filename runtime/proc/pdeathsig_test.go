//go:build linux

package proc

import (
	"bufio"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
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

// TestParentDeathKillsChild kills a middle process with SIGKILL, so it runs
// no cleanup at all; the child it started through Start must die anyway.
func TestParentDeathKillsChild(t *testing.T) {
	middle := exec.Command(self())
	middle.Env = childEnv("middle")
	out, err := middle.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := middle.Start(); err != nil {
		t.Fatalf("starting the middle process: %v", err)
	}
	reaped := false
	t.Cleanup(func() {
		if !reaped {
			middle.Process.Kill()
			middle.Wait()
		}
	})
	line := readLine(t, bufio.NewReader(out))
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("middle process said %q, want the child's pid", line)
	}
	t.Cleanup(func() {
		if alive(child) {
			syscall.Kill(child, syscall.SIGKILL)
		}
	})
	if !alive(child) {
		t.Fatalf("child %d is not running before its parent dies", child)
	}

	if err := middle.Process.Kill(); err != nil {
		t.Fatalf("killing the middle process: %v", err)
	}
	middle.Wait()
	reaped = true

	gone, err := waitPidExit(child, testDeadline)
	if err != nil {
		t.Fatalf("waiting for child %d: %v", child, err)
	}
	if !gone {
		t.Fatalf("child %d outlived its SIGKILLed parent by %v: no parent-death signal", child, testDeadline)
	}
}

// TestKilledParentTakesGrandchildren is the case the parent-death signal
// misses: a server whose own child (same process group) ignores SIGTERM.
// The middle process (standing in for mcpdeck) starts the server through
// Start and is then SIGKILLed, running no cleanup; the watchdog must kill
// the server's whole group, grandchild included.
func TestKilledParentTakesGrandchildren(t *testing.T) {
	middle := exec.Command(self())
	middle.Env = childEnv("middle-gc")
	out, err := middle.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := middle.Start(); err != nil {
		t.Fatalf("starting the middle process: %v", err)
	}
	reaped := false
	t.Cleanup(func() {
		if !reaped {
			middle.Process.Kill()
			middle.Wait()
		}
	})
	line := readLine(t, bufio.NewReader(out))
	var server, gc int
	if _, err := fmt.Sscanf(line, "%d gc %d", &server, &gc); err != nil {
		t.Fatalf("middle process said %q, want the server's and the grandchild's pids", line)
	}
	t.Cleanup(func() {
		syscall.Kill(-server, syscall.SIGKILL)
		reapGroup(server)
	})
	if st, ok := readProcStat(gc); !ok || st.pgrp != server {
		t.Fatalf("grandchild %d is not in the server's group %d: %+v", gc, server, st)
	}

	if err := middle.Process.Kill(); err != nil {
		t.Fatalf("killing the middle process: %v", err)
	}
	middle.Wait()
	reaped = true

	for _, pid := range []int{server, gc} {
		gone, err := waitPidExit(pid, testDeadline)
		if err != nil {
			t.Fatalf("waiting for %d: %v", pid, err)
		}
		if !gone {
			t.Fatalf("process %d of the server's group outlived its SIGKILLed mcpdeck by %v", pid, testDeadline)
		}
	}
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
	middle := exec.Command(self())
	middle.Env = childEnv("middle-wd")
	out, err := middle.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := middle.Start(); err != nil {
		t.Fatalf("starting the middle process: %v", err)
	}
	reaped := false
	t.Cleanup(func() {
		if !reaped {
			middle.Process.Kill()
			middle.Wait()
		}
	})
	r := bufio.NewReader(out)
	var server, gc, wd int
	if line := readLine(t, r); func() bool { _, err := fmt.Sscanf(line, "%d gc %d", &server, &gc); return err != nil }() {
		t.Fatalf("middle process said %q, want the server's and the grandchild's pids", line)
	}
	t.Cleanup(func() {
		syscall.Kill(-server, syscall.SIGKILL)
		reapGroup(server)
	})
	if line := readLine(t, r); func() bool { _, err := fmt.Sscanf(line, "watchdog %d", &wd); return err != nil || wd == 0 }() {
		t.Fatalf("middle process said %q, want its watchdog's pid", line)
	}
	if err := syscall.Kill(wd, syscall.SIGKILL); err != nil {
		t.Fatalf("killing the watchdog %d: %v", wd, err)
	}
	var next int
	if line := readLine(t, r); func() bool { _, err := fmt.Sscanf(line, "restarted %d", &next); return err != nil }() {
		t.Fatalf("middle process said %q, want a new watchdog's pid", line)
	}
	if next == wd || !alive(next) {
		t.Fatalf("the new watchdog %d (the old one was %d) is not running", next, wd)
	}

	if err := middle.Process.Kill(); err != nil {
		t.Fatalf("killing the middle process: %v", err)
	}
	middle.Wait()
	reaped = true
	for _, pid := range []int{server, gc, next} {
		gone, err := waitPidExit(pid, testDeadline)
		if err != nil {
			t.Fatalf("waiting for %d: %v", pid, err)
		}
		if !gone {
			t.Fatalf("process %d outlived its SIGKILLed mcpdeck (whose first watchdog was killed) by %v", pid, testDeadline)
		}
	}
}
