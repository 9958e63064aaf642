//go:build linux

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// A watch whose stdout is a pipe nobody reads (a paused pager: mcpdeck
// watch | less, then stop scrolling), with a server flooding it: ctrl+c
// ends it at once, every server stopped, exit status 0. Before, the
// controller loop waited for the stalled subscriber and the exit for the
// blocked writer, and the watch never ended.
func TestWatchInterruptedWhileStdoutStalls(t *testing.T) {
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "100us")})
	p := startPiped(t, h, "watch")
	for range 3 {
		if _, err := p.lines.ReadString('\n'); err != nil {
			t.Fatalf("reading the first watch lines: %v; stderr:\n%s", err, p.stderr.String())
		}
	}
	// From here on nobody reads. Wait until everything is backed up: mcpdeck
	// blocked writing its stdout, and the demo server blocked writing its
	// own (so mcpdeck's every queue in between is full too).
	server := markedPID(t, h.mark, "demo-server")
	waitBlockedWriting(t, p.cmd.Process.Pid, "mcpdeck")
	waitBlockedWriting(t, server, "the demo server")

	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	exited := make(chan int, 1)
	go func() { exited <- p.exitCode(t) }()
	select {
	case code := <-exited:
		t.Logf("exited %v after ctrl+c, with its stdout full; stderr:\n%s", time.Since(start).Round(time.Millisecond), p.stderr.String())
		if code != ExitOK {
			t.Errorf("exit status %d after ctrl+c, want 0; stderr:\n%s", code, p.stderr.String())
		}
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-exited
		t.Fatalf("watch did not end within 5s of ctrl+c while its stdout was full; stderr:\n%s", p.stderr.String())
	}
	// newHeadless's cleanup fails the test if the demo server outlived it.
}

// markedPID finds the process carrying mark whose command line contains
// what, waiting for it to appear.
func markedPID(t *testing.T, mark, what string) int {
	t.Helper()
	needle := []byte(headlessMarkEnv + "=" + mark)
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		dirs, _ := filepath.Glob("/proc/[0-9]*")
		for _, d := range dirs {
			env, err := os.ReadFile(d + "/environ")
			if err != nil || !bytes.Contains(env, needle) {
				continue
			}
			if cmd, _ := os.ReadFile(d + "/cmdline"); bytes.Contains(cmd, []byte(what)) {
				pid, _ := strconv.Atoi(filepath.Base(d))
				return pid
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no process %q carries the test's mark", what)
		}
		<-tick.C
	}
}

// waitBlockedWriting waits until a thread of pid sleeps in the kernel's
// pipe_write:
// its write to a full pipe is blocked. No event says so; look.
func waitBlockedWriting(t *testing.T, pid int, who string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		chans, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/wchan")
		for _, c := range chans {
			if w, _ := os.ReadFile(c); bytes.HasSuffix(w, []byte("pipe_write")) { // anon_pipe_write on newer kernels
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) is not blocked writing to a pipe after 30s", who, pid)
		}
		<-tick.C
	}
}
