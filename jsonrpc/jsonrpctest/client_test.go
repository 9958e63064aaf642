//go:build unix

package jsonrpctest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// clientEvent is one line the TypeScript SDK v2 client script prints.
type clientEvent struct {
	Event    string   `json:"event"`
	Era      string   `json:"era"`
	Version  string   `json:"version"`
	Names    []string `json:"names"`
	Tool     string   `json:"tool"`
	Text     string   `json:"text"`
	Message  string   `json:"message"`
	Step     string   `json:"step"`
	Progress float64  `json:"progress"`
}

// runClient runs peers/ts-client.mjs with args and returns its events.
func runClient(t *testing.T, env []string, args ...string) []clientEvent {
	t.Helper()
	path, argv, clientEnv := jsonrpctest.TSClient(t, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, argv...)
	cmd.Env = append(clientEnv, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var events []clientEvent
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var e clientEvent
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

func find(events []clientEvent, pred func(clientEvent) bool) bool {
	return slices.ContainsFunc(events, pred)
}

// checkScenario asserts the whole scenario: connected in era, tools
// listed, a call, progress, a cancellation, an elicitation answered, a list
// change observed.
func checkScenario(t *testing.T, events []clientEvent, era string, skip ...string) {
	t.Helper()
	checks := map[string]func(clientEvent) bool{
		"connected in " + era: func(e clientEvent) bool { return e.Event == "connected" && e.Era == era },
		"tools listed":        func(e clientEvent) bool { return e.Event == "tools" && slices.Contains(e.Names, "echo") },
		"echo called":         func(e clientEvent) bool { return e.Event == "call" && e.Text == "hello" },
		"progress":            func(e clientEvent) bool { return e.Event == "progress" && e.Progress > 0 },
		"cancelled":           func(e clientEvent) bool { return e.Event == "cancelled" },
		"elicitation":         func(e clientEvent) bool { return e.Event == "elicitation" && e.Message == "What is your name?" },
		"elicited answer":     func(e clientEvent) bool { return e.Event == "call" && e.Text == "Hello, octocat!" },
		"list change":         func(e clientEvent) bool { return e.Event == "list_changed" },
		"done":                func(e clientEvent) bool { return e.Event == "done" },
	}
	for what, pred := range checks {
		if !slices.Contains(skip, what) && !find(events, pred) {
			t.Errorf("no %s among %+v", what, events)
		}
	}
}

// TestTSClientAgainstPeers runs the TypeScript SDK v2 client script against
// every server peer and mcpdeck's own modern fake: the script is what later
// tests mcpdeck's server side, so it is proven on known servers first.
func TestTSClientAgainstPeers(t *testing.T) {
	node, _, peers := jsonrpctest.Node(t)
	server := peers + "/ts-server.mjs"
	goPath, goArgs, goEnv := jsonrpctest.Command(jsonrpctest.GoSDKModern)
	fakePath, fakeArgs, fakeEnv := jsonrpctest.Command(jsonrpctest.Modern)
	cases := []struct {
		name string
		era  string
		env  []string
		args func(t *testing.T) []string
		skip []string
	}{
		{"ts dual stdio auto", "modern", nil, func(*testing.T) []string {
			return []string{"--stdio", node, "--arg", server, "--arg", "--era", "--arg", "dual"}
		}, nil},
		{"ts dual stdio legacy", "legacy", nil, func(*testing.T) []string {
			return []string{"--era", "legacy", "--stdio", node, "--arg", server, "--arg", "--era", "--arg", "dual"}
		}, nil},
		{"ts modern http", "modern", nil, func(t *testing.T) []string {
			return []string{"--url", jsonrpctest.TSServerHTTP(t, jsonrpctest.ModernEra)}
		}, nil},
		// The TypeScript SDK's stateless legacy fallback can neither elicit
		// nor announce a list change: it has no stream back to the client.
		{"ts dual http legacy", "legacy", nil, func(t *testing.T) []string {
			return []string{"--era", "legacy", "--add", "-", "--ask", "-", "--url", jsonrpctest.TSServerHTTP(t, jsonrpctest.DualEra)}
		}, []string{"elicitation", "elicited answer", "list change"}},
		{"gosdk stdio", "modern", goEnv, func(*testing.T) []string {
			return append([]string{"--era", "modern", "--stdio", goPath}, argList(goArgs)...)
		}, nil},
		{"gosdk http", "modern", nil, func(t *testing.T) []string { return []string{"--url", jsonrpctest.GoSDKHTTP(t)} }, nil},
		{"mcpdeck modern fake", "modern", fakeEnv, func(*testing.T) []string {
			return append([]string{"--add", "notify_changed", "--stdio", fakePath}, argList(fakeArgs)...)
		}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			checkScenario(t, runClient(t, c.env, c.args(t)...), c.era, c.skip...)
		})
	}
}

func argList(args []string) []string {
	var out []string
	for _, a := range args {
		out = append(out, "--arg", a)
	}
	return out
}
