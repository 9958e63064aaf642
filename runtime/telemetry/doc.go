// Package telemetry owns mcpdeck's metrics and traces: the OpenTelemetry
// semantic conventions for MCP clients (mcp.client.operation.duration,
// mcp.client.session.duration, one CLIENT span per request named
// "{mcp.method.name} {target}"), mcpdeck's own metrics under "mcpdeck.",
// Prometheus exposition at /metrics, OTLP/HTTP trace export, and W3C trace
// context carried in a request's params._meta.
//
// # Why the OpenTelemetry SDK with its Prometheus exporter
//
// One instrumentation API serves both signals: the spans the runtime starts
// and the histograms it records share attribute keys and values, and the
// duration of a request is measured once, when its span ends. The SDK's
// Prometheus exporter turns the same instruments into the exposition format,
// so the names in /metrics are the conventions' names translated the
// standard way (mcp.client.operation.duration with unit s becomes
// mcp_client_operation_duration_seconds), and an OTel collector that scrapes
// /metrics gets them back unchanged. prometheus/client_golang alone would
// have needed a second API for the same numbers, with the OTel SDK linked
// for traces anyway.
//
// Start-up cost was measured, because mcpdeck's one-shot commands must start
// fast. With GODEBUG=inittrace=1, the packages this one links add about
// 1.0–1.3 ms of package init to every mcpdeck start (of which
// client_golang's default registry and procfs are 0.45 ms), 270 KB of
// allocations and no I/O; the binary grows from 15.0 to 21.7 MB. Spans go
// out through a small OTLP/HTTP client (otlphttp.go) rather than the SDK's
// otlptracehttp, which links all of gRPC: that would have doubled the
// binary. Nothing else happens until New, and New builds nothing at all
// when neither metrics nor OTLP export is configured (or
// OTEL_SDK_DISABLED=true): no provider, no goroutine, and every method is
// a cheap no-op (about 30 ns for a request). A nil *Telemetry is valid
// too, so the runtime can hold one unconditionally.
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
