package fleet

import (
	"context"
	"errors"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"mcpdeck/runtime/fleet/fleettest"
	"mcpdeck/runtime/telemetry"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// host is one stand-in for a host's `mcpdeck monitor --metrics`: the real
// telemetry package serving /metrics on loopback, with stats the test
// sets and health checks recorded continuously, as a monitor does.
type host struct {
	tel  *telemetry.Telemetry
	ms   *telemetry.MetricsServer
	mu   sync.Mutex
	st   []telemetry.ServerStats
	stop chan struct{}
	done chan struct{}
}

// startHost serves stats; pings maps server names to the round trip its
// health checks report every 100 ms.
func startHost(t *testing.T, pings map[string]time.Duration, stats ...telemetry.ServerStats) *host {
	t.Helper()
	h := &host{st: stats, stop: make(chan struct{}), done: make(chan struct{})}
	tel, err := telemetry.New(telemetry.Options{Metrics: true, Source: h.stats})
	if err != nil {
		t.Fatal(err)
	}
	h.tel = tel
	if h.ms, err = tel.ServeMetrics(t.Context(), "127.0.0.1:0", false); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(h.done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			for name, d := range pings {
				tel.RecordPing(name, d, true)
			}
			select {
			case <-h.stop:
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(h.close)
	return h
}

func (h *host) stats() []telemetry.ServerStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]telemetry.ServerStats(nil), h.st...)
}

// addr is host:port of its /metrics.
func (h *host) addr() string {
	return strings.TrimSuffix(strings.TrimPrefix(h.ms.URL(), "http://"), "/metrics")
}

// close stops serving: the host goes down for Prometheus. Idempotent.
func (h *host) close() {
	select {
	case <-h.stop:
		return
	default:
	}
	close(h.stop)
	<-h.done
	_ = h.tel.Shutdown(context.Background())
}

// TestFleetFromRealPrometheus starts Debian's Prometheus scraping two
// hosts' real /metrics endpoints and reads the fleet the way mcpdeck
// fleet does: hosts grouped by the configured label, each server's state,
// mean ping and its history, restarts, reconnect attempts, last error;
// then one host goes down and its servers stay listed as unknown.
func TestFleetFromRealPrometheus(t *testing.T) {
	errAt := time.Now().Add(-time.Minute).Truncate(time.Second)
	a := startHost(t, map[string]time.Duration{"alpha": 2 * time.Millisecond},
		telemetry.ServerStats{Server: "alpha", State: "ready", Transport: "stdio", ProtocolVersion: "2025-11-25", Era: telemetry.EraLegacy, Restarts: 1},
		telemetry.ServerStats{Server: "beta", State: "failed", Transport: "http", Attempts: 3, Restarts: 4,
			LastError: "beta: connection refused", LastErrorKind: "transport", LastErrorAt: errAt},
	)
	b := startHost(t, map[string]time.Duration{"alpha": 8 * time.Millisecond},
		telemetry.ServerStats{Server: "alpha", State: "degraded", Transport: "stdio", ProtocolVersion: "2026-07-28", Era: telemetry.EraModern, Outstanding: 2},
	)
	prom := fleettest.Start(t, time.Second,
		fleettest.Target{Addr: a.addr(), Labels: map[string]string{"host": "web-1"}},
		fleettest.Target{Addr: b.addr(), Labels: map[string]string{"host": "web-2"}})
	prom.WaitUp(t, 2)
	// Enough scrapes for the ping rate on both hosts.
	prom.WaitQuery(t, "ping rates on both hosts", `count(rate(mcpdeck_server_ping_duration_seconds_count{error_type=""}[10s]) > 0)`, func(v float64) bool { return v >= 2 })

	f, err := New(Options{URL: prom.URL, HostLabel: "host", Selector: `job="mcpdeck"`, Window: 10 * time.Second, History: 20 * time.Second, Points: 10, Lookback: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	v, err := f.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Hosts) != 2 || v.Hosts[0].Name != "web-1" || v.Hosts[1].Name != "web-2" {
		t.Fatalf("hosts %+v, want web-1 and web-2 (the host label)", v.Hosts)
	}
	for _, h := range v.Hosts {
		if h.Up == nil || !*h.Up {
			t.Errorf("host %s: up = %v, want true", h.Name, h.Up)
		}
	}
	w1, w2 := v.Hosts[0].Servers, v.Hosts[1].Servers
	if len(w1) != 2 || w1[0].Name != "alpha" || w1[1].Name != "beta" || len(w2) != 1 {
		t.Fatalf("servers %+v / %+v", w1, w2)
	}
	alpha, beta, alpha2 := w1[0], w1[1], w2[0]
	if alpha.State != "ready" || alpha.Transport != "stdio" || alpha.ProtocolVersion != "2025-11-25" || alpha.Era != "legacy" || alpha.Restarts != 1 {
		t.Errorf("web-1 alpha: %+v", alpha)
	}
	if alpha.Ping < time.Millisecond || alpha.Ping > 3*time.Millisecond {
		t.Errorf("web-1 alpha ping %v, want the 2ms its checks report", alpha.Ping)
	}
	if alpha2.State != "degraded" || alpha2.Era != "modern" || alpha2.Outstanding != 2 || alpha2.Ping < 7*time.Millisecond || alpha2.Ping > 9*time.Millisecond {
		t.Errorf("web-2 alpha: %+v, want degraded, modern, 2 outstanding, ~8ms", alpha2)
	}
	if beta.State != "failed" || beta.Attempts != 3 || beta.Restarts != 4 || beta.Ping != 0 {
		t.Errorf("web-1 beta: %+v", beta)
	}
	if e := beta.LastError; e == nil || e.Kind != "transport" || e.Message != "beta: connection refused" || !e.At.Equal(errAt) {
		t.Errorf("web-1 beta last error %+v, want transport/connection refused at %v", e, errAt)
	}
	if alpha.LastError != nil {
		t.Errorf("alpha has no error, got %+v", alpha.LastError)
	}
	if len(alpha.Pings) != 11 {
		t.Fatalf("alpha history has %d points, want 11 (20s in steps of 2s)", len(alpha.Pings))
	}
	var seen int
	for _, p := range alpha.Pings {
		if !math.IsNaN(p) {
			seen++
			if p < 0.001 || p > 0.003 {
				t.Errorf("history point %v, want ~0.002", p)
			}
		}
	}
	if seen == 0 {
		t.Errorf("alpha's ping history is empty: %v", alpha.Pings)
	}
	if hosts, servers, ready := v.Counts(); hosts != 2 || servers != 3 || ready != 2 {
		t.Errorf("counts %d %d %d", hosts, servers, ready)
	}

	// web-2 goes down: Prometheus marks its series stale, the host is down
	// and its server is still listed, state unknown.
	b.close()
	prom.WaitQuery(t, "web-2 down", `up{host="web-2"}`, func(v float64) bool { return v == 0 })
	v, err = f.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Hosts) != 2 {
		t.Fatalf("hosts after web-2 went down: %+v", v.Hosts)
	}
	down := v.Hosts[1]
	if down.Up == nil || *down.Up || len(down.Servers) != 1 || down.Servers[0].State != StateUnknown {
		t.Errorf("web-2 after it went down: up %v, servers %+v; want down with alpha unknown", down.Up, down.Servers)
	}
	if v.Hosts[0].Servers[0].State != "ready" {
		t.Errorf("web-1 changed: %+v", v.Hosts[0].Servers)
	}

	// The default host label, instance, groups by address.
	f2, err := New(Options{URL: prom.URL, Window: 10 * time.Second, Lookback: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	v, err = f2.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Hosts) != 2 || v.Hosts[0].Name != a.addr() && v.Hosts[1].Name != a.addr() {
		t.Errorf("by instance: %+v, want %s among them", v.Hosts, a.addr())
	}

	// A selector Prometheus cannot parse is its error, named.
	bad, err := New(Options{URL: prom.URL, Selector: `job=~"(`})
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.Load(t.Context())
	if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), "--selector") {
		t.Errorf("bad selector: %v, want ErrRejected naming --selector", err)
	}
}

// TestFleetErrors covers what goes wrong before a query is answered.
func TestFleetErrors(t *testing.T) {
	for _, o := range []Options{{}, {URL: "prometheus:9090"}, {URL: "ftp://x"}, {URL: "http://x", HostLabel: "host-name"}} {
		if _, err := New(o); !errors.Is(err, ErrBadOptions) {
			t.Errorf("New(%+v) = %v, want ErrBadOptions", o, err)
		}
	}
	// A host:port as a scrape target is written: the URL to pass instead.
	for _, u := range []string{"127.0.0.1:9090", "prometheus:9090"} {
		if _, err := New(Options{URL: u}); err == nil || !strings.Contains(err.Error(), "pass --prometheus http://"+u) {
			t.Errorf("New(%q) = %v, want the URL with http://", u, err)
		}
	}
	// Nothing listens on the port: unreachable, and the message says where.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	f, err := New(Options{URL: "http://" + addr, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Load(t.Context())
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), addr) {
		t.Errorf("nothing listening: %v", err)
	}
}

// TestFleetHeadersAndStatus sends the configured headers, and turns an
// HTTP 401 of a store into advice about credentials; a server that is
// not a Prometheus API is named as such.
func TestFleetHeadersAndStatus(t *testing.T) {
	var mu sync.Mutex
	var got http.Header
	mux := http.NewServeMux()
	mux.HandleFunc("/api/v1/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Header.Clone()
		mu.Unlock()
		http.Error(w, "no tenant", http.StatusUnauthorized)
	})
	f, err := New(Options{URL: serve(t, mux), Header: http.Header{"X-Scope-Orgid": {"team-a"}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Load(t.Context())
	if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), "--header") {
		t.Errorf("401: %v, want ErrRejected with advice on --header", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if got.Get("X-Scope-Orgid") != "team-a" {
		t.Errorf("headers sent: %v", got)
	}
}

// TestStateLabelsReadAsNames: fleet --json prints each state as the
// runtime's identifier, also from a monitor that labelled it with the
// words ("needs login"); a label no state has is kept.
func TestStateLabelsReadAsNames(t *testing.T) {
	for label, want := range map[string]string{
		"needs login": "needs-login", "needs-login": "needs-login", "ready": "ready", "something-new": "something-new",
	} {
		if got := stateName(label); got != want {
			t.Errorf("label %q reads as %q, want %q", label, got, want)
		}
	}
}

// TestFleetSpeaksTheQueryAPI covers what a store in front of Prometheus
// may do: serve the API under a path prefix (Mimir's /prometheus), refuse
// a POST (the fleet then asks by GET, as Prometheus' own client does), and
// answer with something that is not the API's JSON (named as such).
func TestFleetSpeaksTheQueryAPI(t *testing.T) {
	var mu sync.Mutex
	methods := map[string]int{}
	mux := http.NewServeMux()
	mux.HandleFunc("/prometheus/api/v1/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		methods[r.Method]++
		mu.Unlock()
		if r.Method != http.MethodGet {
			http.Error(w, "GET only", http.StatusMethodNotAllowed)
			return
		}
		if r.URL.Query().Get("query") == "" || r.URL.Query().Get("time") == "" && r.URL.Query().Get("step") == "" {
			http.Error(w, "no query", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/query_range") {
			_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"matrix","result":[]},"warnings":["range is partial"]}`))
			return
		}
		_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"instance":"h1","mcpdeck_server_name":"alpha","mcpdeck_transport":"stdio"},"value":[1700000000,"1"]}]}}`))
	})
	mux.HandleFunc("/other/", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("<html>not an API</html>")) })
	base := serve(t, mux)

	f, err := New(Options{URL: base + "/prometheus/"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := f.Load(t.Context())
	if err != nil {
		t.Fatalf("through a GET-only store under /prometheus: %v", err)
	}
	if len(v.Hosts) != 1 || len(v.Hosts[0].Servers) != 1 || v.Hosts[0].Servers[0].Name != "alpha" || v.Hosts[0].Servers[0].Transport != "stdio" {
		t.Errorf("view %+v, want host h1 with alpha over stdio", v.Hosts)
	}
	if len(v.Warnings) != 1 || v.Warnings[0] != "range is partial" {
		t.Errorf("warnings %q, want the store's one", v.Warnings)
	}
	mu.Lock()
	if methods[http.MethodPost] != 10 || methods[http.MethodGet] != 10 {
		t.Errorf("requests by method %v, want each of the 10 queries POSTed, refused, then sent as a GET", methods)
	}
	mu.Unlock()

	g, err := New(Options{URL: base + "/other"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Load(t.Context())
	if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), "/api/v1/query") {
		t.Errorf("an HTML page: %v, want ErrRejected asking whether the URL is the API's base", err)
	}
}

// TestFleetKeepsItsHeadersToPrometheusOrigin: the configured headers
// (Authorization, X-Scope-OrgID) carry credentials; a store that
// redirects to another origin does not receive them there — the load
// fails, naming the origin — as the MCP transports refuse such a
// redirect (mcphttp.CheckRedirect).
func TestFleetKeepsItsHeadersToPrometheusOrigin(t *testing.T) {
	var mu sync.Mutex
	var leaked []string
	other := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Header.Get("X-Api-Key"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[]}}`))
	}))
	redirector := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))

	f, err := New(Options{URL: redirector, Header: http.Header{"X-Api-Key": {"secret"}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Load(t.Context())
	mu.Lock()
	defer mu.Unlock()
	if len(leaked) > 0 {
		t.Errorf("the other origin received %d requests, with X-Api-Key %q", len(leaked), leaked)
	}
	if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(other, "http://")) {
		t.Errorf("the load gave %v; want a failure naming the origin it was redirected to", err)
	}
	// Prometheus answered, with a redirect: the advice is the final URL,
	// not to check that it runs.
	if err == nil || !errors.Is(err, ErrRedirected) || errors.Is(err, ErrUnreachable) || strings.Contains(err.Error(), "running there") {
		t.Errorf("the load gave %v; want ErrRedirected, advising the final URL only", err)
	}
}

// serve serves h on a loopback port until the test ends; it returns the
// server's base URL.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}
