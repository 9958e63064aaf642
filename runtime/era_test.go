package runtime

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/mcp"
)

// Every order in which the probe's answer, the fallback wait and the
// initialize sent alongside can arrive on a stdio pipe, and what each
// means.
func TestProbeStep(t *testing.T) {
	t.Parallel()
	modern := &mcp.Verdict{Era: mcp.Modern, Version: mcp.LatestModern}
	retry := &mcp.Verdict{Era: mcp.Modern, Version: mcp.LatestModern, Retry: true}
	unusable := &mcp.Verdict{Era: mcp.Modern, Err: errors.New("no version in common")}
	legacy := &mcp.Verdict{Era: mcp.Legacy}
	closed := &mcp.Verdict{Era: mcp.Legacy, Restart: true}
	for _, tc := range []struct {
		name string
		st   probeState
		want probeAction
	}{
		{"probe out, fallback running", probeState{fallsBack: true}, probeWait},
		{"probe out, fallback over", probeState{fallsBack: true, fallbackOver: true}, probeSendInitialize},
		{"probe out, no legacy to fall back to", probeState{fallbackOver: true}, probeWait},
		{"probe and initialize out", probeState{fallsBack: true, fallbackOver: true, init: initPending}, probeWait},
		{"initialize answered first", probeState{fallsBack: true, init: initAccepted}, probeLegacyForNow},
		{"initialize refused as a modern server does", probeState{fallsBack: true, init: initRefused, initModern: true}, probeWait},
		// go-sdk refuses an initialize after the discover it took, and may
		// answer the refusal first: the probe's answer is waited for.
		{"initialize refused otherwise, probe still out", probeState{fallsBack: true, init: initRefused}, probeWait},
		{"initialize refused otherwise, probe silent", probeState{fallsBack: true, init: initRefused, refusalWaitOver: true}, probeFailInit},
		{"discover answered after initialize refused otherwise", probeState{fallsBack: true, verdict: modern, init: initRefused}, probeModern},

		{"discover answered in time", probeState{fallsBack: true, verdict: modern}, probeModern},
		{"discover answered, modern preference", probeState{verdict: modern}, probeModern},
		{"discover answered late, initialize still out", probeState{fallsBack: true, verdict: modern, init: initPending}, probeWait},
		{"discover answered late, initialize refused", probeState{fallsBack: true, verdict: modern, init: initRefused, initModern: true}, probeModern},
		{"discover answered late, initialize accepted", probeState{fallsBack: true, verdict: modern, init: initAccepted}, probeRestartModern},
		{"-32022 naming a mutual version", probeState{fallsBack: true, verdict: retry}, probeRetryDiscover},
		{"-32022 late, initialize out", probeState{fallsBack: true, verdict: retry, init: initPending}, probeWait},
		{"-32022 late, initialize accepted", probeState{fallsBack: true, verdict: retry, init: initAccepted}, probeRestartModern},
		{"modern but unusable", probeState{fallsBack: true, verdict: unusable, init: initPending}, probeFailVerdict},

		{"legacy error", probeState{fallsBack: true, verdict: legacy}, probeSendInitialize},
		{"legacy error, initialize out", probeState{fallsBack: true, verdict: legacy, init: initPending}, probeWait},
		{"legacy error, initialize accepted", probeState{fallsBack: true, verdict: legacy, init: initAccepted}, probeLegacy},
		{"legacy error, initialize refused", probeState{fallsBack: true, verdict: legacy, init: initRefused}, probeFailInit},
		{"legacy error, modern preference", probeState{verdict: legacy}, probeFailLegacyOnly},
		{"closed on discover", probeState{fallsBack: true, verdict: closed}, probeRestartLegacy},
		{"closed on discover, initialize out", probeState{fallsBack: true, verdict: closed, init: initPending}, probeRestartLegacy},
		{"closed on discover after initialize refused otherwise", probeState{fallsBack: true, verdict: closed, init: initRefused}, probeFailInit},
		{"closed on discover, modern preference", probeState{verdict: closed}, probeFailLegacyOnly},
	} {
		if got := tc.st.next(); got != tc.want {
			t.Errorf("%s: %d; want %d", tc.name, got, tc.want)
		}
	}
}

func TestEraDecisionNames(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, d := range EraDecisions() {
		name := d.String()
		if name == "" || seen[name] {
			t.Errorf("decision %d: name %q empty or repeated", d, name)
		}
		seen[name] = true
	}
	if EraUndecided.String() != "" || EraDecision(99).String() != "" {
		t.Error("an undecided or unknown decision must have no name")
	}
}

// The identity an era is remembered by: command line, directory and env
// names for stdio (not values: a rotated token is the same server), the
// origin for a remote server.
func TestEraIdentity(t *testing.T) {
	t.Parallel()
	base := config.Server{Transport: config.TransportStdio, Command: "npx", Args: []string{"-y", "srv"}, Env: map[string]string{"TOKEN": "a"}}
	same := base
	same.Env = map[string]string{"TOKEN": "b"}
	if eraIdentity(base) != eraIdentity(same) {
		t.Error("a changed env value changed the identity")
	}
	for name, other := range map[string]config.Server{
		"args":     {Transport: config.TransportStdio, Command: "npx", Args: []string{"-y", "srv2"}, Env: base.Env},
		"env name": {Transport: config.TransportStdio, Command: "npx", Args: base.Args, Env: map[string]string{"KEY": "a"}},
		"cwd":      {Transport: config.TransportStdio, Command: "npx", Args: base.Args, Env: base.Env, Cwd: "/elsewhere"},
		"split":    {Transport: config.TransportStdio, Command: "npx", Args: []string{"-y srv"}, Env: base.Env},
	} {
		if eraIdentity(base) == eraIdentity(other) {
			t.Errorf("a different %s has the same identity", name)
		}
	}
	a := config.Server{Transport: config.TransportHTTP, URL: "https://mcp.example.com/a?x=1"}
	b := config.Server{Transport: config.TransportHTTP, URL: "HTTPS://MCP.example.com/b"}
	c := config.Server{Transport: config.TransportHTTP, URL: "https://mcp.example.com:8443/a"}
	if eraIdentity(a) != eraIdentity(b) || eraIdentity(a) == eraIdentity(c) {
		t.Error("remote servers are remembered per origin")
	}
}

// eraController is a controller whose era memory is the file in dir.
// generousDiscoverWait is the discover fallback of tests that expect
// server/discover answered before it: a loaded CI machine has taken more
// than the default 2 s to answer it (TestStaleEraOfRealStdioServers, 1 run
// in 16 with four copies of the package's tests at once).
const generousDiscoverWait = 20 * time.Second

func eraController(t *testing.T, dir string, servers ...config.Server) *Controller {
	t.Helper()
	mem, err := OpenEraMemory(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := New(Options{Config: configOf(servers...), StopGrace: 500 * time.Millisecond, Eras: mem})
	t.Cleanup(func() { shutdownOrFail(t, c) })
	return c
}

// sentDiscover reports whether the recorder saw a server/discover request
// go out to server.
func sentDiscover(r *recorder, server string) bool {
	return requestsSent(r, server, mcp.MethodDiscover) != ""
}

// requestsSent lists the requests among methods that went out to server,
// in order.
func requestsSent(r *recorder, server string, methods ...string) string {
	var out []string
	for _, e := range drain(r) {
		if f, ok := e.(TrafficFrame); ok && f.Server == server && f.Frame.Dir.String() == "out" && slices.Contains(methods, f.Frame.Method) {
			out = append(out, f.Frame.Method)
		}
	}
	return strings.Join(out, " ")
}

// A legacy server that never answers server/discover pays the fallback
// wait once: the next run remembers it (eras.json in the state directory)
// and starts it with initialize at once.
func TestSilentLegacyServerRememberedAcrossRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := fakeServer("l", jsonrpctest.LegacySilentDiscover)
	first := eraController(t, dir, srv)
	enable(t, first)
	if v := serverOf(t, first, "l"); v.State != StateReady || v.EraDecision != EraTimedOut {
		t.Fatalf("first run: %s %s (%s)", v.State, v.EraDecision, v.EraReason)
	}
	shutdownOrFail(t, first)

	path := filepath.Join(dir, "eras.json")
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("eras.json: %v %v", info, err)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), srv.Command) || !strings.Contains(string(data), `"era": "legacy"`) {
		t.Fatalf("eras.json holds the command line, or not the era:\n%s", data)
	}

	second := eraController(t, dir, srv)
	rec := record(t, second)
	enable(t, second)
	v := serverOf(t, second, "l")
	if v.State != StateReady || v.Era != EraLegacy || v.EraDecision != EraRemembered {
		t.Fatalf("second run: %s %s, %s (%s)", v.State, v.Era, v.EraDecision, v.EraReason)
	}
	if sentDiscover(rec, "l") {
		t.Fatal("the second run probed a server remembered as legacy")
	}
}

// A remembered era that went stale (the same command line now runs a
// server of the other era) is forgotten and the server probed afresh, in
// the same connection attempt when the server says so, and remembered
// anew.
func TestRememberedEraGoneStale(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		before, now jsonrpctest.Mode // same identity: only env values differ
		era         Era
		decision    EraDecision
		sent        string // initialize and server/discover, in order
	}{
		// The remembered initialize is refused (-32022): a fresh probe follows.
		{"legacy, now modern-only", jsonrpctest.Normal, jsonrpctest.Modern, EraModern, EraDiscoverAnswered, "initialize server/discover"},
		// The remembered modern probe gets -32601: initialize follows.
		{"modern, now legacy", jsonrpctest.Modern, jsonrpctest.Normal, EraLegacy, EraLegacyError, "server/discover initialize"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			c := eraController(t, dir, fakeServer("s", tc.before))
			enable(t, c)
			shutdownOrFail(t, c)

			now := fakeServer("s", tc.now)
			// The fresh probe after a refused initialize waits this long
			// before initialize goes too; the default 2 s is within reach of
			// a loaded machine's answer, which would make it switched.
			now.DiscoverTimeout = generousDiscoverWait
			c = eraController(t, dir, now)
			rec := record(t, c)
			enable(t, c)
			if got := requestsSent(rec, "s", "initialize", mcp.MethodDiscover); got != tc.sent {
				t.Fatalf("requests sent: %q; want %q", got, tc.sent)
			}
			v := serverOf(t, c, "s")
			if v.State != StateReady || v.Era != tc.era || v.EraDecision != tc.decision {
				t.Fatalf("%s %s, %s (%s) %+v", v.State, v.Era, v.EraDecision, v.EraReason, v.LastError)
			}
			if r, ok := c.eras.recall(now); !ok || r.Era != tc.era {
				t.Fatalf("remembered %+v, %v; want %s", r, ok, tc.era)
			}
		})
	}
	t.Run("modern, now silent legacy", func(t *testing.T) {
		// Remembered modern, server/discover gets all of the startup
		// timeout; silence for that long fails this attempt and forgets the
		// era, and the next attempt probes afresh.
		dir := t.TempDir()
		c := eraController(t, dir, fakeServer("s", jsonrpctest.Modern))
		enable(t, c)
		shutdownOrFail(t, c)

		now := fakeServer("s", jsonrpctest.LegacySilentDiscover)
		now.StartupTimeout, now.DiscoverTimeout = 3*time.Second, 200*time.Millisecond
		c = eraController(t, dir, now)
		_ = c.SetEnabled(ctxFor(t, 20*time.Second), true)
		v := serverOf(t, c, "s")
		if v.State != StateFailed || v.LastError == nil || !strings.Contains(v.LastError.Message, "forgotten") || !strings.Contains(v.LastError.Message, "server/discover") {
			t.Fatalf("%s %+v; want failed, saying the remembered era was forgotten", v.State, v.LastError)
		}
		if r, ok := c.eras.recall(now); ok {
			t.Fatalf("still remembered: %+v", r)
		}
		if err := c.Reconnect(ctxFor(t, 20*time.Second), "s"); err != nil {
			t.Fatal(err)
		}
		if v := serverOf(t, c, "s"); v.State != StateReady || v.Era != EraLegacy || v.EraDecision != EraTimedOut {
			t.Fatalf("after reconnect: %s %s, %s (%s)", v.State, v.Era, v.EraDecision, v.EraReason)
		}
	})
}

// A legacy server pinned by the protocol setting is not remembered: it
// may be a dual-era server, which auto must still find modern.
func TestPinnedLegacyIsNotRemembered(t *testing.T) {
	t.Parallel()
	srv := fakeServer("s", jsonrpctest.Normal)
	srv.Protocol = "legacy"
	c := eraController(t, t.TempDir(), srv)
	enable(t, c)
	if v := serverOf(t, c, "s"); v.EraDecision != EraPinned {
		t.Fatalf("decision %s (%s)", v.EraDecision, v.EraReason)
	}
	if r, ok := c.eras.recall(srv); ok {
		t.Fatalf("remembered %+v", r)
	}
}

// An unreadable eras.json is reported and replaced, never fatal.
func TestEraMemoryUnreadableFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "eras.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	mem, err := OpenEraMemory(dir)
	if !errors.Is(err, ErrEraMemory) || !strings.Contains(err.Error(), path) || mem == nil {
		t.Fatalf("OpenEraMemory: %v (memory %v)", err, mem)
	}
	srv := config.Server{Name: "s", Transport: config.TransportStdio, Command: "srv"}
	if err := mem.remember(srv, mcp.LatestLegacy); err != nil {
		t.Fatal(err)
	}
	again, err := OpenEraMemory(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := again.recall(srv); !ok || r.Era != mcp.Legacy || r.Server != "s" {
		t.Fatalf("after replacing the file: %+v %v", r, ok)
	}
}

// A dual-era server that answers initialize before server/discover (it
// handles requests concurrently) is legacy only until its discovery result
// arrives: that comes before the session is ready, so it wins, and the
// server is started again and spoken to in the modern era.
func TestLateDiscoverBeforeReadyWins(t *testing.T) {
	t.Parallel()
	srv := fakeServer("d", jsonrpctest.DualLateDiscover, jsonrpctest.WithDelay(time.Second))
	srv.DiscoverTimeout = 100 * time.Millisecond
	c := newController(t, srv)
	rec := record(t, c)
	enable(t, c)
	v := serverOf(t, c, "d")
	if v.State != StateReady || v.Era != EraModern || v.EraDecision != EraSwitched || !strings.Contains(v.EraReason, "before the server was ready") {
		t.Fatalf("%s %s, %s (%s) %+v", v.State, v.Era, v.EraDecision, v.EraReason, v.LastError)
	}
	if got := requestsSent(rec, "d", mcp.MethodDiscover, "initialize", "tools/list"); got != "server/discover initialize tools/list tools/list server/discover tools/list" {
		t.Fatalf("requests sent: %q; want the probe, initialize at the fallback, the legacy listing (two pages), then the modern start", got)
	}
	if r, ok := c.eras.recall(srv); !ok || r.Era != mcp.Modern {
		t.Fatalf("remembered %+v %v; want modern", r, ok)
	}
}

// Over HTTP the era is remembered per origin: a real TypeScript SDK v2
// server remembered as modern is reported so, and one remembered legacy
// that is now modern-only (the origin's server was upgraded) refuses the
// remembered initialize, is forgotten, probed afresh in the same attempt
// and remembered as modern.
func TestRemoteEraRememberedPerOrigin(t *testing.T) {
	t.Parallel()
	url := jsonrpctest.TSServerHTTP(t, jsonrpctest.ModernEra)
	srv := config.Server{Name: "h", Transport: config.TransportHTTP, URL: url, Enabled: true,
		StartupTimeout: 20 * time.Second, CallTimeout: 10 * time.Second}
	dir := t.TempDir()

	c := eraController(t, dir, srv)
	enable(t, c)
	if v := serverOf(t, c, "h"); v.State != StateReady || v.Era != EraModern || v.EraDecision != EraDiscoverAnswered {
		t.Fatalf("first: %s %s, %s (%s) %+v", v.State, v.Era, v.EraDecision, v.EraReason, v.LastError)
	}
	shutdownOrFail(t, c)
	c = eraController(t, dir, srv)
	enable(t, c)
	if v := serverOf(t, c, "h"); v.State != StateReady || v.Era != EraModern || v.EraDecision != EraRemembered {
		t.Fatalf("remembered: %s %s, %s (%s) %+v", v.State, v.Era, v.EraDecision, v.EraReason, v.LastError)
	}
	shutdownOrFail(t, c)

	mem, err := OpenEraMemory(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := mem.remember(srv, mcp.LatestLegacy); err != nil {
		t.Fatal(err)
	}
	c = eraController(t, dir, srv)
	enable(t, c)
	if v := serverOf(t, c, "h"); v.State != StateReady || v.Era != EraModern || v.EraDecision != EraDiscoverAnswered {
		t.Fatalf("remembered legacy, now modern: %s %s, %s (%s) %+v", v.State, v.Era, v.EraDecision, v.EraReason, v.LastError)
	}
	if r, ok := c.eras.recall(srv); !ok || r.Era != mcp.Modern {
		t.Fatalf("remembered %+v %v; want modern", r, ok)
	}
}

// Stale memories of real stdio servers: the TypeScript SDK v2 modern-only
// server remembered legacy (it refuses the remembered initialize with
// -32022), and server-everything (2025 only) remembered modern (it answers
// server/discover with a legacy error). Each is probed afresh in the same
// attempt and remembered anew.
func TestStaleEraOfRealStdioServers(t *testing.T) {
	t.Parallel()
	tsPath, tsArgs, tsEnv := jsonrpctest.TSServerStdio(t, jsonrpctest.ModernEra)
	ts := config.Server{Name: "s", Transport: config.TransportStdio, Command: tsPath, Args: tsArgs, Enabled: true,
		Env: map[string]string{jsonrpctest.EnvNodeModules: envValue(tsEnv, jsonrpctest.EnvNodeModules)}, StartupTimeout: 30 * time.Second, CallTimeout: 10 * time.Second,
		DiscoverTimeout: generousDiscoverWait} // answered, not switched, however loaded the machine
	node, script := jsonrpctest.Everything(t)
	everything := config.Server{Name: "s", Transport: config.TransportStdio, Command: node, Args: []string{script}, Enabled: true,
		StartupTimeout: 30 * time.Second, CallTimeout: 10 * time.Second}
	for _, tc := range []struct {
		name           string
		srv            config.Server
		stale, now     string
		nowEra         Era
		decided        EraDecision
		firstRequested string
	}{
		{"ts modern-only remembered legacy", ts, mcp.LatestLegacy, mcp.LatestModern, EraModern, EraDiscoverAnswered, "initialize"},
		{"server-everything remembered modern", everything, mcp.LatestModern, mcp.LatestLegacy, EraLegacy, EraLegacyError, mcp.MethodDiscover},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			mem, err := OpenEraMemory(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := mem.remember(tc.srv, tc.stale); err != nil {
				t.Fatal(err)
			}
			c := eraController(t, dir, tc.srv)
			rec := record(t, c)
			enable(t, c)
			v := serverOf(t, c, "s")
			if v.State != StateReady || v.Era != tc.nowEra || v.EraDecision != tc.decided {
				t.Fatalf("%s %s, %s (%s) %+v", v.State, v.Era, v.EraDecision, v.EraReason, v.LastError)
			}
			if sent := requestsSent(rec, "s", "initialize", mcp.MethodDiscover); !strings.HasPrefix(sent, tc.firstRequested) {
				t.Fatalf("requests sent %q; want the remembered era's %s first", sent, tc.firstRequested)
			}
			if r, ok := c.eras.recall(tc.srv); !ok || r.Era != tc.nowEra {
				t.Fatalf("remembered %+v %v; want %s", r, ok, tc.nowEra)
			}
		})
	}
}

// envValue is KEY's value in a KEY=VALUE list.
func envValue(env []string, key string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// A protocol setting that allows one era wins over the era memory, over
// HTTP as on stdio: the era is then pinned, not remembered.
func TestPinnedEraWinsOverTheMemory(t *testing.T) {
	t.Parallel()
	url := jsonrpctest.TSServerHTTP(t, jsonrpctest.DualEra)
	path, args, env := jsonrpctest.TSServerStdio(t, jsonrpctest.DualEra)
	for _, srv := range []config.Server{
		{Name: "s", Transport: config.TransportHTTP, URL: url},
		{Name: "s", Transport: config.TransportStdio, Command: path, Args: args, Env: map[string]string{jsonrpctest.EnvNodeModules: envValue(env, jsonrpctest.EnvNodeModules)}},
	} {
		srv.Enabled, srv.StartupTimeout, srv.CallTimeout = true, 30*time.Second, 10*time.Second
		for _, tc := range []struct {
			protocol, remembered string
			era                  Era
		}{
			{"legacy", mcp.LatestModern, EraLegacy}, {"legacy", mcp.LatestLegacy, EraLegacy},
			{"modern", mcp.LatestLegacy, EraModern}, {"modern", mcp.LatestModern, EraModern},
		} {
			t.Run(srv.Transport.String()+" "+tc.protocol+" remembered "+tc.remembered, func(t *testing.T) {
				dir := t.TempDir()
				mem, err := OpenEraMemory(dir)
				if err != nil {
					t.Fatal(err)
				}
				if err := mem.remember(srv, tc.remembered); err != nil {
					t.Fatal(err)
				}
				c := New(Options{Config: configOf(srv), StopGrace: 500 * time.Millisecond, Eras: mem, Protocol: tc.protocol})
				t.Cleanup(func() { shutdownOrFail(t, c) })
				enable(t, c)
				if v := serverOf(t, c, "s"); v.State != StateReady || v.Era != tc.era || v.EraDecision != EraPinned {
					t.Fatalf("%s %s, %s (%s) %+v", v.State, v.Era, v.EraDecision, v.EraReason, v.LastError)
				}
			})
		}
	}
}
