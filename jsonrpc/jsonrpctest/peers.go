package jsonrpctest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// EnvNodeModules names the environment variable holding the node_modules
// folder the TypeScript SDK v2 peers load their packages from (.ci/run
// installs .ci/npm into .deps/node_modules).
const EnvNodeModules = "MCPDECK_NODE_MODULES"

// SDKPinned is the version of @modelcontextprotocol/server and
// @modelcontextprotocol/client the peer scripts are written against.
const SDKPinned = "2.4.0"

// Era selects which protocol eras a TypeScript SDK v2 peer server serves.
type Era string

// The eras a peer server can serve.
const (
	// DualEra serves 2026-07-28 and, on an initialize opening, the legacy
	// revisions.
	DualEra Era = "dual"
	// ModernEra serves only 2026-07-28 and rejects initialize with -32022.
	ModernEra Era = "modern"
)

// Node returns the node executable, the node_modules folder holding the
// pinned TypeScript SDK v2 packages, and the folder of the peer scripts.
// It looks at $MCPDECK_NODE_MODULES, then .deps/node_modules in the module
// root. When something is missing the test is skipped on a developer's
// machine but fails under CI=true: CI must never pass by skipping the
// interop tests.
func Node(t testing.TB) (node, modules, peers string) {
	t.Helper()
	root, _ := moduleRoot()
	modules = os.Getenv(EnvNodeModules)
	if modules == "" && root != "" {
		modules = filepath.Join(root, ".deps", "node_modules")
	}
	node, err := exec.LookPath("node")
	missing := ""
	switch {
	case err != nil:
		missing = "node is not on PATH"
	case root == "":
		missing = "the module root (go.mod) was not found from " + mustGetwd()
	default:
		for _, pkg := range []string{"server", "client"} {
			if _, err := os.Stat(filepath.Join(modules, "@modelcontextprotocol", pkg, "package.json")); err != nil {
				missing = "@modelcontextprotocol/" + pkg + " is not installed in " + modules
			}
		}
	}
	if missing != "" {
		msg := missing + ": run `mkdir -p .deps && cp .ci/npm/package*.json .deps/ && npm ci --prefix .deps` (as .ci/run does) or set " + EnvNodeModules
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node, modules, filepath.Join(root, "jsonrpc", "jsonrpctest", "peers")
}

func mustGetwd() string {
	wd, _ := os.Getwd()
	return wd
}

// TSServerStdio returns the command for a TypeScript SDK v2 peer server on
// stdio (peers/ts-server.mjs), for the caller to start: path, arguments and
// the environment (the current one plus MCPDECK_NODE_MODULES). extra is
// appended to the script's arguments (e.g. "--delay-ms", "3000").
func TSServerStdio(t testing.TB, era Era, extra ...string) (path string, args []string, env []string) {
	t.Helper()
	node, modules, peers := Node(t)
	return node, append([]string{filepath.Join(peers, "ts-server.mjs"), "--transport", "stdio", "--era", string(era)}, extra...), peerEnv(modules)
}

// TSServerHTTP starts a TypeScript SDK v2 peer server on Streamable HTTP
// on a free loopback port and returns its endpoint URL. The process group
// is killed at cleanup.
func TSServerHTTP(t testing.TB, era Era) string {
	t.Helper()
	node, modules, peers := Node(t)
	return startListening(t, node, []string{filepath.Join(peers, "ts-server.mjs"), "--transport", "http", "--era", string(era), "--port", "0"}, peerEnv(modules))
}

// TSClient returns the command for the TypeScript SDK v2 client script
// (peers/ts-client.mjs) with the given arguments; see the script for them.
func TSClient(t testing.TB, args ...string) (path string, argv []string, env []string) {
	t.Helper()
	node, modules, peers := Node(t)
	return node, append([]string{filepath.Join(peers, "ts-client.mjs")}, args...), peerEnv(modules)
}

// TSClientEvent is one line peers/ts-client.mjs prints.
type TSClientEvent struct {
	Event    string   `json:"event"`
	Era      string   `json:"era"`
	Version  string   `json:"version"`
	Server   string   `json:"server"`
	Names    []string `json:"names"`
	Tool     string   `json:"tool"`
	Text     string   `json:"text"`
	IsError  bool     `json:"isError"`
	Message  string   `json:"message"`
	Step     string   `json:"step"`
	Progress float64  `json:"progress"`
}

// RunTSClient runs peers/ts-client.mjs with args and extra environment
// and returns the events it printed. A step that failed, a line that is
// not an event, or a failed exit fails the test.
func RunTSClient(t testing.TB, env []string, args ...string) []TSClientEvent {
	t.Helper()
	path, argv, clientEnv := TSClient(t, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, argv...)
	cmd.Env = append(clientEnv, env...)
	ownGroup(cmd)
	cmd.Cancel = func() error { killGroup(cmd.Process); return nil }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var events []TSClientEvent
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var e TSClientEvent
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			t.Fatalf("the client printed a line that is not an event: %q", sc.Text())
		}
		events = append(events, e)
		if e.Event == "error" {
			t.Errorf("client step %s failed: %s", e.Step, e.Message)
		}
	}
	if err != nil {
		t.Errorf("client exited with %v; stderr:\n%s", err, stderr.String())
	}
	return events
}

// GoSDKHTTP starts the go-sdk peer (GoSDKModernHTTP, this test binary
// re-executed) and returns its endpoint URL. The package's TestMain must
// call MaybeServe.
func GoSDKHTTP(t testing.TB) string {
	t.Helper()
	path, args, env := Command(GoSDKModernHTTP)
	return startListening(t, path, args, env)
}

func peerEnv(modules string) []string {
	env := []string{EnvNodeModules + "=" + modules}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, EnvNodeModules+"=") {
			env = append(env, kv)
		}
	}
	return env
}

// peerWait bounds how long a peer may take to start listening.
const peerWait = 20 * time.Second

// startListening runs a peer server that prints "listening URL" on stdout
// once it accepts connections, and returns URL. stderr is kept for the
// failure message.
func startListening(t testing.TB, path string, args, env []string) string {
	t.Helper()
	cmd := exec.Command(path, args...)
	cmd.Env = env
	ownGroup(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errBuf syncBuffer
	cmd.Stderr = &errBuf
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting peer %s: %v", path, err)
	}
	url := make(chan string, 1)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
				select {
				case url <- u:
				default:
				}
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
		if t.Failed() {
			// What the peer said is often why the test failed.
			t.Logf("peer %v stderr:\n%s", args, errBuf.String())
		}
	})
	select {
	case u := <-url:
		return u
	case <-exited:
		t.Fatalf("peer %v exited (%v) before listening:\n%s", args, waitErr, errBuf.String())
	case <-time.After(peerWait):
		t.Fatalf("peer %v did not print its url within %s:\n%s", args, peerWait, errBuf.String())
	}
	return ""
}

// syncBuffer collects a child's stderr for failure messages.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
