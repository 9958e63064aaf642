// Package telemetry owns mcpdeck's metrics and traces: the OpenTelemetry
// semantic conventions for MCP clients (mcp.client.operation.duration,
// mcp.client.session.duration, one CLIENT span per request named
// "{mcp.method.name} {target}"), mcpdeck's own metrics under "mcpdeck.",
// Prometheus exposition at /metrics, OTLP/HTTP trace export, and W3C trace
// context carried in a request's params._meta.
//
// # Why the OpenTelemetry SDK, with exporters of our own
//
// One instrumentation API serves both signals: the spans the runtime starts
// and the histograms it records share attribute keys and values, and the
// duration of a request is measured once, when its span ends. The names in
// /metrics are the conventions' names translated the standard way
// (otlptranslator's UnderscoreEscapingWithSuffixes: mcp.client.operation.duration
// with unit s becomes mcp_client_operation_duration_seconds), so an OTel
// collector that scrapes /metrics gets them back unchanged.
//
// The SDK's exporters are not used, for what they cost every start of
// every mcpdeck command, telemetry on or off: package init. Issue 28's
// profile of `mcpdeck version` put about 8 % of its samples in the inits of
// client_golang, procfs (regular expressions), expvar and runtime/metrics,
// linked by the SDK's Prometheus exporter, and about 3.5 % in
// google.golang.org/protobuf and the OTLP descriptors, linked by its
// otlptrace exporter; prometheus/common/model (runtime/fleet,
// runtime/alert) linked protobuf too. In their place:
//
//   - expo.go writes the Prometheus text format 0.0.4 from what an
//     sdkmetric.ManualReader collects at each scrape, with the Go and
//     process metrics under client_golang's names read then (procstats.go).
//     TestExpositionMatchesClientGolang holds it to what client_golang and
//     the exporter served, byte for byte but for measured values.
//   - otlpjson.go turns ended spans into OTLP/JSON, which otlpClient
//     (otlphttp.go) POSTs as the SDK's otlptracehttp would, reading the
//     same OTEL_EXPORTER_OTLP_* variables. The SDK's HTTP exporter was never
//     used: it links all of gRPC. OTEL_EXPORTER_OTLP_PROTOCOL may be unset,
//     http/json or http/protobuf (the specification's default, often set
//     for a whole host: refusing it would fail every command there, so the
//     spans go as http/json and New logs a warning); grpc is refused with
//     ErrConfig.
//
// Measured on a shared 2-core VM at a load average of 4-10, interleaved
// with the build before (README, "Issue 28, third pass"): `mcpdeck
// version` touches 758 pages instead of 878 (perf stat -e page-faults,
// medians of 30), runs 183 package inits instead of 217 with 2,992
// allocations (453 KB) instead of 4,705 (704 KB) (GODEBUG=inittrace=1),
// and the binary is 38.1 MB instead of 41.9. Wall-clock start-up could not
// be resolved at that load. A scrape allocates 4,000 objects instead of
// 19,500; exporting a span costs the same within the noise (BenchmarkExport).
//
// Nothing else happens until New, and New builds nothing at all when
// neither metrics nor OTLP export is configured (or OTEL_SDK_DISABLED=true):
// no provider, no goroutine, and every method is a cheap no-op (about
// 30 ns for a request). A nil *Telemetry is valid too, so the runtime can
// hold one unconditionally.
//
// # What the runtime must do
//
// Counters the runtime keeps anyway (state, restarts, reconnect attempts,
// notifications and drops, late responses, stdout noise, outstanding
// requests, gateway clients and calls) are read at collection time through
// Options.Source and Options.Gateway, so nothing is counted twice and a
// dropped event loses nothing. Durations are recorded by calls: a Span's End
// records the operation duration, RecordPing the health-check latency and
// RecordSession the session duration.
//
// # Exporting never blocks a call
//
// Ended spans go to a bounded queue that one goroutine drains in batches to
// the OTLP exporter. When the queue is full, or an export fails, spans are
// dropped and counted in mcpdeck.telemetry.spans.dropped; a request never
// waits for the collector.
package telemetry
