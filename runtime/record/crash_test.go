//go:build unix

package record

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"mcpdeck/runtime"
)

// TestCrashLeavesAValidFile SIGKILLs a process while it records a demo
// server that logs every 2 ms: the file reads back without error up to
// its last complete line, with the session's opening and its log lines.
func TestCrashLeavesAValidFile(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/crash.jsonl"
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envCrash+"="+path, "GORACE=atexit_sleep_ms=0")
	// The child and its demo server share a process group we can clear.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	said := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		said <- line
	}()
	select {
	case line := <-said:
		if strings.TrimSpace(line) != "recording" {
			t.Fatalf("the child said %q", line)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the child never started recording")
	}
	// Killed while the demo server keeps logging into it.
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	rec, err := ReadFile(path)
	if err != nil {
		t.Fatalf("a killed recorder's file does not read: %v", err)
	}
	if rec.Header.MCPDeck != "crash-test" {
		t.Errorf("header: %+v", rec.Header)
	}
	logs, ready := 0, false
	for _, e := range rec.Entries {
		switch ev := e.Event.(type) {
		case runtime.LogMessage:
			logs++
		case runtime.StateChanged:
			ready = ready || ev.To == runtime.StateReady
		case Unknown:
			t.Errorf("line %d did not decode: %s", e.Seq, ev.Raw)
		}
	}
	if !ready || logs == 0 {
		t.Errorf("the file lacks the session: ready=%v, %d log lines of %d entries", ready, logs, len(rec.Entries))
	}
	t.Logf("%d entries, %d log lines, truncated=%v", len(rec.Entries), logs, rec.Truncated)
}
