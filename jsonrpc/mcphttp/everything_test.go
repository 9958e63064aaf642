package mcphttp_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/jsonrpc/mcphttp"
)

// startEverything runs @modelcontextprotocol/server-everything in mode
// ("streamableHttp" or "sse") on a free loopback port and returns its base
// URL. It waits for the server's "listening" line on stderr, then for a
// TCP connect to succeed, both with a deadline; the process group is
// killed at cleanup.
func startEverything(t *testing.T, mode string) string {
	t.Helper()
	node, script := jsonrpctest.Everything(t)
	port := freePort(t)
	cmd := exec.Command(node, script, mode)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		lines []string
	)
	listening := make(chan struct{})
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			mu.Lock()
			lines = append(lines, sc.Text())
			mu.Unlock()
			if strings.Contains(sc.Text(), strconv.Itoa(port)) {
				once.Do(func() { close(listening) })
			}
		}
	}()
	exited := make(chan struct{})
	var waitErr error
	go func() {
		<-drained
		waitErr = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	})
	select {
	case <-listening:
	case <-exited:
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("server-everything %s exited (%v) before listening:\n%s", mode, waitErr, strings.Join(lines, "\n"))
	case <-time.After(waitLimit):
		t.Fatalf("server-everything %s did not start listening on port %d within %s", mode, port, waitLimit)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	conn, err := (&net.Dialer{Timeout: waitLimit}).Dial("tcp", addr)
	if err != nil {
		t.Fatalf("connecting to server-everything: %v", err)
	}
	conn.Close()
	return "http://" + addr
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func TestEverythingStreamable(t *testing.T) {
	base := startEverything(t, "streamableHttp")
	c := dial(t, mcphttp.Options{URL: base + "/mcp"})
	c.initialize(t)
	if c.stream.SessionID() == "" {
		t.Fatal("server-everything gave no session id")
	}
	// It registers conditional tools as notifications/initialized is
	// handled and announces them on the standalone GET stream.
	c.waitNote(t, "notifications/tools/list_changed")
	exerciseEverything(t, c)
}

func TestEverythingSSE(t *testing.T) {
	base := startEverything(t, "sse")
	c := dial(t, mcphttp.Options{URL: base + "/sse", Legacy: true})
	c.initialize(t)
	c.waitNote(t, "notifications/tools/list_changed")
	exerciseEverything(t, c)
}

// exerciseEverything lists tools, calls echo, watches progress and
// cancels a long call.
func exerciseEverything(t *testing.T, c *client) {
	t.Helper()
	names := c.toolNames(t)
	for _, want := range []string{"echo", "trigger-long-running-operation"} {
		if !slices.Contains(names, want) {
			t.Fatalf("tools/list = %v, missing %s", names, want)
		}
	}
	res, err := c.callTool(ctxT(t), "echo", map[string]any{"message": "over http"}, nil)
	if err != nil || res.text() != "Echo: over http" {
		t.Fatalf("echo = %+v, %v", res, err)
	}

	res, err = c.callTool(ctxT(t), "trigger-long-running-operation", map[string]any{"duration": 0.3, "steps": 3}, map[string]any{"progressToken": "p1"})
	if err != nil || !strings.Contains(res.text(), "completed") {
		t.Fatalf("long-running operation = %+v, %v", res, err)
	}
	var progress []string
	for len(progress) < 3 {
		n := c.waitNote(t, "notifications/progress")
		progress = append(progress, string(n.Params))
	}
	for i, p := range progress {
		if !strings.Contains(p, `"p1"`) || !strings.Contains(p, fmt.Sprintf(`"progress":%d`, i+1)) {
			t.Errorf("progress %d = %s", i, p)
		}
	}

	// Cancel a long call once it has reported progress: the caller gets
	// ErrCancelled and the connection keeps working.
	ctx, cancel := context.WithCancel(ctxT(t))
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := c.callTool(ctx, "trigger-long-running-operation", map[string]any{"duration": 60, "steps": 600}, map[string]any{"progressToken": "p2"})
		errc <- err
	}()
	c.waitNote(t, "notifications/progress")
	cancel()
	if err := waitSignal(t, errc, "the cancelled call to return"); !errors.Is(err, jsonrpc.ErrCancelled) {
		t.Fatalf("cancelled call: %v", err)
	}
	res, err = c.callTool(ctxT(t), "echo", map[string]any{"message": "still here"}, nil)
	if err != nil || res.text() != "Echo: still here" {
		t.Fatalf("echo after cancel = %+v, %v", res, err)
	}
}
