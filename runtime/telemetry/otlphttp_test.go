package telemetry

import (
	"context"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
)

// exportOne ends one span and flushes it to the collector.
func exportOne(t *testing.T, tel *Telemetry) {
	t.Helper()
	_, sp := tel.StartRequest(context.Background(), RequestInfo{Method: "tools/call", Target: "echo", Server: "demo"})
	sp.End(nil, "")
	if err := tel.queue.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestOTLPHeadersAndGzip: the standard variables set request headers
// (percent-decoded) and gzip compression.
func TestOTLPHeadersAndGzip(t *testing.T) {
	clearOTelEnv(t)
	rcv := newReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-general=ignored")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "Authorization=Bearer%20secret-token, x-tenant=acme")
	t.Setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip")
	tel := newTelemetry(t, Options{})
	exportOne(t, tel)
	rcv.mu.Lock()
	h := rcv.header
	rcv.mu.Unlock()
	if h.Get("Authorization") != "Bearer secret-token" || h.Get("X-Tenant") != "acme" || h.Get("X-General") != "" {
		t.Errorf("headers %v: want the traces variable's, decoded", h)
	}
	if h.Get("Content-Encoding") != "gzip" || h.Get("Content-Type") != "application/json" {
		t.Errorf("encoding %q type %q", h.Get("Content-Encoding"), h.Get("Content-Type"))
	}
	if n := len(rcv.got()); n != 1 {
		t.Errorf("the collector decoded %d spans, want 1", n)
	}
}

// TestOTLPRetry: 503 and 429 are retried (honouring Retry-After); a 400
// is not, and its spans count as dropped.
func TestOTLPRetry(t *testing.T) {
	clearOTelEnv(t)
	rcv := newReceiver(t)
	tel := newTelemetry(t, Options{OTLPEndpoint: rcv.srv.URL})
	rcv.mu.Lock()
	rcv.fail, rcv.failStatus = 2, 503
	rcv.mu.Unlock()
	exportOne(t, tel)
	if n, d := len(rcv.got()), tel.queue.dropped.Load(); n != 1 || d != 0 {
		t.Errorf("after two 503s: %d spans received, %d dropped; want 1 and 0", n, d)
	}

	rcv.mu.Lock()
	rcv.fail, rcv.failStatus = 1, 400
	before := rcv.requests
	rcv.mu.Unlock()
	exportOne(t, tel)
	rcv.mu.Lock()
	after, left := rcv.requests, rcv.fail
	rcv.mu.Unlock()
	if left != 0 || after != before || tel.queue.dropped.Load() != 1 {
		t.Errorf("a 400 was retried or not counted: fail left %d, decoded requests %d→%d, dropped %d", left, before, after, tel.queue.dropped.Load())
	}
}

// TestOTLPCertificate: a collector with its own CA is trusted through
// OTEL_EXPORTER_OTLP_CERTIFICATE, and not without it.
func TestOTLPCertificate(t *testing.T) {
	clearOTelEnv(t)
	rcv := startReceiver(t, true)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rcv.srv.URL)
	t.Setenv("OTEL_BSP_EXPORT_TIMEOUT", "2000")

	untrusting := newTelemetry(t, Options{})
	exportOne(t, untrusting)
	if len(rcv.got()) != 0 || untrusting.queue.dropped.Load() != 1 {
		t.Fatalf("a span reached a collector whose certificate is not trusted")
	}

	ca := filepath.Join(t.TempDir(), "ca.pem")
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rcv.srv.Certificate().Raw})
	if err := os.WriteFile(ca, cert, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", ca)
	trusting := newTelemetry(t, Options{})
	exportOne(t, trusting)
	if len(rcv.got()) != 1 || trusting.queue.dropped.Load() != 0 {
		t.Errorf("with the certificate: %d spans received, %d dropped", len(rcv.got()), trusting.queue.dropped.Load())
	}
}
