package jsonrpctest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// spawnSleeper starts the Grandchild mode's grandchild: this binary again, in Sleeper
// mode, in our process group (no Setpgid), so only a supervisor that signals the whole
// group gets rid of it. It inherits our stderr, as real wrapper scripts' children do,
// so a supervisor that kills only its direct child also never sees stderr close.
// spawnSleeper returns once the sleeper reports that it ignores SIGTERM.
func spawnSleeper() (int, error) {
	path, args, env := Command(Sleeper)
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.Stderr = os.Stderr
	ready, err := cmd.StdoutPipe()
	if err != nil {
		return 0, fmt.Errorf("spawning the grandchild: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("spawning the grandchild %s: %w", path, err)
	}
	if _, err := bufio.NewReader(ready).ReadString('\n'); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return 0, fmt.Errorf("waiting for the grandchild %d to start: %w", cmd.Process.Pid, err)
	}
	// Reap it if it dies first, so a killed grandchild does not linger as a zombie of ours.
	go func() { _ = cmd.Wait() }()
	return cmd.Process.Pid, nil
}

// WaitGone waits until ProcessGone(pid), checking every 10 ms, and fails the test if
// the process is still alive after d.
func WaitGone(t testing.TB, pid int, d time.Duration) {
	t.Helper()
	if pid < 1 {
		t.Fatalf("WaitGone: pid %d names no process; pass the pid of the process that must exit", pid)
		return
	}
	if ProcessGone(pid) {
		return
	}
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if ProcessGone(pid) {
				return
			}
		case <-deadline.C:
			if ProcessGone(pid) {
				return
			}
			t.Fatalf("process %d is still running %v later: it should have been stopped (was its whole process group signalled?)", pid, d)
			return
		}
	}
}

// OwnGroup makes cmd lead a new process group (Unix), so KillGroup reaches
// the processes it starts too; tests that start a peer by hand use it to
// build on every platform .ci/run vets.
func OwnGroup(cmd *exec.Cmd) { ownGroup(cmd) }

// KillGroup kills the process group p leads (Unix), or p (Windows).
func KillGroup(p *os.Process) { killGroup(p) }
