//go:build unix

package jsonrpctest_test

import (
	"slices"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

func find(events []jsonrpctest.TSClientEvent, pred func(jsonrpctest.TSClientEvent) bool) bool {
	return slices.ContainsFunc(events, pred)
}

// checkScenario asserts the whole scenario: connected in era, tools
// listed, a call, progress, a cancellation, an elicitation answered, a list
// change observed.
func checkScenario(t *testing.T, events []jsonrpctest.TSClientEvent, era string, skip ...string) {
	t.Helper()
	checks := map[string]func(jsonrpctest.TSClientEvent) bool{
		"connected in " + era: func(e jsonrpctest.TSClientEvent) bool { return e.Event == "connected" && e.Era == era },
		"tools listed":        func(e jsonrpctest.TSClientEvent) bool { return e.Event == "tools" && slices.Contains(e.Names, "echo") },
		"echo called":         func(e jsonrpctest.TSClientEvent) bool { return e.Event == "call" && e.Text == "hello" },
		"progress":            func(e jsonrpctest.TSClientEvent) bool { return e.Event == "progress" && e.Progress > 0 },
		"cancelled":           func(e jsonrpctest.TSClientEvent) bool { return e.Event == "cancelled" },
		"elicitation": func(e jsonrpctest.TSClientEvent) bool {
			return e.Event == "elicitation" && e.Message == "What is your name?"
		},
		"elicited answer": func(e jsonrpctest.TSClientEvent) bool { return e.Event == "call" && e.Text == "Hello, octocat!" },
		"list change":     func(e jsonrpctest.TSClientEvent) bool { return e.Event == "list_changed" },
		"done":            func(e jsonrpctest.TSClientEvent) bool { return e.Event == "done" },
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
			checkScenario(t, jsonrpctest.RunTSClient(t, c.env, c.args(t)...), c.era, c.skip...)
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
