package cli

import (
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/fleet"
	"mcpdeck/runtime/fleet/fleettest"
)

// fleetJSON is what fleet --json prints, as a script reads it.
type fleetJSON struct {
	Prometheus string `json:"prometheus"`
	HostLabel  string `json:"hostLabel"`
	Hosts      []struct {
		Host    string `json:"host"`
		Up      *bool  `json:"up"`
		Servers []struct {
			Server          string     `json:"server"`
			State           string     `json:"state"`
			Transport       string     `json:"transport"`
			ProtocolVersion string     `json:"protocolVersion"`
			Era             string     `json:"era"`
			Ping            *float64   `json:"pingSeconds"`
			History         []*float64 `json:"pingHistorySeconds"`
			Restarts        uint64     `json:"restarts"`
			LastError       *struct {
				Kind    string    `json:"kind"`
				Message string    `json:"message"`
				At      time.Time `json:"at"`
			} `json:"lastError"`
		} `json:"servers"`
	} `json:"hosts"`
}

// TestFleetAgainstPrometheusAndTwoMonitors is the fleet as a platform team
// runs it: two `mcpdeck monitor --metrics` processes (two hosts), a real
// Prometheus (Debian's) scraping both, and `mcpdeck fleet --json` and the
// table reading it: every host, each server's state, era, ping and last
// error; then a host goes away and its server is listed as unknown.
func TestFleetAgainstPrometheusAndTwoMonitors(t *testing.T) {
	t.Parallel()
	fleettest.Binary(t)
	hostA := newHeadless(t, map[string]map[string]any{
		"demo":   withPing(srvDemo(t, "0"), "200ms"),
		"broken": srvFake(jsonrpctest.ExitEarly),
	})
	hostB := newHeadless(t, map[string]map[string]any{
		"modern": withPing(srvFake(jsonrpctest.Modern), "200ms"),
	})
	monA, urlA := startMonitor(t, hostA)
	monB, urlB := startMonitor(t, hostB)
	monA.waitLog(t, "server state changed", map[string]string{"server": "demo", "to": "ready"})
	monB.waitLog(t, "server state changed", map[string]string{"server": "modern", "to": "ready"})
	target := func(u string) string { return strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/metrics") }
	prom := fleettest.Start(t, time.Second,
		fleettest.Target{Addr: target(urlA), Labels: map[string]string{"host": "host-a"}},
		fleettest.Target{Addr: target(urlB), Labels: map[string]string{"host": "host-b"}})
	prom.WaitUp(t, 2)
	prom.WaitQuery(t, "pings of both hosts' live servers", `count(rate(mcpdeck_server_ping_duration_seconds_count{error_type=""}[10s]) > 0)`,
		func(v float64) bool { return v >= 2 })
	prom.WaitQuery(t, "broken's last error", `count(mcpdeck_server_last_error_timestamp_seconds{mcpdeck_server_name="broken"})`,
		func(v float64) bool { return v >= 1 })

	args := []string{"fleet", "--prometheus", prom.URL, "--host-label", "host", "--window", "10s", "--history", "30s", "--lookback", "2m"}
	r := hostA.run(t, "", append(args, "--json")...)
	wantCode(t, r, ExitOK)
	var got fleetJSON
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("fleet --json is not JSON: %v\n%s", err, r.stdout)
	}
	if got.Prometheus != prom.URL || got.HostLabel != "host" || len(got.Hosts) != 2 || got.Hosts[0].Host != "host-a" || got.Hosts[1].Host != "host-b" {
		t.Fatalf("fleet --json: %s", r.stdout)
	}
	a, b := got.Hosts[0], got.Hosts[1]
	if a.Up == nil || !*a.Up || len(a.Servers) != 2 || a.Servers[0].Server != "broken" || a.Servers[1].Server != "demo" {
		t.Fatalf("host-a: %s", r.stdout)
	}
	broken, demo, modern := a.Servers[0], a.Servers[1], b.Servers[0]
	if demo.State != "ready" || demo.Transport != "stdio" || demo.Era != "legacy" || demo.Ping == nil || *demo.Ping <= 0 || *demo.Ping > 1 {
		t.Errorf("demo: %+v", demo)
	}
	if len(demo.History) == 0 || !hasValue(demo.History) {
		t.Errorf("demo's ping history is empty: %v", demo.History)
	}
	if broken.State != "failed" || broken.LastError == nil || broken.LastError.Message == "" || broken.LastError.At.IsZero() {
		t.Errorf("broken: %+v, want failed with its last error", broken)
	}
	if modern.State != "ready" || modern.Era != "modern" || modern.ProtocolVersion != "2026-07-28" {
		t.Errorf("modern: %+v", modern)
	}

	// The table, for a pipe.
	r = hostA.run(t, "", args...)
	wantCode(t, r, ExitOK)
	for _, want := range []string{"HOST", "host-a", "up", "broken", "failed", "demo", "ready", "host-b", "modern"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, r.stdout)
		}
	}

	// host-b's monitor stops: Prometheus marks its series stale; the fleet
	// says the host is down and still lists its server.
	monB.stop(t)
	prom.WaitQuery(t, "host-b down", `up{host="host-b"}`, func(v float64) bool { return v == 0 })
	r = hostA.run(t, "", append(args, "--json")...)
	wantCode(t, r, ExitOK)
	got = fleetJSON{}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Hosts) != 2 || got.Hosts[1].Up == nil || *got.Hosts[1].Up || got.Hosts[1].Servers[0].State != fleet.StateUnknown {
		t.Errorf("after host-b stopped: %s", r.stdout)
	}
	monA.stop(t)
}

func hasValue(v []*float64) bool {
	for _, x := range v {
		if x != nil {
			return true
		}
	}
	return false
}

// TestFleetUsageAndConnectionErrors: bad flags exit 2 with what to do, a
// Prometheus that is not there exits 3 naming it.
func TestFleetUsageAndConnectionErrors(t *testing.T) {
	h := newHeadless(t, map[string]map[string]any{})
	r := h.run(t, "", "fleet", "--json")
	wantCode(t, r, ExitUsage)
	if !strings.Contains(r.stderr, "--prometheus") {
		t.Errorf("no URL: %s", r.stderr)
	}
	r = h.run(t, "", "fleet", "--prometheus", "http://127.0.0.1:9090", "--host-label", "bad-label", "--json")
	wantCode(t, r, ExitUsage)
	r = h.run(t, "", "fleet", "--prometheus", "http://127.0.0.1:9090", "--header", "nocolon", "--json")
	wantCode(t, r, ExitUsage)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	r = h.run(t, "", "fleet", "--prometheus", "http://"+addr, "--json")
	wantCode(t, r, ExitConnection)
	if !strings.Contains(r.stderr, addr) || !strings.Contains(r.stderr, "is Prometheus running there?") {
		t.Errorf("unreachable: %s", r.stderr)
	}
}
