//go:build unix

package jsonrpctest_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
)

func TestNotifyInstead(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.NotifyInstead)
	f.initialize()
	f.request(5, "tools/call", `{"name":"echo","arguments":{"text":"x"}}`)
	m := f.next()
	if m.Method != "notifications/message" || len(m.ID) != 0 || m.Result != nil {
		t.Fatalf("tools/call 5 got %s id=%s result=%s, want a notifications/message", m.Method, m.ID, m.Result)
	}
	var p struct {
		Data struct {
			RequestID int `json:"requestId"`
		} `json:"data"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil || p.Data.RequestID != 5 {
		t.Errorf("the notification %s does not name request 5", m.Params)
	}
	// stdout is ordered: anything answering 5 would come before the ping's response.
	f.request(6, "ping", "")
	if m, skipped := f.response("6"); m.Error != nil || len(skipped) != 0 {
		t.Errorf("ping after the call: %+v, with %d messages before it; want only the ping response", m, len(skipped))
	}
}

func TestNoise(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.Noise)
	if first := f.line(); json.Valid(first) {
		t.Fatalf("first stdout line %q is JSON, want startup noise", first)
	}
	f.request(1, "initialize", `{"protocolVersion":"2025-11-25"}`)
	f.request(2, "ping", "")
	noise, answered := 0, map[string]bool{}
	for len(answered) < 2 {
		l := f.line()
		var m wire
		if json.Unmarshal(l, &m) != nil {
			noise++
			continue
		}
		if m.Error != nil {
			t.Fatalf("request %s failed: %+v", m.ID, m.Error)
		}
		answered[string(m.ID)] = true
	}
	if noise < 2 {
		t.Errorf("saw %d noise lines among two responses, want one before each", noise)
	}
}

func TestOversized(t *testing.T) {
	t.Parallel()
	const size = 1 << 20
	f := start(t, jsonrpctest.Oversized, jsonrpctest.WithSize(size))
	f.initialize()
	f.request(3, "tools/call", `{"name":"echo","arguments":{"text":"x"}}`)
	l := f.line()
	if len(l) <= size {
		t.Fatalf("answer is %d bytes, want more than %d", len(l), size)
	}
	var m wire
	if err := json.Unmarshal(l, &m); err != nil || string(m.ID) != "3" {
		t.Fatalf("oversized answer is not a valid response to 3 (%v)", err)
	}
	if text, _ := toolText(t, m); len(text) != size {
		t.Errorf("padding is %d bytes, want %d", len(text), size)
	}
}

func TestHang(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.Hang)
	f.initialize()
	f.request(3, "tools/call", `{"name":"echo","arguments":{"text":"x"}}`)
	if m := f.call(4, "ping", ""); m.Error != nil {
		t.Fatalf("ping while hanging: %+v", m.Error)
	}
	f.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"timed out"}}`)
	f.stderrLine("cancelled 3 timed out")
	if err := f.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	for l := range f.stdout {
		t.Errorf("the hanging server wrote %s after the ping", l)
	}
	if code := f.exitCode(); code != 0 {
		t.Errorf("exit status at EOF = %d, want 0", code)
	}
}

func TestIgnoreTerm(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.IgnoreTerm)
	f.initialize()
	pid := f.cmd.Process.Pid
	if !sigIgnored(t, pid, syscall.SIGTERM) {
		t.Fatal("SIGTERM is not ignored")
	}
	if err := f.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// A pending signal is handled before the server's read returns, so an answer
	// proves it survived SIGTERM.
	if m := f.call(1, "ping", ""); m.Error != nil {
		t.Fatalf("ping after SIGTERM: %+v", m.Error)
	}
	if err := f.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	f.stderrLine("stdin closed; still running")
	if err := f.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := f.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	f.exitCode()
	if ws := f.cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("ignore-term ended with %v, want death by SIGKILL", f.cmd.ProcessState)
	}
}

func TestIgnoreEOF(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.IgnoreEOF)
	f.initialize()
	if err := f.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	f.stderrLine("stdin closed; still running")
	if err := f.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := f.exitCode(); code != 0 {
		t.Errorf("exit status after SIGTERM = %d, want 0", code)
	}
}

func TestGrandchild(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.Grandchild)
	line := f.stderrLine("grandchild ")
	pid, err := strconv.Atoi(strings.TrimPrefix(line, "grandchild "))
	if err != nil {
		t.Fatalf("bad grandchild line %q", line)
	}
	if jsonrpctest.ProcessGone(pid) {
		t.Fatalf("grandchild %d is already gone", pid)
	}
	if pgid, err := syscall.Getpgid(pid); err != nil || pgid != f.cmd.Process.Pid {
		t.Errorf("grandchild process group = %d (%v), want the server's %d", pgid, err, f.cmd.Process.Pid)
	}
	if !sigIgnored(t, pid, syscall.SIGTERM) {
		t.Error("the grandchild does not ignore SIGTERM")
	}
	f.initialize() // otherwise a normal server
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	jsonrpctest.WaitGone(t, pid, wait)
}

func TestExitEarly(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.ExitEarly)
	f.stderrLine("fatal: missing API key")
	if code := f.exitCode(); code != 1 {
		t.Errorf("exit status = %d, want 1", code)
	}
}

func TestSlowInitStillAnswersPing(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.SlowInit, jsonrpctest.WithDelay(300*time.Millisecond))
	f.request(1, "initialize", `{"protocolVersion":"2025-11-25"}`)
	f.request(2, "ping", "")
	if m := f.next(); string(m.ID) != "2" {
		t.Fatalf("first answer is to %s, want the ping (2) ahead of the delayed initialize", m.ID)
	}
	if m := f.next(); string(m.ID) != "1" || m.Error != nil {
		t.Fatalf("second answer = %+v, want initialize", m)
	}
}

func TestCatalogueDefects(t *testing.T) {
	t.Parallel()
	listAll := func(f *fake) ([]string, map[string]json.RawMessage) {
		names, _, schemas := toolNames(t, f.call(1, "tools/list", ""))
		more, _, s2 := toolNames(t, f.call(2, "tools/list", `{"cursor":"page2"}`))
		for k, v := range s2 {
			schemas[k] = v
		}
		return append(names, more...), schemas
	}

	t.Run("secret-leak", func(t *testing.T) {
		f := start(t, jsonrpctest.SecretLeak, jsonrpctest.WithSecret("s3cr3t-token-value"))
		f.initialize()
		_, schemas := listAll(f)
		if !strings.Contains(string(schemas["echo#description"]), "s3cr3t-token-value") {
			t.Errorf("echo description %s does not leak the secret", schemas["echo#description"])
		}
	})
	t.Run("rename-tools", func(t *testing.T) {
		f := start(t, jsonrpctest.RenameTools)
		f.initialize()
		names, _ := listAll(f)
		suffix := "_" + strconv.Itoa(f.cmd.Process.Pid)
		for _, n := range names {
			if !strings.HasSuffix(n, suffix) {
				t.Errorf("tool %q lacks the suffix %q", n, suffix)
			}
		}
		if text, _ := toolText(t, f.call(3, "tools/call", `{"name":"echo`+suffix+`","arguments":{"text":"renamed"}}`)); text != "renamed" {
			t.Errorf("renamed echo = %q", text)
		}
	})
	t.Run("invalid-schema", func(t *testing.T) {
		f := start(t, jsonrpctest.InvalidSchema)
		f.initialize()
		names, schemas := listAll(f)
		if !slices.Contains(names, "bad_type") || !slices.Contains(names, "array_input") {
			t.Fatalf("tools %v lack bad_type and array_input", names)
		}
		if !strings.Contains(string(schemas["bad_type"]), `"strnig"`) || !strings.Contains(string(schemas["array_input"]), `"type":"array"`) {
			t.Errorf("schemas %s and %s are not the invalid ones", schemas["bad_type"], schemas["array_input"])
		}
	})
}

func TestCommand(t *testing.T) {
	t.Parallel()
	path, args, env := jsonrpctest.Command(jsonrpctest.Hang, jsonrpctest.WithEnv("K", "1"), jsonrpctest.WithEnv("K", "2"), jsonrpctest.WithCount(7))
	if !filepath.IsAbs(path) {
		t.Errorf("path %q is not absolute", path)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("path %q: %v", path, err)
	}
	if !slices.Equal(args, []string{"-test.run=^$"}) {
		t.Errorf("args = %q", args)
	}
	count := map[string]int{}
	for _, kv := range env {
		count[kv]++
	}
	for _, want := range []string{"MCPDECK_FAKE_SERVER=hang", "K=2", "MCPDECK_FAKE_COUNT=7"} {
		if count[want] != 1 {
			t.Errorf("env has %q %d times, want once", want, count[want])
		}
	}
	if count["K=1"] != 0 {
		t.Error("env keeps the overridden K=1")
	}
	got := jsonrpctest.ServerEnv(jsonrpctest.Hang, jsonrpctest.WithEnv("K", "2"))
	if len(got) != 3 || got["MCPDECK_FAKE_SERVER"] != "hang" || got["K"] != "2" || !strings.Contains(got["GORACE"], "atexit_sleep_ms=0") {
		t.Errorf("ServerEnv = %v", got)
	}
}

func TestUnknownModeExits2(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.Mode("no-such-mode"))
	f.stderrLine("fake server: unknown fake server mode")
	if code := f.exitCode(); code != 2 {
		t.Errorf("exit status = %d, want 2", code)
	}
}

func TestProcessGone(t *testing.T) {
	t.Parallel()
	if jsonrpctest.ProcessGone(os.Getpid()) {
		t.Fatal("this process is reported gone")
	}
	if jsonrpctest.ProcessGone(0) {
		t.Fatal("pid 0 is reported gone")
	}
	path, args, env := jsonrpctest.Command(jsonrpctest.ExitEarly)
	cmd := exec.Command(path, args...)
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Not reaped yet: the exited child is a zombie, which counts as gone.
	jsonrpctest.WaitGone(t, cmd.Process.Pid, wait)
	if err := cmd.Wait(); err == nil {
		t.Fatal("exit-early exited 0")
	}
	if !jsonrpctest.ProcessGone(cmd.Process.Pid) {
		t.Error("a reaped process is not reported gone")
	}
}

// failRecorder stands in for testing.TB to observe WaitGone failing.
type failRecorder struct {
	testing.TB
	failed bool
}

func (r *failRecorder) Helper()               {}
func (r *failRecorder) Fatalf(string, ...any) { r.failed = true }

func TestWaitGoneFailsOnDeadline(t *testing.T) {
	t.Parallel()
	r := &failRecorder{TB: t}
	jsonrpctest.WaitGone(r, os.Getpid(), 30*time.Millisecond)
	if !r.failed {
		t.Error("WaitGone on a live process did not fail the test")
	}
}
