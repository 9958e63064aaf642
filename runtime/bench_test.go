//go:build unix

package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/telemetry"
)

// Run with:
//
//	go test ./runtime -run '^$' -bench . -benchtime 3x
//
// (the lifecycle benchmarks start real processes: a few iterations say
// enough; the call benchmark wants the default benchtime.)

// BenchmarkCallWithMetrics is the same call with metrics on (what
// --metrics turns on): the operation duration is recorded per call.
func BenchmarkCallWithMetrics(b *testing.B) {
	tel, err := telemetry.New(telemetry.Options{Metrics: true})
	if err != nil {
		b.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	benchEra(b, jsonrpctest.Normal, tel)
}

// BenchmarkCallWithTelemetry is the same call with metrics and traces on
// (every span exported to a collector that accepts everything).
func BenchmarkCallWithTelemetry(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	tel, err := telemetry.New(telemetry.Options{Metrics: true, OTLPEndpoint: srv.URL})
	if err != nil {
		b.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	benchEra(b, jsonrpctest.Normal, tel)
}

// BenchmarkCallLegacyThroughRuntime is a small tools/call through the
// whole stack on a 2025-11-25 server (the Normal fake): schema validation,
// progress token and timeout, events to a subscriber (a UI is listening,
// as in real use), the connection, result decoding and bounding. Compare
// it with jsonrpc's BenchmarkRoundTripBare against the same server binary,
// with the modern era, and with telemetry on:
//
//	go test ./runtime -run '^$' -bench 'Call.*ThroughRuntime' -benchmem -cpu 1 -count 10
//
// cpu-ns/op is this process's CPU time per call, without the server's.
func BenchmarkCallLegacyThroughRuntime(b *testing.B) {
	benchEra(b, jsonrpctest.Normal, nil)
}

// BenchmarkCallModernThroughRuntime is the same call on a 2026-07-28
// server (the Modern fake): the envelope, resultType and the rest of the
// modern era on the same path.
func BenchmarkCallModernThroughRuntime(b *testing.B) {
	benchEra(b, jsonrpctest.Modern, nil)
}

func benchEra(b *testing.B, mode jsonrpctest.Mode, tel *telemetry.Telemetry) {
	c := New(Options{Config: configOf(fakeServer("f", mode)), StopGrace: 500 * time.Millisecond, Telemetry: tel})
	b.Cleanup(func() { c.Shutdown(context.Background()) })
	_, cancel := c.Subscribe(SubscribeOptions{})
	defer cancel()
	enable(b, c)
	req := CallRequest{Server: "f", Tool: "echo", Arguments: json.RawMessage(`{"text":"hello"}`)}
	ctx := context.Background()
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		if _, err := c.Call(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func demoServers(n int) []config.Server {
	servers := make([]config.Server, n)
	for i := range servers {
		servers[i] = demoServer(fmt.Sprintf("demo%02d", i))
	}
	return servers
}

// BenchmarkEnable compares the time to all-ready for 1 and 20 demo
// servers: the controller connects them concurrently, so 20 should cost
// far less than 20 times one (on 2 cores, process start-up is the bound).
func BenchmarkEnable(b *testing.B) {
	for _, n := range []int{1, 20} {
		b.Run(fmt.Sprintf("servers=%d", n), func(b *testing.B) {
			c := New(Options{Config: configOf(demoServers(n)...), StopGrace: 500 * time.Millisecond})
			b.Cleanup(func() { c.Shutdown(context.Background()) })
			var total time.Duration
			for b.Loop() {
				start := time.Now()
				if err := c.SetEnabled(context.Background(), true); err != nil {
					b.Fatal(err)
				}
				total += time.Since(start)
				b.StopTimer()
				for _, v := range c.Snapshot().Servers {
					if !v.State.Live() {
						b.Fatalf("%s is %s", v.Name, v.State)
					}
				}
				if err := c.SetEnabled(context.Background(), false); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-to-ready")
		})
	}
}

// BenchmarkDisableWithStubbornServers disables 20 servers of which 5
// ignore stdin EOF and SIGTERM, with a 1 s grace per step: teardown is
// concurrent, so the wall time is about two grace periods (stdin close →
// SIGTERM → SIGKILL), not five times that.
func BenchmarkDisableWithStubbornServers(b *testing.B) {
	servers := demoServers(15)
	for i := range 5 {
		servers = append(servers, fakeServer(fmt.Sprintf("stubborn%d", i), jsonrpctest.IgnoreTerm))
	}
	const grace = time.Second
	c := New(Options{Config: configOf(servers...), StopGrace: grace})
	b.Cleanup(func() { c.Shutdown(context.Background()) })
	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		if err := c.SetEnabled(context.Background(), true); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		if err := c.SetEnabled(context.Background(), false); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
	}
	for _, v := range c.Snapshot().Servers {
		if v.LastStop.Err != "" {
			b.Fatalf("%s: %s", v.Name, v.LastStop.Err)
		}
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-to-stopped")
	b.ReportMetric(float64(grace.Milliseconds()), "ms-grace-per-step")
}
