//go:build unix

package gateway

import (
	"slices"
	"strings"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
)

// TestTSClient runs the TypeScript SDK v2 client script against the
// gateway, over stdio (a real process relaying to the test's gateway) and
// Streamable HTTP, in both eras: list, call, progress, cancel, elicitation,
// sampling answered by the client's own handler, and a list change caused
// by switching a server off through the runtime's API while the client
// waits for one.
func TestTSClient(t *testing.T) {
	t.Parallel()
	jsonrpctest.Node(t) // skips (fails under CI=true) without node and the SDK
	rt := newRuntime(t, peerServer("peer"), demoServer("demo"))
	g := newGateway(t, rt, Options{})
	mux := newHTTPMux(g, HTTPOptions{LoopbackOnly: true}) // the script sends no token
	url := serveMux(t, mux)
	relayPath, relayArgs, relayEnv := relay(t, g)
	stdio := []string{"--stdio", relayPath}
	for _, a := range relayArgs {
		stdio = append(stdio, "--arg", a)
	}
	cases := []struct {
		name, era string
		target    []string
		env       []string
	}{
		{"stdio legacy", "legacy", stdio, relayEnv},
		{"stdio modern", "modern", stdio, relayEnv},
		{"http legacy", "legacy", []string{"--url", url}, nil},
		{"http modern", "modern", []string{"--url", url}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctxFor(t, 60*time.Second)
			if err := rt.SetServerEnabled(ctx, "demo", true); err != nil {
				t.Fatal(err)
			}
			// The script's last step calls a tool and waits for a list
			// change; the tool here changes nothing (demo__echo rejects the
			// arguments as a tool error), so the change it sees is the
			// runtime switching demo off once the call is answered.
			events, stop := g.Subscribe()
			defer stop()
			toggled := make(chan error, 1)
			go func() {
				for e := range events {
					if f, ok := e.(RequestFinished); ok && f.Request.Name == "demo__echo" {
						toggled <- rt.SetServerEnabled(ctx, "demo", false)
						return
					}
				}
			}()
			stderr, stopStderr := rt.Subscribe(runtime.SubscribeOptions{Buffer: 1 << 14})
			defer stopStderr()
			args := append([]string{"--era", tc.era, "--echo", "peer__echo", "--slow", "peer__slow", "--ask", "peer__ask", "--sample", "peer__sample", "--add", "demo__echo"}, tc.target...)
			got := jsonrpctest.RunTSClient(t, tc.env, args...)
			checkTS(t, got, tc.era)
			select {
			case err := <-toggled:
				if err != nil {
					t.Fatalf("switching demo off: %v", err)
				}
			case <-ctx.Done():
				t.Fatal("the list-change step never called demo__echo")
			}
			waitFor(t, "the server's cancellation", stderr, func(e runtime.Event) bool {
				l, ok := e.(runtime.StderrLine)
				return ok && l.Server == "peer" && strings.Contains(l.Line, "cancelled slow")
			})
		})
	}
}

// checkTS asserts the whole scenario of one run of the script.
func checkTS(t *testing.T, events []jsonrpctest.TSClientEvent, era string) {
	t.Helper()
	checks := map[string]func(jsonrpctest.TSClientEvent) bool{
		"connected in " + era: func(e jsonrpctest.TSClientEvent) bool {
			return e.Event == "connected" && e.Era == era && e.Server == "mcpdeck-gateway"
		},
		"tools listed": func(e jsonrpctest.TSClientEvent) bool {
			return e.Event == "tools" && slices.Contains(e.Names, "peer__echo") && slices.Contains(e.Names, "demo__echo")
		},
		"echo called": func(e jsonrpctest.TSClientEvent) bool {
			return e.Event == "call" && e.Tool == "peer__echo" && e.Text == "hello"
		},
		"progress":      func(e jsonrpctest.TSClientEvent) bool { return e.Event == "progress" && e.Progress > 0 },
		"slow answered": func(e jsonrpctest.TSClientEvent) bool { return e.Event == "call" && e.Text == "slept 0.3s" },
		"cancelled":     func(e jsonrpctest.TSClientEvent) bool { return e.Event == "cancelled" },
		"elicitation": func(e jsonrpctest.TSClientEvent) bool {
			return e.Event == "elicitation" && e.Message == "What is your name?"
		},
		"elicited answer": func(e jsonrpctest.TSClientEvent) bool { return e.Event == "call" && e.Text == "Hello, octocat!" },
		"sampling request": func(e jsonrpctest.TSClientEvent) bool {
			return e.Event == "sampling" && e.Message == "Capital of France?"
		},
		"sampled answer": func(e jsonrpctest.TSClientEvent) bool {
			return e.Event == "call" && e.Text == "model said: Paris (ts-client-model)"
		},
		"list change": func(e jsonrpctest.TSClientEvent) bool { return e.Event == "list_changed" },
		"done":        func(e jsonrpctest.TSClientEvent) bool { return e.Event == "done" },
	}
	for what, pred := range checks {
		if !slices.ContainsFunc(events, pred) {
			t.Errorf("no %s among %+v", what, events)
		}
	}
}
