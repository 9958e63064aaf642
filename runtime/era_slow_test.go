package runtime

import (
	goruntime "runtime"
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

// slowTSPeer configures a TypeScript SDK v2 server on stdio that handles
// nothing for slowStart milliseconds. With readEarly it reads its stdin
// meanwhile (the probe then looks unanswered, not unread).
func slowTSPeer(t *testing.T, name string, era jsonrpctest.Era, readEarly bool) config.Server {
	t.Helper()
	extra := []string{"--delay-ms", slowStart}
	if readEarly {
		extra = append(extra, "--read-early")
	}
	path, args, env := jsonrpctest.TSServerStdio(t, era, extra...)
	return config.Server{
		Name: name, Transport: config.TransportStdio, Command: path, Args: args, Enabled: true,
		Env:            map[string]string{jsonrpctest.EnvNodeModules: envValue(env, jsonrpctest.EnvNodeModules)},
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
// itself serves the connection in the modern era. One that has not read
// the probe yet is starting, not silent: initialize waits until it has
// (Linux). One that read the probe but answers late gets initialize at the
// fallback, and its late discovery result still wins; a dual-era server
// that took that initialize is not used in the legacy era it pinned the
// process to, but started again.
func TestSlowStartingModernPeers(t *testing.T) {
	t.Parallel()
	unread := EraDiscoverAnswered
	if goruntime.GOOS != "linux" {
		unread = EraSwitched // whether the probe was read cannot be told
	}
	for _, tc := range []struct {
		name      string
		era       jsonrpctest.Era
		readEarly bool
		protocol  string
		decision  EraDecision
	}{
		{"modern-only auto", jsonrpctest.ModernEra, false, "", unread},
		{"dual-era auto", jsonrpctest.DualEra, false, "", unread},
		{"modern-only auto read early", jsonrpctest.ModernEra, true, "", EraSwitched},
		{"dual-era auto read early", jsonrpctest.DualEra, true, "", EraSwitched},
		{"modern-only modern", jsonrpctest.ModernEra, true, "modern", EraPinned},
		{"dual-era modern", jsonrpctest.DualEra, true, "modern", EraPinned},
		{"dual-era pinned", jsonrpctest.DualEra, true, mcp.LatestModern, EraPinned},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each waits out a slow start of its own
			srv := slowTSPeer(t, "slow", tc.era, tc.readEarly)
			c := New(Options{Config: configOf(srv), StopGrace: 500 * time.Millisecond, Protocol: tc.protocol})
			t.Cleanup(func() { shutdownOrFail(t, c) })
			rec := record(t, c)
			enable(t, c)
			v := serverOf(t, c, "slow")
			if v.State != StateReady || v.Era != EraModern || v.ProtocolVersion != mcp.LatestModern || v.EraDecision != tc.decision {
				t.Fatalf("%s %s %q, %s (%s) %+v; want modern, %s", v.State, v.Era, v.ProtocolVersion, v.EraDecision, v.EraReason, v.LastError, tc.decision)
			}
			if got := servedEra(t, c, "slow"); got != "modern" {
				t.Fatalf("the server serves the connection as %q; mcpdeck says modern (%s)", got, v.EraReason)
			}
			sent := requestsSent(rec, "slow", "initialize")
			if (tc.decision == EraSwitched) != (sent != "") {
				t.Fatalf("initialize sent: %q, decided %s", sent, v.EraDecision)
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
