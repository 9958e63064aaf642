package telemetry

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// discardCollector accepts OTLP exports and throws them away, so a
// benchmark measures the client side only.
func discardCollector(b *testing.B) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

// stalledCollector never answers until the benchmark ends. The export
// goroutine then sits in its first export and the benchmark measures what
// a request pays on its own goroutine; BenchmarkExport measures the rest.
func stalledCollector(b *testing.B) string {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	b.Cleanup(func() {
		close(stop)
		srv.Close()
	})
	return srv.URL
}

// benchTelemetry builds telemetry for a configuration: off, metrics,
// traces, or both.
func benchTelemetry(b *testing.B, mode string) *Telemetry {
	b.Helper()
	opts := Options{}
	switch mode {
	case "metrics":
		opts.Metrics = true
	case "traces":
		opts.OTLPEndpoint = stalledCollector(b)
	case "both":
		opts.Metrics = true
		opts.OTLPEndpoint = stalledCollector(b)
	}
	tel, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = tel.Shutdown(ctx)
	})
	return tel
}

// BenchmarkRequest is the telemetry cost the runtime adds to one request on
// its own goroutine: StartRequest, Inject into _meta, End (which records
// the duration and queues the span). Exporting is measured apart.
func BenchmarkRequest(b *testing.B) {
	for _, mode := range []string{"off", "metrics", "traces", "both"} {
		b.Run(mode, func(b *testing.B) {
			for _, v := range []string{"OTEL_SDK_DISABLED", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_EXPORTER"} {
				b.Setenv(v, "")
			}
			tel := benchTelemetry(b, mode)
			info := RequestInfo{Method: "tools/call", Target: "echo", Server: "demo", Era: EraLegacy, Transport: "stdio", ProtocolVersion: "2025-11-25"}
			ctx := context.Background()
			// The request's _meta is the runtime's anyway; reusing it keeps
			// its cost out of the measurement.
			meta := map[string]any{}
			b.ReportAllocs()
			for b.Loop() {
				info.RequestID = "1"
				spanCtx, sp := tel.StartRequest(ctx, info)
				clear(meta)
				Inject(spanCtx, meta)
				sp.End(nil, "")
			}
		})
	}
}

// BenchmarkScrape is one Prometheus scrape over real HTTP of a session
// with 20 servers and some recorded requests.
func BenchmarkScrape(b *testing.B) {
	b.Setenv("OTEL_SDK_DISABLED", "")
	var stats []ServerStats
	for i := range 20 {
		stats = append(stats, ServerStats{Server: fmt.Sprintf("server-%02d", i), State: "ready", Transport: "stdio", ProtocolVersion: "2025-11-25", Notifications: uint64(i)})
	}
	tel := benchTelemetry(b, "metrics")
	tel.SetSource(func() []ServerStats { return stats })
	for _, s := range stats {
		for _, tool := range []string{"echo", "add", "fail"} {
			_, sp := tel.StartRequest(context.Background(), RequestInfo{Method: "tools/call", Target: tool, Server: s.Server, Transport: "stdio"})
			sp.End(nil, "")
		}
		tel.RecordPing(s.Server, time.Millisecond, true)
	}
	ms, err := tel.ServeMetrics(b.Context(), "127.0.0.1:0", false)
	if err != nil {
		b.Fatal(err)
	}
	client := &http.Client{}
	defer client.CloseIdleConnections()
	var size int64
	b.ReportAllocs()
	for b.Loop() {
		resp, err := client.Get(ms.URL())
		if err != nil {
			b.Fatal(err)
		}
		size, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	b.ReportMetric(float64(size), "bytes/scrape")
}

// BenchmarkExport is the export goroutine's cost per span: turning a batch
// of 512 ended spans into OTLP/JSON and POSTing it to a collector on
// loopback that discards it.
func BenchmarkExport(b *testing.B) {
	for _, v := range []string{"OTEL_SDK_DISABLED", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_EXPORTER"} {
		b.Setenv(v, "")
	}
	b.Setenv("OTEL_BSP_SCHEDULE_DELAY", "3600000") // export only when asked
	tel, err := New(Options{OTLPEndpoint: discardCollector(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	info := RequestInfo{Method: "tools/call", Target: "echo", Server: "demo", Era: EraLegacy, Transport: "stdio", ProtocolVersion: "2025-11-25", RequestID: "1"}
	const batch = 512
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		for range batch {
			_, sp := tel.StartRequest(context.Background(), info)
			sp.End(nil, "")
		}
		b.StartTimer()
		if err := tel.queue.ForceFlush(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/span")
	if d := tel.queue.dropped.Load(); d != 0 {
		b.Fatalf("%d spans dropped", d)
	}
}
