package runtime

import (
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/mcp"
)

// slowStart is how long the slow TypeScript SDK v2 peers wait before they
// read stdin: longer than the 2 s discover fallback, as an npx start, a JVM
// or a cold Python venv is.
const slowStart = "3000"

// slowTSPeer configures a TypeScript SDK v2 server on stdio that reads
// nothing for slowStart milliseconds.
func slowTSPeer(t *testing.T, name string, era jsonrpctest.Era) config.Server {
	t.Helper()
	path, args, env := jsonrpctest.TSServerStdio(t, era, "--delay-ms", slowStart)
	return config.Server{
		Name: name, Transport: config.TransportStdio, Command: path, Args: args, Enabled: true,
		Env: map[string]string{jsonrpctest.EnvNodeModules: envValue(env, jsonrpctest.EnvNodeModules)},
		StartupTimeout: 45 * time.Second, CallTimeout: 30 * time.Second,
	}
}

// servedEra asks the peer which of its instances answers: the era the
// server itself is serving the connection in, whatever mcpdeck believes.
func servedEra(t *testing.T, c *Controller, server string) string {
	t.Helper()
	res, err := c.Call(ctxFor(t, 30*time.Second), CallRequest{Server: server, Tool: "served_era"})
	if err != nil {
		t.Fatalf("served_era: %v", err)
	}
	return text(t, res)
}

// A server slower to start than the discover fallback is spoken to in the
// modern era when it is one, under auto and under modern, and the server
// itself serves the connection in the modern era (a dual-era server that
// also took the initialize sent at the fallback is not used in the legacy
// era it was pinned to).
func TestSlowStartingModernPeers(t *testing.T) {
	for _, tc := range []struct {
		name     string
		era      jsonrpctest.Era
		protocol string
		decision EraDecision
	}{
		{"modern-only auto", jsonrpctest.ModernEra, "", EraSwitched},
		{"dual-era auto", jsonrpctest.DualEra, "", EraSwitched},
		{"modern-only modern", jsonrpctest.ModernEra, "modern", EraPinned},
		{"dual-era modern", jsonrpctest.DualEra, "modern", EraPinned},
		{"dual-era pinned", jsonrpctest.DualEra, mcp.LatestModern, EraPinned},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := slowTSPeer(t, "slow", tc.era)
			c := New(Options{Config: configOf(srv), StopGrace: 500 * time.Millisecond, Protocol: tc.protocol})
			t.Cleanup(func() { shutdownOrFail(t, c) })
			enable(t, c)
			v := serverOf(t, c, "slow")
			if v.State != StateReady || v.Era != EraModern || v.ProtocolVersion != mcp.LatestModern || v.EraDecision != tc.decision {
				t.Fatalf("%s %s %q, %s (%s) %+v; want modern, %s", v.State, v.Era, v.ProtocolVersion, v.EraDecision, v.EraReason, v.LastError, tc.decision)
			}
			if got := servedEra(t, c, "slow"); got != "modern" {
				t.Fatalf("the server serves the connection as %q; mcpdeck says modern (%s)", got, v.EraReason)
			}
		})
	}
}

// shutdownOrFail shuts c down at the end of a test.
func shutdownOrFail(t *testing.T, c *Controller) {
	t.Helper()
	if err := c.Shutdown(ctxFor(t, 30*time.Second)); err != nil {
		t.Errorf("shutdown: %v", err)
	}
}
