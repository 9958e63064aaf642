package suite

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// peer is how a test starts the server of a suite.
type peer struct {
	name string
	srv  config.Server
}

func stdioPeer(name, command string, args []string, env map[string]string) peer {
	return peer{name: name, srv: config.Server{Name: name, Enabled: true, Transport: config.TransportStdio, Command: command, Args: args, Env: env,
		EnvInherit: config.EnvInherit{All: true}, StartupTimeout: 30 * time.Second, CallTimeout: 30 * time.Second, PingInterval: 0}}
}

func httpPeer(name, url string) peer {
	return peer{name: name, srv: config.Server{Name: name, Enabled: true, Transport: config.TransportHTTP, URL: url,
		StartupTimeout: 30 * time.Second, CallTimeout: 30 * time.Second, PingInterval: 0}}
}

// goSDKPeer runs this test binary as the Go SDK suite peer.
func goSDKPeer(mode string) peer {
	return stdioPeer("gosdk-"+mode, os.Args[0], []string{"-test.run=^$"}, map[string]string{envPeer: mode, "GORACE": "atexit_sleep_ms=0"})
}

// tsPeer runs testdata/ts-suite-peer.mjs on stdio.
func tsPeer(t *testing.T) peer {
	node, modules, _ := jsonrpctest.Node(t)
	return stdioPeer("ts2", node, []string{peerScript(t), "--transport", "stdio"}, map[string]string{jsonrpctest.EnvNodeModules: modules})
}

func peerScript(t *testing.T) string {
	p, err := filepath.Abs(filepath.Join("testdata", "ts-suite-peer.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// listening starts a server that prints "listening URL" and returns the
// URL; the process group is killed at cleanup.
func listening(t *testing.T, path string, args, env []string) string {
	t.Helper()
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
				lines <- u
			}
		}
		close(lines)
	}()
	select {
	case u, ok := <-lines:
		if !ok {
			t.Fatalf("%s exited before listening", path)
		}
		return u
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not say where it listens within 30s", path)
	}
	return ""
}

// opener starts p for every run, whatever server the suite names.
func opener(p peer) Opener {
	return func(ctx context.Context, s *Suite, protocol string, _ map[string]string) (*runtime.Controller, string, func(), error) {
		rt := runtime.New(runtime.Options{Config: &config.Config{Servers: []config.Server{p.srv}}, Protocol: protocol, ClientVersion: "test", StopGrace: time.Second})
		closeFn := func() { _ = rt.Shutdown(context.Background()) }
		if err := rt.SetEnabled(ctx, true); err != nil {
			closeFn()
			return nil, "", nil, err
		}
		v, _ := rt.Snapshot().Server(p.srv.Name)
		if !v.State.Live() {
			closeFn()
			return nil, "", nil, fmt.Errorf("%s is %s: %v", p.srv.Name, v.State, v.LastError)
		}
		return rt, p.srv.Name, closeFn, nil
	}
}

// update rewrites the committed snapshots of testdata's suites.
var update = flag.Bool("update", false, "rewrite the snapshots in testdata/__snapshots__")

// workCopy copies a suite of testdata, with its snapshots, into a
// temporary folder, so a run can never change the committed ones (with
// -update it returns the committed suite itself).
func workCopy(t *testing.T, name string) string {
	t.Helper()
	if *update {
		return filepath.Join("testdata", name+Ext)
	}
	dir := t.TempDir()
	src := filepath.Join("testdata", name+Ext)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, name+Ext)
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if snap, err := os.ReadFile(filepath.Join("testdata", SnapshotDir, name+".snap.json")); err == nil {
		if err := os.MkdirAll(filepath.Join(dir, SnapshotDir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, SnapshotDir, name+".snap.json"), snap, 0o644); err != nil {
			t.Fatal(err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return dst
}

// runSuite runs every protocol of the suite at path against p, with
// missing snapshots failing (as under CI).
func runSuite(t *testing.T, path string, p peer, protocols ...string) []*Result {
	t.Helper()
	s, err := ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(protocols) == 0 {
		protocols = s.Protocols
	}
	snaps := OpenSnapshots(s)
	var out []*Result
	for _, proto := range protocols {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		out = append(out, Run(ctx, s, proto, Options{Open: opener(p), Snapshots: snaps, Update: *update}))
		cancel()
	}
	if err := snaps.Save(*update); err != nil {
		t.Fatal(err)
	}
	return out
}

// requirePassed fails the test with every failure of the runs.
func requirePassed(t *testing.T, results []*Result) {
	t.Helper()
	for _, r := range results {
		if r.Error != "" {
			t.Errorf("%s: %s", r.Name(), r.Error)
		}
		c := r.Count()
		t.Logf("%s on %s %s: %d of %d steps passed in %s", r.Name(), r.Era, r.Version, c.Passed, c.Steps, r.Duration.Round(time.Millisecond))
		if c.Steps == 0 {
			t.Errorf("%s ran no step", r.Name())
		}
		if r.Error != "" {
			continue // said once, above
		}
		for _, s := range r.Steps {
			if s.Status == Passed {
				continue
			}
			var b strings.Builder
			for _, f := range s.Failures {
				b.WriteString("\n" + f.Text())
			}
			t.Errorf("%s (era %s %s): step %s %s: %s%s", r.Name(), r.Era, r.Version, s.Key, s.Status, s.Error, b.String())
		}
	}
}

func requireEra(t *testing.T, results []*Result, want ...string) {
	t.Helper()
	for i, r := range results {
		if r.Era != want[i] {
			t.Errorf("run %s negotiated era %q, want %q", r.Name(), r.Era, want[i])
		}
	}
}

func TestPeerSuiteGoSDKStdio(t *testing.T) {
	results := runSuite(t, workCopy(t, "peer"), goSDKPeer("stdio"))
	requirePassed(t, results)
	requireEra(t, results, "legacy", "modern")
}

func TestPeerSuiteTypeScriptStdio(t *testing.T) {
	results := runSuite(t, workCopy(t, "peer"), tsPeer(t))
	requirePassed(t, results)
	requireEra(t, results, "legacy", "modern")
}

func TestPeerSuiteGoSDKHTTP(t *testing.T) {
	path := workCopy(t, "peer")
	// go-sdk serves 2026-07-28 over stateless HTTP only, and legacy
	// resource updates only over HTTP with sessions: one server for each.
	sessions := listening(t, os.Args[0], []string{"-test.run=^$"}, []string{envPeer + "=http-sessions", "GORACE=atexit_sleep_ms=0"})
	stateless := listening(t, os.Args[0], []string{"-test.run=^$"}, []string{envPeer + "=http", "GORACE=atexit_sleep_ms=0"})
	results := runSuite(t, path, httpPeer("gosdk-http", sessions), "legacy")
	results = append(results, runSuite(t, path, httpPeer("gosdk-http", stateless), "modern")...)
	requirePassed(t, results)
	requireEra(t, results, "legacy", "modern")
}

func TestPeerSuiteTypeScriptHTTP(t *testing.T) {
	node, modules, _ := jsonrpctest.Node(t)
	url := listening(t, node, []string{peerScript(t), "--transport", "http", "--port", "0"}, []string{jsonrpctest.EnvNodeModules + "=" + modules})
	// The TypeScript SDK serves legacy clients over HTTP statelessly only
	// (createMcpHandler's legacy: "stateless"): no GET stream, so no
	// resource update could reach one; the legacy era is run on stdio.
	results := runSuite(t, workCopy(t, "peer"), httpPeer("ts2-http", url), "modern")
	requirePassed(t, results)
	requireEra(t, results, "modern")
}

func TestEverythingSuite(t *testing.T) {
	node, script := jsonrpctest.Everything(t)
	t.Setenv("MCPDECK_SERVER_EVERYTHING", script)
	results := runSuite(t, workCopy(t, "everything"), stdioPeer("everything", node, []string{script}, nil))
	requirePassed(t, results)
	requireEra(t, results, "legacy")
}

// The same suite over Streamable HTTP and the legacy HTTP+SSE transport.
func TestEverythingSuiteRemote(t *testing.T) {
	_, script := jsonrpctest.Everything(t)
	t.Setenv("MCPDECK_SERVER_EVERYTHING", script)
	for _, tt := range []struct{ mode, path string }{{"streamableHttp", "/mcp"}, {"sse", "/sse"}} {
		t.Run(tt.mode, func(t *testing.T) {
			p := httpPeer("everything-"+tt.mode, jsonrpctest.EverythingHTTP(t, tt.mode)+tt.path)
			if tt.mode == "sse" {
				p.srv.Transport = config.TransportSSE
			}
			results := runSuite(t, workCopy(t, "everything"), p)
			requirePassed(t, results)
			requireEra(t, results, "legacy")
		})
	}
}
