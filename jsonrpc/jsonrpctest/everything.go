package jsonrpctest

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"mcpdeck/internal/porttest"
)

// EnvEverything names the environment variable holding the path of the
// reference server @modelcontextprotocol/server-everything's entry point
// (dist/index.js), as installed by .ci/run into the git-ignored .deps/.
const EnvEverything = "MCPDECK_SERVER_EVERYTHING"

// EverythingPinned is the version of server-everything the tests are written against.
const EverythingPinned = "2026.8.31"

// Everything returns the node executable and the reference server's entry
// point. It looks at $MCPDECK_SERVER_EVERYTHING, then at .deps/ in the module
// root. When it is missing the test is skipped on a developer's machine, but
// fails under CI=true: CI must never pass by skipping the interop tests.
func Everything(t testing.TB) (node, script string) {
	t.Helper()
	script = os.Getenv(EnvEverything)
	if script == "" {
		if root, ok := moduleRoot(); ok {
			candidate := filepath.Join(root, ".deps", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
			if _, err := os.Stat(candidate); err == nil {
				script = candidate
			}
		}
	}
	node, err := exec.LookPath("node")
	if script == "" || err != nil {
		msg := "server-everything is not installed: run `npm install --prefix .deps @modelcontextprotocol/server-everything@" +
			EverythingPinned + "` (as .ci/run does) or set " + EnvEverything
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node, script
}

func moduleRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// everythingWait bounds how long server-everything may take to listen.
const everythingWait = 20 * time.Second

// EverythingHTTP runs @modelcontextprotocol/server-everything in mode
// ("streamableHttp" or "sse") on a free loopback port and returns its base
// URL. It waits for the server's "listening" line on stderr, then for a
// TCP connect to succeed, both with a deadline; the process group is
// killed at cleanup.
func EverythingHTTP(t testing.TB, mode string) string {
	t.Helper()
	node, script := Everything(t)
	port := porttest.Free(t) // outside the ephemeral range: no connect(2) takes it first
	cmd := exec.Command(node, script, mode)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	ownGroup(cmd)
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
		killGroup(cmd.Process)
		<-exited
	})
	select {
	case <-listening:
	case <-exited:
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("server-everything %s exited (%v) before listening:\n%s", mode, waitErr, strings.Join(lines, "\n"))
	case <-time.After(everythingWait):
		t.Fatalf("server-everything %s did not start listening on port %d within %s", mode, port, everythingWait)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	conn, err := (&net.Dialer{Timeout: everythingWait}).Dial("tcp", addr)
	if err != nil {
		t.Fatalf("connecting to server-everything: %v", err)
	}
	conn.Close()
	return "http://" + addr
}
