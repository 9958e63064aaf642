//go:build unix

package cli

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// pipedRun starts the built mcpdeck with stdout on a pipe the test
// controls, as a shell pipeline (mcpdeck ... | head) would.
type pipedRun struct {
	cmd    *exec.Cmd
	stdout *os.File // the read end; closing it is what head exiting does
	stderr bytes.Buffer
	lines  *bufio.Reader
}

func startPiped(t *testing.T, h *headless, args ...string) *pipedRun {
	t.Helper()
	cmd, cancel := binCommand(t, time.Minute, append([]string{"--config", h.cfg}, args...)...)
	t.Cleanup(cancel)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &pipedRun{stdout: r, lines: bufio.NewReader(r), cmd: cmd}
	p.cmd.Dir, p.cmd.Env = h.dir, testEnv(t, h.env...)
	p.cmd.Stdout, p.cmd.Stderr = w, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() {
		r.Close()
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
		}
	})
	return p
}

// grandchild reads watch lines until the Grandchild fake reports its
// grandchild's pid on stderr (shown with --stderr).
func (p *pipedRun) grandchild(t *testing.T) int {
	t.Helper()
	for {
		line, err := p.lines.ReadString('\n')
		if err != nil {
			t.Fatalf("watch output ended before the grandchild line: %v; stderr:\n%s", err, p.stderr.String())
		}
		if _, rest, ok := strings.Cut(line, " grandchild "); ok && strings.Contains(line, "stderr") {
			pid, err := strconv.Atoi(strings.TrimSpace(rest))
			if err != nil {
				t.Fatalf("cannot read the grandchild pid in %q", line)
			}
			return pid
		}
	}
}

// exitCode waits for the run and returns its exit status; death by a
// signal (SIGPIPE: 141 in a shell) is reported as 128+signal.
func (p *pipedRun) exitCode(t *testing.T) int {
	t.Helper()
	err := p.cmd.Wait()
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("waiting for mcpdeck: %v", err)
	}
	return 0
}

// watch | head -5: when the reader goes away, watch ends as ctrl+c ends it:
// every server stopped (the grandchild too), exit status 0, not 141.
func TestWatchEndsCleanlyWhenStdoutCloses(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{
		"demo": srvDemo(t, "20ms"),
		"gc":   srvFake(jsonrpctest.Grandchild),
	})
	p := startPiped(t, h, "watch", "--stderr")
	gc := p.grandchild(t)
	for range 5 {
		if _, err := p.lines.ReadString('\n'); err != nil {
			t.Fatalf("reading watch lines: %v", err)
		}
	}
	p.stdout.Close()
	if code := p.exitCode(t); code != ExitOK {
		t.Fatalf("exit status %d after its reader went away, want 0; stderr:\n%s", code, p.stderr.String())
	}
	jsonrpctest.WaitGone(t, gc, 5*time.Second)
}

// watch | head -3 on a server that has gone quiet: nothing more is
// written, so no write fails with EPIPE; watch still notices its reader
// is gone and ends, status 0, instead of holding the pipeline forever.
func TestWatchEndsWhenStdoutClosesOnAQuietServer(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})
	p := startPiped(t, h, "watch", "demo")
	for {
		line, err := p.lines.ReadString('\n')
		if err != nil {
			t.Fatalf("watch output ended before demo was ready: %v; stderr:\n%s", err, p.stderr.String())
		}
		if strings.Contains(line, "ready") {
			break
		}
	}
	p.stdout.Close()
	// A deadline, then the kill: exitCode's wait returns either way.
	timer := time.AfterFunc(20*time.Second, func() { _ = p.cmd.Process.Kill() })
	code := p.exitCode(t)
	if !timer.Stop() {
		t.Fatalf("watch still running 20s after its reader went away (killed); stderr:\n%s", p.stderr.String())
	}
	if code != ExitOK {
		t.Fatalf("exit status %d after its reader went away, want 0; stderr:\n%s", code, p.stderr.String())
	}
}

// call | head, where head is gone before the result: exit 0, not 141.
func TestCallEndsCleanlyWhenStdoutCloses(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"fake": srvFake(jsonrpctest.Normal)})
	p := startPiped(t, h, "call", "fake", "echo", `{"text":"hello"}`)
	p.stdout.Close()
	if code := p.exitCode(t); code != ExitOK {
		t.Fatalf("exit status %d with a closed stdout, want 0; stderr:\n%s", code, p.stderr.String())
	}
}

// SIGQUIT tears down like SIGTERM: no goroutine dump, no exit status 2,
// no server or grandchild left.
func TestWatchSIGQUITTearsDown(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"gc": srvFake(jsonrpctest.Grandchild)})
	p := startPiped(t, h, "watch", "--stderr")
	gc := p.grandchild(t)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		_, _ = io.Copy(io.Discard, p.lines) // keep stdout flowing until mcpdeck exits
	}()
	if err := p.cmd.Process.Signal(syscall.SIGQUIT); err != nil {
		t.Fatal(err)
	}
	if code := p.exitCode(t); code != ExitOK {
		t.Fatalf("exit status %d after SIGQUIT, want 0; stderr:\n%s", code, p.stderr.String())
	}
	if strings.Contains(p.stderr.String(), "goroutine ") {
		t.Errorf("SIGQUIT printed a goroutine dump:\n%s", p.stderr.String())
	}
	jsonrpctest.WaitGone(t, gc, 5*time.Second)
	<-drained
}
