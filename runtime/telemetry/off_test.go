package telemetry

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// exercise calls every method, as the runtime would around one request.
func exercise(tel *Telemetry) {
	ctx, sp := tel.StartRequest(context.Background(), RequestInfo{Method: "tools/call", Target: "echo", Server: "demo", Transport: "stdio"})
	meta := map[string]any{}
	Inject(ctx, meta)
	sp.SetRequestID("1")
	sp.Progress(1, 2, "half")
	sp.Cancelled("user")
	_, again := sp.Retry(context.Background(), RequestInfo{Method: "tools/call", Target: "echo"}, "reconnect")
	again.End(nil, "")
	sp.End(errors.New("x"), ErrorTypeCancelled)
	tel.RecordPing("demo", time.Millisecond, true)
	tel.RecordSession(SessionEnd{Server: "demo", Duration: time.Second})
	tel.SetSource(func() []ServerStats { return nil })
	tel.SetGatewaySource(nil)
	_ = tel.Handler()
	_ = tel.TraceEndpoint()
}

// TestOffStartsNothing: with neither metrics nor OTLP configured New
// builds nothing, no goroutine runs, and every method is a no-op; a nil
// *Telemetry behaves the same.
func TestOffStartsNothing(t *testing.T) {
	clearOTelEnv(t)
	before := goleak.IgnoreCurrent()
	tel, err := New(Options{Source: func() []ServerStats { panic("the source must not be read when metrics are off") }})
	if err != nil {
		t.Fatal(err)
	}
	if tel.Enabled() || tel.MetricsEnabled() || tel.TracesEnabled() {
		t.Fatalf("enabled with nothing configured: metrics %v traces %v", tel.MetricsEnabled(), tel.TracesEnabled())
	}
	exercise(tel)
	if err := goleak.Find(before); err != nil {
		t.Errorf("telemetry that is off started a goroutine: %v", err)
	}
	if _, sp := tel.StartRequest(context.Background(), RequestInfo{Method: "ping"}); sp != nil {
		t.Error("StartRequest returned a span while off")
	}
	if _, err := tel.ServeMetrics(t.Context(), "127.0.0.1:0", false); !errors.Is(err, ErrMetricsOff) {
		t.Errorf("ServeMetrics while off: %v, want ErrMetricsOff", err)
	}
	rec := httptest.NewRecorder()
	tel.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 404 {
		t.Errorf("Handler while off answered %d, want 404", rec.Code)
	}
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	var nilTel *Telemetry
	exercise(nilTel)
	if nilTel.Enabled() {
		t.Error("nil telemetry enabled")
	}
	if err := nilTel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestSDKDisabled: OTEL_SDK_DISABLED=true turns everything off, even with
// metrics and an endpoint asked for.
func TestSDKDisabled(t *testing.T) {
	clearOTelEnv(t)
	t.Setenv("OTEL_SDK_DISABLED", "TRUE")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	before := goleak.IgnoreCurrent()
	tel, err := New(Options{Metrics: true, OTLPEndpoint: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	if tel.Enabled() {
		t.Error("enabled despite OTEL_SDK_DISABLED=true")
	}
	exercise(tel)
	if err := goleak.Find(before); err != nil {
		t.Errorf("disabled telemetry started a goroutine: %v", err)
	}
}

// TestTraceConfig: which settings turn trace export on, and which are
// refused with an error that says what to do.
func TestTraceConfig(t *testing.T) {
	cases := []struct {
		name     string
		env      map[string]string
		flag     string
		on       bool
		endpoint string
		err      string
	}{
		{name: "nothing", on: false},
		{name: "general endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, on: true, endpoint: "http://collector:4318/v1/traces"},
		{name: "traces endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/custom"}, on: true, endpoint: "http://c:4318/custom"},
		{name: "exporter otlp alone", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, on: true, endpoint: "http://localhost:4318/v1/traces"},
		{name: "exporter none wins over endpoint", env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, on: false},
		{name: "flag", flag: "http://flag:4318/base", on: true, endpoint: "http://flag:4318/base/v1/traces"},
		{name: "flag wins over none", flag: "http://flag:4318", env: map[string]string{"OTEL_TRACES_EXPORTER": "none"}, on: true, endpoint: "http://flag:4318/v1/traces"},
		{name: "bad flag", flag: "collector:4318", err: "--otlp"},
		{name: "grpc", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, err: "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"},
		{name: "traces protocol wins", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, on: true, endpoint: "http://c:4318/v1/traces"},
		{name: "json", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, on: true, endpoint: "http://c:4318/v1/traces"},
		// http/protobuf, the specification's default, is often set for a
		// whole host: spans go as http/json, with a warning (below).
		{name: "protobuf sent as json", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}, on: true, endpoint: "http://c:4318/v1/traces"},
		{name: "protobuf sent as json with --otlp", flag: "http://flag:4318", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}, on: true, endpoint: "http://flag:4318/v1/traces"},
		{name: "unknown protocol", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/thrift"}, err: "OTEL_EXPORTER_OTLP_PROTOCOL=http/thrift"},
		{name: "bad endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"}, err: "OTEL_EXPORTER_OTLP_ENDPOINT"},
		{name: "bad headers", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_HEADERS": "novalue"}, err: "OTEL_EXPORTER_OTLP_HEADERS"},
		{name: "bad compression", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"}, err: "OTEL_EXPORTER_OTLP_COMPRESSION=zstd"},
		{name: "missing certificate", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:4318", "OTEL_EXPORTER_OTLP_CERTIFICATE": "/nonexistent.pem"}, err: "OTEL_EXPORTER_OTLP_CERTIFICATE"},
		{name: "zipkin", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, err: "OTEL_TRACES_EXPORTER=zipkin"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clearOTelEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var logged bytes.Buffer
			tel, err := New(Options{OTLPEndpoint: tc.flag, Logger: slog.New(slog.NewTextHandler(&logged, nil))})
			if tc.err != "" {
				if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want ErrConfig naming %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer tel.Shutdown(context.Background())
			if tel.TracesEnabled() != tc.on || tel.TraceEndpoint() != tc.endpoint {
				t.Errorf("traces %v at %q, want %v at %q", tel.TracesEnabled(), tel.TraceEndpoint(), tc.on, tc.endpoint)
			}
			if tel.MetricsEnabled() {
				t.Error("metrics on without Options.Metrics")
			}
			warned := strings.Contains(logged.String(), "level=WARN") && strings.Contains(logged.String(), "value=http/protobuf")
			if protobuf := strings.HasPrefix(tc.name, "protobuf"); warned != protobuf {
				t.Errorf("warned of http/protobuf: %v, want %v; log:\n%s", warned, protobuf, logged.String())
			}
		})
	}
}
