package telemetry

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"mcpdeck/runtime/telemetry/otelcoltest"
)

// TestOTLPJSONEncoding encodes a span with every kind of attribute value,
// an event, a link, an error status and a remote parent, and checks the
// body against the OTLP/JSON rules (hex ids, enums as numbers, 64-bit
// integers as strings, lowerCamelCase names) and through protobuf's own
// JSON decoder.
func TestOTLPJSONEncoding(t *testing.T) {
	tid, _ := trace.TraceIDFromHex("5b8efff798038103d269b633813fc60c")
	sid, _ := trace.SpanIDFromHex("eee19b7ec3c1b174")
	psid, _ := trace.SpanIDFromHex("eee19b7ec3c1b173")
	lsid, _ := trace.SpanIDFromHex("0102030405060708")
	start := time.Unix(1_790_000_000, 123)
	stub := tracetest.SpanStub{
		Name:        "tools/call echo",
		SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}),
		Parent:      trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: psid, TraceFlags: trace.FlagsSampled, Remote: true}),
		SpanKind:    trace.SpanKindClient,
		StartTime:   start,
		EndTime:     start.Add(1500 * time.Millisecond),
		Attributes: []attribute.KeyValue{
			attribute.String("s", "a \"quoted\"\n"), attribute.Int64("big", math.MaxInt64), attribute.Bool("f", false),
			attribute.Float64("nan", math.NaN()), attribute.Float64("inf", math.Inf(1)), attribute.Float64("half", 0.5),
			attribute.StringSlice("ss", []string{"x", "y"}), attribute.Int64Slice("is", []int64{1, -2}),
		},
		Events: []sdktrace.Event{{Name: "notifications/progress", Time: start.Add(time.Second), Attributes: []attribute.KeyValue{attribute.Float64("p", 1)}}},
		Links: []sdktrace.Link{{SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: lsid}),
			Attributes: []attribute.KeyValue{KeyRetryReason.String("input_required")}}},
		Status:               sdktrace.Status{Code: codes.Error, Description: "boom"},
		Resource:             resource.NewSchemaless(attribute.String("service.name", "mcpdeck")),
		InstrumentationScope: instrumentation.Scope{Name: "mcpdeck"},
	}
	body, err := encodeSpans([]sdktrace.ReadOnlySpan{stub.Snapshot()})
	if err != nil {
		t.Fatal(err)
	}
	raw := string(body)
	for _, want := range []string{
		`"traceId":"5b8efff798038103d269b633813fc60c"`, `"spanId":"eee19b7ec3c1b174"`, `"parentSpanId":"eee19b7ec3c1b173"`,
		`"kind":3`, `"startTimeUnixNano":"1790000000000000123"`, `"endTimeUnixNano":"1790000001500000123"`,
		`"timeUnixNano":"1790000001000000123"`, `"intValue":"9223372036854775807"`, `"boolValue":false`,
		`"doubleValue":"NaN"`, `"doubleValue":"Infinity"`, `"doubleValue":0.5`,
		`"status":{"message":"boom","code":2}`, `"flags":769`, // sampled | has-is-remote | is-remote
		`"spanId":"0102030405060708"`, `"scope":{"name":"mcpdeck"}`,
	} {
		if !strings.Contains(raw, want) {
			t.Errorf("body lacks %s:\n%s", want, raw)
		}
	}
	for _, bad := range []string{"trace_id", "span_id", "start_time", "scope_spans", "resource_spans", "SPAN_KIND", "STATUS_CODE"} {
		if strings.Contains(raw, bad) {
			t.Errorf("body has %s: field names are lowerCamelCase and enums numbers:\n%s", bad, raw)
		}
	}
	if !json.Valid(body) {
		t.Fatalf("not JSON: %s", raw)
	}

	req, err := otelcoltest.DecodeTraces(body)
	if err != nil {
		t.Fatalf("protobuf's decoder refuses it: %v\n%s", err, raw)
	}
	s := req.GetResourceSpans()[0].GetScopeSpans()[0].GetSpans()[0]
	if hex.EncodeToString(s.GetTraceId()) != tid.String() || hex.EncodeToString(s.GetParentSpanId()) != psid.String() ||
		s.GetStartTimeUnixNano() != uint64(start.UnixNano()) || s.GetKind() != 3 || s.GetStatus().GetCode() != 2 ||
		len(s.GetEvents()) != 1 || len(s.GetLinks()) != 1 || s.GetLinks()[0].GetAttributes()[0].GetValue().GetStringValue() != "input_required" {
		t.Errorf("decoded span %v", s)
	}
	if v := s.GetAttributes()[0].GetValue().GetStringValue(); v != "a \"quoted\"\n" {
		t.Errorf("string attribute read back as %q", v)
	}
	if s.GetAttributes()[1].GetValue().GetIntValue() != math.MaxInt64 || !math.IsNaN(s.GetAttributes()[3].GetValue().GetDoubleValue()) ||
		len(s.GetAttributes()[7].GetValue().GetArrayValue().GetValues()) != 2 {
		t.Errorf("attributes read back as %v", s.GetAttributes())
	}
	if got := req.GetResourceSpans()[0].GetResource().GetAttributes()[0].GetValue().GetStringValue(); got != "mcpdeck" {
		t.Errorf("resource service.name %q", got)
	}
}
