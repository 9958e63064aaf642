package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// headlessMarkEnv is put into every test server's environment with a value
// unique to the test, so the test can find any process it left behind.
const headlessMarkEnv = "MCPDECK_CLI_TEST_MARK"

// headless is one end-to-end test of a headless command: a private home
// and XDG directories, an mcp.json, and the marker its servers carry.
type headless struct {
	dir  string
	env  []string
	mark string
	cfg  string
}

// newHeadless writes an mcp.json with servers (name → server object) and
// checks, when the test ends, that no server process outlived mcpdeck.
func newHeadless(t *testing.T, servers map[string]map[string]any) *headless {
	t.Helper()
	dir := t.TempDir()
	var b [8]byte
	_, _ = rand.Read(b[:])
	h := &headless{dir: dir, mark: hex.EncodeToString(b[:])}
	h.env = []string{
		"HOME=" + filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "xdg-config"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "xdg-state"),
	}
	for name, s := range servers {
		env, _ := s["env"].(map[string]string)
		merged := map[string]string{headlessMarkEnv: h.mark}
		for k, v := range env {
			merged[k] = v
		}
		s["env"] = merged
		servers[name] = s
	}
	data, err := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	h.cfg = filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(h.cfg, data, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { assertReaped(t, h.mark) })
	return h
}

// run runs mcpdeck --config mcp.json ARGS... to completion.
func (h *headless) run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return runBin(t, h.dir, h.env, stdin, append([]string{"--config", h.cfg}, args...)...)
}

// start runs mcpdeck --config mcp.json ARGS... in the background, for tests
// that interrupt it; wait collects its exit code.
func (h *headless) start(t *testing.T, args ...string) *running {
	t.Helper()
	cmd, cancel := binCommand(t, time.Minute, append([]string{"--config", h.cfg}, args...)...)
	cmd.Dir = h.dir
	cmd.Env = testEnv(t, h.env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	r := &running{cmd: cmd, cancel: cancel, stdout: lines(stdout), stderr: lines(stderr)}
	t.Cleanup(func() {
		if r.cmd.ProcessState == nil {
			_ = r.cmd.Process.Kill()
			_ = r.cmd.Wait()
		}
		cancel()
	})
	return r
}

// running is a background mcpdeck whose output arrives line by line.
type running struct {
	cmd            *exec.Cmd
	cancel         context.CancelFunc
	stdout, stderr <-chan string
	seenOut        []string
	seenErr        []string
}

// lines delivers r's lines on a channel, closed at EOF. The channel is
// buffered generously so the reader never blocks the child.
func lines(r io.Reader) <-chan string {
	ch := make(chan string, 1<<16)
	go func() {
		defer close(ch)
		data, buf := []byte{}, make([]byte, 32<<10)
		for {
			n, err := r.Read(buf)
			data = append(data, buf[:n]...)
			for {
				i := bytes.IndexByte(data, '\n')
				if i < 0 {
					break
				}
				ch <- string(data[:i])
				data = data[i+1:]
			}
			if err != nil {
				if len(data) > 0 {
					ch <- string(data)
				}
				return
			}
		}
	}()
	return ch
}

// waitLine waits until a line of the stream satisfies ok, or fails the test
// at the deadline; lines read are kept for later assertions.
func (r *running) waitLine(t *testing.T, fromStderr bool, what string, ok func(string) bool) string {
	t.Helper()
	ch, seen := r.stdout, &r.seenOut
	if fromStderr {
		ch, seen = r.stderr, &r.seenErr
	}
	deadline := time.After(30 * time.Second)
	for {
		select {
		case line, open := <-ch:
			if !open {
				t.Fatalf("waiting for %s: the stream ended; stdout:\n%s\nstderr:\n%s", what, strings.Join(r.seenOut, "\n"), strings.Join(r.seenErr, "\n"))
			}
			*seen = append(*seen, line)
			if ok(line) {
				return line
			}
		case <-deadline:
			t.Fatalf("waiting for %s: nothing after 30s; stdout:\n%s\nstderr:\n%s", what, strings.Join(r.seenOut, "\n"), strings.Join(r.seenErr, "\n"))
		}
	}
}

// wait drains both streams, waits for the exit and returns the code.
func (r *running) wait(t *testing.T) int {
	t.Helper()
	for line := range r.stdout {
		r.seenOut = append(r.seenOut, line)
	}
	for line := range r.stderr {
		r.seenErr = append(r.seenErr, line)
	}
	err := r.cmd.Wait()
	r.cancel()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatalf("waiting for mcpdeck: %v", err)
	}
	return 0
}

// assertReaped fails the test if a process carrying mark in its
// environment is still running: mcpdeck must stop every server it started.
func assertReaped(t *testing.T, mark string) {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatalf("listing processes: %v", err)
	}
	needle := []byte(headlessMarkEnv + "=" + mark)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(env, needle) {
			continue
		}
		// A process mcpdeck killed can take a moment to be reaped by init
		// if mcpdeck itself exited first; give it a bounded wait.
		jsonrpctest.WaitGone(t, pid, 2*time.Second)
	}
}

// srvDemo is the built-in demo server with a fast heartbeat.
func srvDemo(t *testing.T, interval string) map[string]any {
	return map[string]any{
		"command": mcpdeckBin(t), "args": []string{"demo-server"},
		"env": map[string]string{demoLogIntervalEnv: interval},
	}
}

// srvFake is a misbehaving fake server (this test binary, re-executed).
func srvFake(mode jsonrpctest.Mode, opts ...jsonrpctest.Option) map[string]any {
	path, args, _ := jsonrpctest.Command(mode, opts...)
	return map[string]any{"command": path, "args": args, "env": jsonrpctest.ServerEnv(mode, opts...)}
}

// srvEverything is @modelcontextprotocol/server-everything.
func srvEverything(t *testing.T) map[string]any {
	node, script := jsonrpctest.Everything(t)
	return map[string]any{"command": node, "args": []string{script}}
}

// headlessGolden renames a test so golden.RequireEqual reads
// testdata/<name>.golden (regenerate with go test -update).
type headlessGolden struct {
	testing.TB
	name string
}

func (g headlessGolden) Name() string { return g.name }

// wantCode fails the test when a run did not exit with code.
func wantCode(t *testing.T, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
}

func decodeServers(t *testing.T, r result) serversOutput {
	t.Helper()
	var out serversOutput
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("servers --json printed invalid JSON: %v\n%s", err, r.stdout)
	}
	return out
}

func TestServersDemoJSON(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})
	r := h.run(t, "", "servers", "--json")
	wantCode(t, r, ExitOK)
	out := decodeServers(t, r)
	if len(out.Servers) != 1 {
		t.Fatalf("got %d servers, want 1:\n%s", len(out.Servers), r.stdout)
	}
	s := out.Servers[0]
	if s.Name != "demo" || s.State != "ready" || s.Transport != "stdio" || s.Tools != 4 || s.PingMs == nil ||
		s.ServerInfo.Name != "mcpdeck-demo" || s.ProtocolVersion == "" || s.PID <= 0 || s.Error != "" {
		t.Fatalf("unexpected demo status: %+v", s)
	}
	jsonrpctest.WaitGone(t, s.PID, 2*time.Second)
}

func TestServersTableReportsFailures(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{
		"demo":   srvDemo(t, "0"),
		"broken": srvFake(jsonrpctest.ExitEarly),
		"old":    srvFake(jsonrpctest.VersionBad),
	})
	r := h.run(t, "", "servers")
	wantCode(t, r, ExitConnection)
	rows := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(rows) != 4 || !strings.HasPrefix(rows[0], "NAME  ") || !strings.Contains(rows[0], "PING") {
		t.Fatalf("want a header and 3 rows, got:\n%s", r.stdout)
	}
	for _, want := range []struct{ name, state string }{{"broken", "failed"}, {"demo", "ready"}, {"old", "failed"}} {
		found := false
		for _, row := range rows[1:] {
			f := strings.Fields(row)
			found = found || (len(f) > 1 && f[0] == want.name && f[1] == want.state)
		}
		if !found {
			t.Errorf("no row %s %s in:\n%s", want.name, want.state, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, `server "broken" has failed`) || !strings.Contains(r.stderr, `server "old" has failed`) {
		t.Errorf("stderr does not explain both failures:\n%s", r.stderr)
	}
}

func TestServersNamedAndAdHoc(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{
		"demo":   srvDemo(t, "0"),
		"broken": srvFake(jsonrpctest.ExitEarly),
	})
	// Naming a server narrows the run to it: the broken one is not started.
	r := h.run(t, "", "servers", "demo", "--json")
	wantCode(t, r, ExitOK)
	if out := decodeServers(t, r); len(out.Servers) != 1 || out.Servers[0].Name != "demo" {
		t.Fatalf("servers demo reported %+v", out.Servers)
	}

	path, args, _ := jsonrpctest.Command(jsonrpctest.Normal)
	cmdline := path + " " + strings.Join(args, " ")
	r = runBin(t, h.dir, append(h.env, jsonrpctest.EnvMode+"=normal", headlessMarkEnv+"="+h.mark), "", "servers", "--json", "--stdio", cmdline)
	wantCode(t, r, ExitOK)
	if out := decodeServers(t, r); len(out.Servers) != 1 || out.Servers[0].Name != adHocName || out.Servers[0].State != "ready" {
		t.Fatalf("servers --stdio reported %+v", out.Servers)
	}
}

func TestServersUsageErrors(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"servers", "nosuch"}, `no server "nosuch"`},
		{[]string{"servers", "--url", "ftp://example.com"}, "give an http:// or https:// URL"},
		{[]string{"servers", "--stdio", "x", "--url", "http://localhost:1"}, "not both"},
		{[]string{"servers", "--header", "A: b"}, "go with --url"},
		{[]string{"servers", "--bogus"}, "unknown flag"},
	} {
		r := h.run(t, "", tc.args...)
		wantCode(t, r, ExitUsage)
		if !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: stderr %q does not say %q", tc.args, r.stderr, tc.want)
		}
	}
}

func TestServersConnectionRefused(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, nil)
	// Port 1 is privileged and unused: the connection is refused at once.
	r := runBin(t, h.dir, h.env, "", "servers", "--url", "http://127.0.0.1:1/mcp")
	wantCode(t, r, ExitConnection)
	if !strings.Contains(r.stdout, "failed") {
		t.Errorf("the table does not show the failure:\n%s", r.stdout)
	}
}

func TestHelpOnEveryCommand(t *testing.T) {
	t.Parallel()
	for _, c := range []string{"servers", "tools", "call", "watch", "completion"} {
		r := runBin(t, "", nil, "", c, "--help")
		wantCode(t, r, ExitOK)
		if !strings.Contains(r.stdout, "Usage:") {
			t.Errorf("%s --help printed no usage:\n%s", c, r.stdout)
		}
	}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		r := runBin(t, "", nil, "", "completion", sh)
		wantCode(t, r, ExitOK)
		if !strings.Contains(r.stdout, "mcpdeck") {
			t.Errorf("completion %s printed no script", sh)
		}
	}
}

func TestPrintTableAligns(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	printTable(&b, []string{"NAME", "STATE", "ERROR"}, [][]string{
		{"a", "ready", ""},
		{"longer-name", "failed", "line one\nline\ttwo"},
	})
	golden.RequireEqual(headlessGolden{t, "output/table"}, b.Bytes())
}
