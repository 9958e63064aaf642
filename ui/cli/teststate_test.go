package cli

import (
	"strings"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// TestEraMemoryIsPerTest: two tests that start the same server command do
// not share era memory. Each run of the binary a test makes gets the
// test's own state directory (testEnv), so the second test probes the
// server afresh; with one state directory for the whole package it found
// the era the first test remembered, and its outcome depended on the order
// the tests ran in.
func TestEraMemoryIsPerTest(t *testing.T) {
	t.Parallel()
	path, args, _ := jsonrpctest.Command(jsonrpctest.Normal)
	cmdline := path + " " + strings.Join(args, " ")
	env := []string{jsonrpctest.EnvMode + "=" + string(jsonrpctest.Normal)}
	decision := func(t *testing.T) string {
		t.Helper()
		r := runBin(t, "", env, "", "servers", "--json", "--stdio", cmdline)
		wantCode(t, r, ExitOK)
		out := decodeServers(t, r)
		if len(out.Servers) != 1 {
			t.Fatalf("servers reported %+v", out.Servers)
		}
		return out.Servers[0].EraDecision
	}
	t.Run("first", func(t *testing.T) {
		if d := decision(t); d == "remembered" {
			t.Fatalf("the first run of the test found an era remembered by another test")
		}
		// Within one test the memory works: the second run remembers.
		if d := decision(t); d != "remembered" {
			t.Fatalf("the second run decided %q, want remembered", d)
		}
	})
	t.Run("second", func(t *testing.T) {
		if d := decision(t); d == "remembered" {
			t.Fatalf("this test found the era the first one remembered: the tests share state")
		}
	})
}
