//go:build unix

package jsonrpctest_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// wait bounds every read in these tests; generous because -race slows the children.
const wait = 15 * time.Second

func TestMain(m *testing.M) {
	jsonrpctest.MaybeServe()
	goleak.VerifyTestMain(m)
}

// fake is one re-executed fake server on real pipes, in its own process group so the
// cleanup can kill it together with any grandchild.
type fake struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout chan []byte // closed at stdout EOF
	stderr chan string // closed at stderr EOF
	exited chan struct{}
	quit   chan struct{}
	// waitErr is cmd.Wait's result, readable once exited is closed.
	waitErr error
}

func start(t *testing.T, mode jsonrpctest.Mode, opts ...jsonrpctest.Option) *fake {
	t.Helper()
	path, args, env := jsonrpctest.Command(mode, opts...)
	return startCmd(t, path, args, env)
}

// startCmd starts any stdio server (a fake, a peer script) the way start does.
func startCmd(t *testing.T, path string, args, env []string) *fake {
	t.Helper()
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting server %s %v: %v", path, args, err)
	}
	f := &fake{
		t: t, cmd: cmd, stdin: stdin,
		stdout: make(chan []byte, 64), stderr: make(chan string, 64),
		exited: make(chan struct{}), quit: make(chan struct{}),
	}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() {
		defer readers.Done()
		defer close(f.stdout)
		r := bufio.NewReaderSize(stdout, 1<<16)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				select {
				case f.stdout <- line:
				case <-f.quit:
					_, _ = io.Copy(io.Discard, r)
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		defer readers.Done()
		defer close(f.stderr)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case f.stderr <- sc.Text():
			case <-f.quit:
				_, _ = io.Copy(io.Discard, stderr)
				return
			}
		}
	}()
	go func() {
		readers.Wait()
		f.waitErr = cmd.Wait()
		close(f.exited)
	}()
	t.Cleanup(func() {
		close(f.quit)
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-f.exited:
		case <-time.After(wait):
			t.Errorf("fake server %d did not exit after SIGKILL to its group", cmd.Process.Pid)
		}
	})
	return f
}

// wire is any message a fake server writes.
type wire struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (f *fake) send(line string) {
	f.t.Helper()
	if _, err := io.WriteString(f.stdin, line+"\n"); err != nil {
		f.t.Fatalf("writing to the fake server: %v", err)
	}
}

func (f *fake) request(id int, method, params string) {
	f.t.Helper()
	if params == "" {
		params = "{}"
	}
	f.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
}

// line returns the next stdout line, failing the test at EOF or after the deadline.
func (f *fake) line() []byte {
	f.t.Helper()
	select {
	case l, ok := <-f.stdout:
		if !ok {
			f.t.Fatal("fake server closed stdout")
		}
		return l
	case <-time.After(wait):
		f.t.Fatal("no line from the fake server before the deadline")
	}
	return nil
}

// next returns the next stdout line decoded as a JSON-RPC message.
func (f *fake) next() wire {
	f.t.Helper()
	l := f.line()
	var m wire
	if err := json.Unmarshal(l, &m); err != nil {
		f.t.Fatalf("fake server wrote a non-JSON line %q: %v", truncate(l), err)
	}
	return m
}

// response reads messages until the response with id, returning the messages it skipped.
func (f *fake) response(id string) (wire, []wire) {
	f.t.Helper()
	var skipped []wire
	for {
		m := f.next()
		if m.Method == "" && string(m.ID) == id {
			return m, skipped
		}
		skipped = append(skipped, m)
	}
}

func (f *fake) call(id int, method, params string) wire {
	f.t.Helper()
	f.request(id, method, params)
	m, _ := f.response(strconv.Itoa(id))
	return m
}

func (f *fake) initialize() {
	f.t.Helper()
	m := f.call(0, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}`)
	if m.Error != nil {
		f.t.Fatalf("initialize failed: %+v", m.Error)
	}
	f.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// stderrLine waits for a stderr line starting with prefix.
func (f *fake) stderrLine(prefix string) string {
	f.t.Helper()
	deadline := time.After(wait)
	for {
		select {
		case l, ok := <-f.stderr:
			if !ok {
				f.t.Fatalf("stderr closed before a line starting with %q", prefix)
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-deadline:
			f.t.Fatalf("no stderr line starting with %q before the deadline", prefix)
		}
	}
}

// exitCode waits for the process to exit and returns its status (-1 for a signal).
func (f *fake) exitCode() int {
	f.t.Helper()
	select {
	case <-f.exited:
	case <-time.After(wait):
		f.t.Fatal("fake server did not exit before the deadline")
	}
	var exitErr *exec.ExitError
	if f.waitErr != nil && !errors.As(f.waitErr, &exitErr) {
		f.t.Fatalf("waiting for the fake server: %v", f.waitErr)
	}
	return f.cmd.ProcessState.ExitCode()
}

// toolText decodes a tools/call result into its first text block and isError.
func toolText(t *testing.T, m wire) (string, bool) {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("tools/call failed with a protocol error: %+v", m.Error)
	}
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(m.Result, &r); err != nil || len(r.Content) == 0 || r.Content[0].Type != "text" {
		t.Fatalf("tools/call result %s has no text block (%v)", truncate(m.Result), err)
	}
	return r.Content[0].Text, r.IsError
}

// sigIgnored reports whether pid ignores sig, from the SigIgn mask in /proc.
func sigIgnored(t *testing.T, pid int, sig syscall.Signal) bool {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("reading the signal mask of %d: %v", pid, err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if mask, ok := strings.CutPrefix(l, "SigIgn:"); ok {
			bits, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64)
			if err != nil {
				t.Fatalf("parsing SigIgn %q: %v", mask, err)
			}
			return bits&(1<<(uint(sig)-1)) != 0
		}
	}
	t.Fatalf("no SigIgn line in /proc/%d/status", pid)
	return false
}

func truncate(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}
