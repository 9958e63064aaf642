//go:build linux

package proc

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// testDeadline bounds every wait in these tests; reaching it is a failure.
const testDeadline = 20 * time.Second

// shortGrace keeps escalation tests fast; it is a Spec field, not a sleep.
const shortGrace = 100 * time.Millisecond

// termGrace is the grace of tests whose server must die of SIGTERM: the
// same grace bounds the wait after SIGTERM before SIGKILL, and a server
// descheduled for more than shortGrace then (a loaded CI machine) was
// killed by SIGKILL instead, failing the test for a reason of its own.
const termGrace = time.Second

// start starts the test binary in mode and registers a Stop for cleanup.
func start(t *testing.T, mode string, mutate func(*Spec)) *Process {
	t.Helper()
	spec := Spec{Path: self(), Env: childEnv(mode)}
	if mutate != nil {
		mutate(&spec)
	}
	p, err := Start(spec)
	if err != nil {
		t.Fatalf("Start(%s): %v", mode, err)
	}
	t.Cleanup(func() { p.Stop() })
	return p
}

// readLine reads one stdout line with a deadline. On timeout the cleanup Stop
// closes stdout, which ends the reading goroutine.
func readLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	ch := make(chan string, 1)
	go func() {
		s, _ := r.ReadString('\n')
		ch <- s
	}()
	select {
	case s := <-ch:
		return strings.TrimSuffix(s, "\n")
	case <-time.After(testDeadline):
		t.Fatal("timed out reading a line from the child's stdout")
		return ""
	}
}

func readAll(t *testing.T, r io.Reader) string {
	t.Helper()
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(r)
		ch <- result{b, err}
	}()
	select {
	case res := <-ch:
		if res.err != nil {
			t.Fatalf("reading stdout: %v", res.err)
		}
		return string(res.b)
	case <-time.After(testDeadline):
		t.Fatal("timed out reading the child's stdout to EOF")
		return ""
	}
}

func waitDone(t *testing.T, p *Process) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(testDeadline):
		t.Fatal("Done was not closed after the process exited")
	}
}

func exitErr(t *testing.T, err error) *ExitError {
	t.Helper()
	var ee *ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("exit = %v (%T), want *ExitError", err, err)
	}
	return ee
}

// liveMembers lists the non-zombie processes of group pgid, read from /proc
// independently of the package's own check.
func liveMembers(t *testing.T, pgid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatalf("reading /proc: %v", err)
	}
	var live []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := statFields(pid); ok && st[4] == strconv.Itoa(pgid) && st[2] != "Z" {
			live = append(live, pid)
		}
	}
	return live
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	st, ok := statFields(pid)
	return ok && st[2] != "Z"
}

// statFields splits /proc/<pid>/stat into fields, comm kept whole as field 1.
func statFields(pid int) ([]string, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil, false
	}
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return nil, false
	}
	f := []string{string(bytes.TrimSpace(b[:open])), string(b[open+1 : end])}
	return append(f, strings.Fields(string(b[end+1:]))...), true
}

func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	err := syscall.Kill(-pgid, 0)
	if errors.Is(err, syscall.ESRCH) {
		return
	}
	// PID 1 of some sandboxes never reaps orphans, so zombies may linger in
	// the group; they run nothing and are not what this asserts against.
	if live := liveMembers(t, pgid); len(live) > 0 {
		t.Fatalf("process group %d still has live members %v after Stop", pgid, live)
	}
}

func TestStopClosesStdinFirst(t *testing.T) {
	p := start(t, "echo", nil)
	if _, err := io.WriteString(p.Stdin(), "ping\n"); err != nil {
		t.Fatalf("writing stdin: %v", err)
	}
	out := bufio.NewReader(p.Stdout())
	if got := readLine(t, out); got != "ping" {
		t.Fatalf("echo = %q, want %q", got, "ping")
	}
	if err := p.Exit(); !errors.Is(err, ErrRunning) {
		t.Fatalf("Exit before Done = %v, want ErrRunning", err)
	}
	res := p.Stop()
	if res.Step != StepStdinClose || res.Exit != nil || res.Err != nil {
		t.Fatalf("Stop = %+v, want step %v with clean exit", res, StepStdinClose)
	}
	select {
	case <-p.Done():
	default:
		t.Fatal("Done not closed after Stop returned")
	}
	if n, err := out.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("stdout after Stop = %d, %v; want 0, EOF", n, err)
	}
	assertGroupGone(t, p.Pid())
}

func TestStopEscalatesToSIGTERM(t *testing.T) {
	p := start(t, "ignore-eof", func(s *Spec) { s.Grace = termGrace })
	if got := readLine(t, bufio.NewReader(p.Stdout())); got != "ready" {
		t.Fatalf("child said %q, want ready", got)
	}
	res := p.Stop()
	if res.Step != StepSIGTERM || res.Err != nil {
		t.Fatalf("Stop = %+v, want step %v", res, StepSIGTERM)
	}
	ee := exitErr(t, res.Exit)
	if ee.Signal != syscall.SIGTERM || ee.Code != -1 {
		t.Fatalf("exit = %+v, want killed by SIGTERM", ee)
	}
	if res.Elapsed < termGrace {
		t.Fatalf("Elapsed = %v, want at least the grace %v before SIGTERM", res.Elapsed, termGrace)
	}
	assertGroupGone(t, p.Pid())
}

func TestStopEscalatesToSIGKILL(t *testing.T) {
	p := start(t, "ignore-term", func(s *Spec) { s.Grace = shortGrace })
	if got := readLine(t, bufio.NewReader(p.Stdout())); got != "ready" {
		t.Fatalf("child said %q, want ready", got)
	}
	res := p.Stop()
	if res.Step != StepSIGKILL || res.Err != nil {
		t.Fatalf("Stop = %+v, want step %v", res, StepSIGKILL)
	}
	ee := exitErr(t, res.Exit)
	if ee.Signal != syscall.SIGKILL {
		t.Fatalf("exit = %+v, want killed by SIGKILL", ee)
	}
	if got, want := ee.Error(), "killed by signal SIGKILL"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	if res.Elapsed < 2*shortGrace {
		t.Fatalf("Elapsed = %v, want at least two graces (%v)", res.Elapsed, 2*shortGrace)
	}
	assertGroupGone(t, p.Pid())
}

// readGrandchild reads the "gc <pid>" line a spawn child prints.
func readGrandchild(t *testing.T, p *Process) int {
	t.Helper()
	line := readLine(t, bufio.NewReader(p.Stdout()))
	pid, err := strconv.Atoi(strings.TrimPrefix(line, "gc "))
	if err != nil || !strings.HasPrefix(line, "gc ") {
		t.Fatalf("spawn child said %q, want \"gc <pid>\"", line)
	}
	t.Cleanup(func() {
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if !alive(pid) {
		t.Fatalf("grandchild %d is not running before Stop", pid)
	}
	return pid
}

func TestStopKillsGrandchildThatIgnoresSIGTERM(t *testing.T) {
	p := start(t, "spawn", func(s *Spec) {
		s.Grace = shortGrace
		s.Env = append(s.Env, afterEnv+"=eof")
	})
	gc := readGrandchild(t, p)
	res := p.Stop()
	// A loaded machine may not run the leader's exit on EOF within
	// shortGrace; it is then stopped with SIGTERM, and its grandchild,
	// which ignores SIGTERM, must be killed all the same.
	late := res.Step == StepSIGTERM
	if ((res.Step != StepStdinClose || res.Exit != nil) && !late) || res.Err != nil {
		t.Fatalf("Stop = %+v, want the leader to exit cleanly on stdin close", res)
	}
	assertGroupGone(t, p.Pid())
	if alive(gc) {
		t.Fatalf("grandchild %d survived Stop", gc)
	}
}

func TestStopClearsGroupAfterLeaderExitedByItself(t *testing.T) {
	p := start(t, "spawn", func(s *Spec) {
		s.Grace = shortGrace
		s.Env = append(s.Env, afterEnv+"=exit")
	})
	gc := readGrandchild(t, p)
	waitDone(t, p)
	if err := p.Exit(); err != nil {
		t.Fatalf("Exit = %v, want nil", err)
	}
	if !alive(gc) {
		t.Fatalf("grandchild %d died with its parent; the test proves nothing", gc)
	}
	res := p.Stop()
	if res.Step != StepExited || res.Err != nil {
		t.Fatalf("Stop = %+v, want step %v", res, StepExited)
	}
	assertGroupGone(t, p.Pid())
	if alive(gc) {
		t.Fatalf("grandchild %d survived Stop", gc)
	}
}

func TestExitStatusStderrAndStdoutEOF(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	p := start(t, "fail", func(s *Spec) {
		s.OnStderr = func(line string) {
			mu.Lock()
			seen = append(seen, line)
			mu.Unlock()
		}
	})
	if got := readAll(t, p.Stdout()); got != "hello\n" {
		t.Fatalf("stdout = %q, want %q then EOF", got, "hello\n")
	}
	waitDone(t, p)
	ee := exitErr(t, p.Exit())
	want := []string{"starting", "fatal: boom"}
	if ee.Code != 3 || ee.Signal != 0 || !equal(ee.StderrTail, want) {
		t.Fatalf("exit = %+v, want status 3 with tail %q", ee, want)
	}
	if got, want := ee.Error(), "exited with status 3; last stderr line: fatal: boom"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	res := p.Stop()
	if res.Step != StepExited || res.Exit != p.Exit() {
		t.Fatalf("Stop = %+v, want step %v and the recorded exit", res, StepExited)
	}
	mu.Lock()
	defer mu.Unlock()
	if !equal(seen, want) {
		t.Fatalf("OnStderr saw %q, want %q", seen, want)
	}
	if !equal(p.StderrTail(), want) {
		t.Fatalf("StderrTail = %q, want %q", p.StderrTail(), want)
	}
}

func TestKilledBySignal(t *testing.T) {
	p := start(t, "ignore-eof", nil)
	if got := readLine(t, bufio.NewReader(p.Stdout())); got != "ready" {
		t.Fatalf("child said %q, want ready", got)
	}
	if err := syscall.Kill(p.Pid(), syscall.SIGKILL); err != nil {
		t.Fatalf("kill: %v", err)
	}
	waitDone(t, p)
	ee := exitErr(t, p.Exit())
	if ee.Signal != syscall.SIGKILL || ee.Code != -1 {
		t.Fatalf("exit = %+v, want killed by SIGKILL", ee)
	}
	if res := p.Stop(); res.Step != StepExited {
		t.Fatalf("Stop = %+v, want step %v", res, StepExited)
	}
}

func TestStopConcurrentAndRepeated(t *testing.T) {
	p := start(t, "ignore-eof", func(s *Spec) { s.Grace = termGrace })
	if got := readLine(t, bufio.NewReader(p.Stdout())); got != "ready" {
		t.Fatalf("child said %q, want ready", got)
	}
	const callers = 16
	results := make(chan StopResult, callers)
	var ready sync.WaitGroup
	ready.Add(callers)
	release := make(chan struct{})
	for range callers {
		go func() {
			ready.Done()
			<-release
			results <- p.Stop()
		}()
	}
	ready.Wait()
	close(release)
	first := <-results
	if first.Step != StepSIGTERM {
		t.Fatalf("Stop = %+v, want step %v", first, StepSIGTERM)
	}
	for range callers - 1 {
		if r := <-results; !reflect.DeepEqual(r, first) {
			t.Fatalf("concurrent Stop = %+v, want the same result %+v", r, first)
		}
	}
	if r := p.Stop(); !reflect.DeepEqual(r, first) {
		t.Fatalf("repeated Stop = %+v, want %+v", r, first)
	}
}

func TestStartErrors(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "server")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		spec     Spec
		sentinel error
		mention  []string
	}{
		{"not on PATH", Spec{Path: "mcpdeck-no-such-server"}, ErrNotFound, []string{`"mcpdeck-no-such-server"`, "PATH"}},
		{"no such file", Spec{Path: "/nonexistent/server"}, ErrNotFound, []string{`"/nonexistent/server"`, "no such file"}},
		{"not executable", Spec{Path: notExec}, ErrNotExecutable, []string{notExec, "chmod +x"}},
		{"missing cwd", Spec{Path: self(), Dir: "/nonexistent/dir"}, ErrBadDir, []string{`"/nonexistent/dir"`, `"cwd"`}},
		{"cwd is a file", Spec{Path: self(), Dir: file}, ErrBadDir, []string{"not a directory"}},
		{"empty", Spec{}, ErrNoCommand, []string{`"command"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Start(tt.spec)
			if err == nil {
				p.Stop()
				t.Fatal("Start succeeded, want an error")
			}
			if !errors.Is(err, tt.sentinel) {
				t.Fatalf("error %q does not wrap %v", err, tt.sentinel)
			}
			for _, m := range tt.mention {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %s", err, m)
				}
			}
		})
	}
}

func TestEnvAndDir(t *testing.T) {
	t.Setenv("PROC_TEST_LEAK", "leaked")
	dir := t.TempDir()
	p := start(t, "env", func(s *Spec) {
		s.Env = []string{modeEnv + "=env", "PROC_TEST_VAR=configured", "GORACE=atexit_sleep_ms=0"}
		s.Dir = dir
	})
	got := readAll(t, p.Stdout())
	wantDir, _ := filepath.EvalSymlinks(dir)
	want := "var=configured\nleak=\ncwd=" + wantDir + "\n"
	if got != want {
		t.Fatalf("child reported\n%s\nwant\n%s", got, want)
	}
	if res := p.Stop(); res.Exit != nil {
		t.Fatalf("Stop = %+v, want a clean exit", res)
	}
}

func TestEnvNilInherits(t *testing.T) {
	t.Setenv("PROC_TEST_LEAK", "inherited")
	t.Setenv(modeEnv, "env")
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	p := start(t, "env", func(s *Spec) { s.Env = nil })
	if got := readAll(t, p.Stdout()); !strings.Contains(got, "leak=inherited\n") {
		t.Fatalf("child reported %q, want the inherited PROC_TEST_LEAK", got)
	}
}

func TestStderrLongLineTruncatedAndTailBounded(t *testing.T) {
	var mu sync.Mutex
	var first, second string
	count := 0
	p := start(t, "longline", func(s *Spec) {
		s.StderrLines = 10
		s.OnStderr = func(line string) {
			mu.Lock()
			defer mu.Unlock()
			switch count {
			case 0:
				first = line
			case 1:
				second = line
			}
			count++
		}
	})
	if res := p.Stop(); res.Exit != nil || res.Err != nil {
		t.Fatalf("Stop = %+v, want a clean exit", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if count != 1002 {
		t.Fatalf("OnStderr called %d times, want 1002", count)
	}
	if !strings.HasPrefix(first, strings.Repeat("x", MaxLineBytes-1)+"…") || !strings.Contains(first, "truncated") {
		t.Fatalf("long line not cut at the rune before %d bytes with a marker: ...%q", MaxLineBytes, first[MaxLineBytes-8:])
	}
	if len(first) > MaxLineBytes+100 || !utf8.ValidString(first) {
		t.Fatalf("truncated line is %d bytes (valid UTF-8: %v), want at most about %d", len(first), utf8.ValidString(first), MaxLineBytes)
	}
	if second != "short" {
		t.Fatalf("line after the long one = %q, want %q", second, "short")
	}
	tail := p.StderrTail()
	if len(tail) != 10 || tail[0] != "line 990" || tail[9] != "line 999" {
		t.Fatalf("StderrTail = %q, want the last 10 lines", tail)
	}
}

func TestStopStepString(t *testing.T) {
	for step, want := range map[StopStep]string{
		StepExited: "already exited", StepStdinClose: "stdin closed",
		StepSIGTERM: "SIGTERM", StepSIGKILL: "SIGKILL", 0: "StopStep(0)",
	} {
		if got := step.String(); got != want {
			t.Errorf("StopStep(%d).String() = %q, want %q", int(step), got, want)
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A grandchild orphaned by its server is adopted by mcpdeck (a child
// subreaper); once Stop killed it, Stop also reaps it, so no zombie is left
// for the life of mcpdeck and the group id is released.
func TestStopReapsAdoptedGrandchild(t *testing.T) {
	p := start(t, "spawn", func(s *Spec) {
		s.Grace = shortGrace
		s.Env = append(s.Env, afterEnv+"=exit")
	})
	gc := readGrandchild(t, p)
	waitDone(t, p)
	if st, ok := readProcStat(gc); !ok || st.ppid != os.Getpid() {
		t.Fatalf("orphaned grandchild %d has parent %d, want this process (a subreaper) %d", gc, st.ppid, os.Getpid())
	}
	if res := p.Stop(); res.Err != nil {
		t.Fatalf("Stop = %+v", res)
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(gc)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("grandchild %d is still in the process table (a zombie nobody reaps): %v", gc, err)
	}
	if GroupAlive(p.Pid()) {
		t.Fatalf("group %d still exists after Stop", p.Pid())
	}
}

func TestTailGrowsThenWraps(t *testing.T) {
	tl := newTail(3)
	if len(tl.lines()) != 0 || cap(tl.ring) != 0 {
		t.Fatalf("a new tail holds %d slots", cap(tl.ring))
	}
	for _, s := range []string{"a", "b"} {
		tl.add(s)
	}
	if got := tl.lines(); !equal(got, []string{"a", "b"}) {
		t.Fatalf("lines = %q", got)
	}
	for _, s := range []string{"c", "d", "e"} {
		tl.add(s)
	}
	if got := tl.lines(); !equal(got, []string{"c", "d", "e"}) {
		t.Fatalf("lines after wrapping = %q, want the last three, oldest first", got)
	}
}

// BenchmarkIdleProcessMemory reports what mcpdeck holds per idle server
// process (stderr drain, tail, waiter), in bytes per process:
//
//	go test ./runtime/proc -run '^$' -bench IdleProcessMemory
func BenchmarkIdleProcessMemory(b *testing.B) {
	const n = 50
	var perProc float64
	for range b.N {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var ps []*Process
		for range n {
			p, err := Start(Spec{Path: self(), Env: childEnv("echo"), Grace: shortGrace})
			if err != nil {
				b.Fatal(err)
			}
			ps = append(ps, p)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perProc = float64((after.HeapInuse+after.StackInuse)-(before.HeapInuse+before.StackInuse)) / n
		for _, p := range ps {
			p.Stop()
		}
	}
	b.ReportMetric(perProc, "bytes/process")
	b.ReportMetric(0, "ns/op")
}

// While its server runs, a grandchild the server orphaned and that then
// exited is reaped at once (SIGCHLD), not left a zombie until Stop.
func TestRunningServerOrphansAreReaped(t *testing.T) {
	p := start(t, "spawn-exit-gc", func(s *Spec) { s.Grace = shortGrace })
	line := readLine(t, bufio.NewReader(p.Stdout()))
	gc, err := strconv.Atoi(strings.TrimPrefix(line, "orphan "))
	if err != nil {
		t.Fatalf("server said %q, want \"orphan <pid>\"", line)
	}
	// The orphan exits on its own; wait (on its pidfd) until it did, then
	// until it is gone from the process table altogether.
	if gone, err := waitPidExit(gc, testDeadline); err != nil || !gone {
		t.Fatalf("orphan %d did not exit: %v", gc, err)
	}
	deadline := time.Now().Add(testDeadline)
	for {
		if _, err := os.Stat("/proc/" + strconv.Itoa(gc)); errors.Is(err, os.ErrNotExist) {
			break
		}
		if time.Now().After(deadline) {
			st, _ := readProcStat(gc)
			t.Fatalf("orphan %d is still in the process table (%+v) while its server runs", gc, st)
		}
		<-time.After(groupPoll) // polling a process table has no event to wait on
	}
	if res := p.Stop(); res.Err != nil {
		t.Fatalf("Stop = %+v", res)
	}
}
