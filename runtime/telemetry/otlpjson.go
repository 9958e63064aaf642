package telemetry

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// This file turns ended spans into an OTLP/JSON export request
// (ExportTraceServiceRequest in the Protobuf JSON mapping, as the OTLP
// specification's "JSON Protobuf Encoding" fixes it: lowerCamelCase
// field names, trace and span ids as hex strings, enums as numbers, 64-bit
// integers as decimal strings). It replaces the SDK's otlptrace exporter
// and its protobuf messages, whose package inits (google.golang.org/
// protobuf's registries and descriptors) ran at every mcpdeck start.

type otlpRequest struct {
	ResourceSpans []otlpResourceSpans `json:"resourceSpans"`
}

type otlpResourceSpans struct {
	Resource   otlpResource     `json:"resource"`
	ScopeSpans []otlpScopeSpans `json:"scopeSpans"`
	SchemaURL  string           `json:"schemaUrl,omitempty"`
}

type otlpResource struct {
	Attributes []otlpKeyValue `json:"attributes,omitempty"`
}

type otlpScopeSpans struct {
	Scope     *otlpScope `json:"scope,omitempty"`
	Spans     []otlpSpan `json:"spans"`
	SchemaURL string     `json:"schemaUrl,omitempty"`
}

type otlpScope struct {
	Name       string         `json:"name,omitempty"`
	Version    string         `json:"version,omitempty"`
	Attributes []otlpKeyValue `json:"attributes,omitempty"`
}

type otlpSpan struct {
	TraceID                string         `json:"traceId"`
	SpanID                 string         `json:"spanId"`
	TraceState             string         `json:"traceState,omitempty"`
	ParentSpanID           string         `json:"parentSpanId,omitempty"`
	Flags                  uint32         `json:"flags,omitempty"`
	Name                   string         `json:"name"`
	Kind                   int            `json:"kind"`
	StartTimeUnixNano      uint64         `json:"startTimeUnixNano,string"`
	EndTimeUnixNano        uint64         `json:"endTimeUnixNano,string"`
	Attributes             []otlpKeyValue `json:"attributes,omitempty"`
	DroppedAttributesCount uint32         `json:"droppedAttributesCount,omitempty"`
	Events                 []otlpEvent    `json:"events,omitempty"`
	DroppedEventsCount     uint32         `json:"droppedEventsCount,omitempty"`
	Links                  []otlpLink     `json:"links,omitempty"`
	DroppedLinksCount      uint32         `json:"droppedLinksCount,omitempty"`
	Status                 *otlpStatus    `json:"status,omitempty"`
}

type otlpEvent struct {
	TimeUnixNano           uint64         `json:"timeUnixNano,string"`
	Name                   string         `json:"name"`
	Attributes             []otlpKeyValue `json:"attributes,omitempty"`
	DroppedAttributesCount uint32         `json:"droppedAttributesCount,omitempty"`
}

type otlpLink struct {
	TraceID                string         `json:"traceId"`
	SpanID                 string         `json:"spanId"`
	TraceState             string         `json:"traceState,omitempty"`
	Attributes             []otlpKeyValue `json:"attributes,omitempty"`
	DroppedAttributesCount uint32         `json:"droppedAttributesCount,omitempty"`
	Flags                  uint32         `json:"flags,omitempty"`
}

// otlpStatus codes are STATUS_CODE_UNSET 0, OK 1, ERROR 2.
type otlpStatus struct {
	Message string `json:"message,omitempty"`
	Code    int    `json:"code,omitempty"`
}

type otlpKeyValue struct {
	Key   string       `json:"key"`
	Value otlpAnyValue `json:"value"`
}

// otlpAnyValue is the AnyValue oneof: exactly one member is set (none
// for an empty value).
type otlpAnyValue struct {
	StringValue *string        `json:"stringValue,omitempty"`
	BoolValue   *bool          `json:"boolValue,omitempty"`
	IntValue    *int64         `json:"intValue,omitempty,string"`
	DoubleValue *otlpDouble    `json:"doubleValue,omitempty"`
	ArrayValue  *otlpValues    `json:"arrayValue,omitempty"`
	KvlistValue *otlpKeyValues `json:"kvlistValue,omitempty"`
	BytesValue  []byte         `json:"bytesValue,omitempty"` // base64, as the mapping writes bytes
}

type otlpValues struct {
	Values []otlpAnyValue `json:"values"`
}

type otlpKeyValues struct {
	Values []otlpKeyValue `json:"values"`
}

// otlpDouble is a double as the Protobuf JSON mapping writes it: a
// number, or "NaN", "Infinity", "-Infinity", which JSON has no number for.
type otlpDouble float64

func (d otlpDouble) MarshalJSON() ([]byte, error) {
	f := float64(d)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"Infinity"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Infinity"`), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// Span flags: the W3C trace flags in the low byte, and whether the parent
// is known to be remote (SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK and
// SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK), as the SDK's exporter set them.
const (
	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

func spanFlags(tf trace.TraceFlags, parent trace.SpanContext) uint32 {
	f := uint32(tf) | flagHasIsRemote
	if parent.IsRemote() {
		f |= flagIsRemote
	}
	return f
}

// encodeSpans builds the export request for a batch: spans grouped by
// resource and then by instrumentation scope, in the order they ended.
func encodeSpans(spans []sdktrace.ReadOnlySpan) ([]byte, error) {
	type scopeKey struct {
		res   attribute.Distinct
		scope instrumentation.Scope
	}
	var req otlpRequest
	resIndex := map[attribute.Distinct]int{}
	scopeIndex := map[scopeKey]int{}
	for _, s := range spans {
		res := s.Resource()
		rk := res.Equivalent()
		ri, ok := resIndex[rk]
		if !ok {
			ri = len(req.ResourceSpans)
			resIndex[rk] = ri
			req.ResourceSpans = append(req.ResourceSpans, otlpResourceSpans{
				Resource:  otlpResource{Attributes: otlpAttrs(res.Attributes())},
				SchemaURL: res.SchemaURL(),
			})
		}
		rs := &req.ResourceSpans[ri]
		sk := scopeKey{rk, s.InstrumentationScope()}
		si, ok := scopeIndex[sk]
		if !ok {
			si = len(rs.ScopeSpans)
			scopeIndex[sk] = si
			ss := otlpScopeSpans{SchemaURL: sk.scope.SchemaURL}
			if sk.scope != (instrumentation.Scope{}) {
				ss.Scope = &otlpScope{Name: sk.scope.Name, Version: sk.scope.Version, Attributes: otlpAttrs(sk.scope.Attributes.ToSlice())}
			}
			rs.ScopeSpans = append(rs.ScopeSpans, ss)
		}
		rs.ScopeSpans[si].Spans = append(rs.ScopeSpans[si].Spans, otlpSpanOf(s))
	}
	return json.Marshal(&req)
}

func otlpSpanOf(s sdktrace.ReadOnlySpan) otlpSpan {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	out := otlpSpan{
		TraceID:                hex.EncodeToString(tid[:]),
		SpanID:                 hex.EncodeToString(sid[:]),
		TraceState:             sc.TraceState().String(),
		Flags:                  spanFlags(sc.TraceFlags(), s.Parent()),
		Name:                   s.Name(),
		Kind:                   otlpKind(s.SpanKind()),
		StartTimeUnixNano:      unixNano(s.StartTime().UnixNano()),
		EndTimeUnixNano:        unixNano(s.EndTime().UnixNano()),
		Attributes:             otlpAttrs(s.Attributes()),
		DroppedAttributesCount: clampUint32(s.DroppedAttributes()),
		DroppedEventsCount:     clampUint32(s.DroppedEvents()),
		DroppedLinksCount:      clampUint32(s.DroppedLinks()),
	}
	if p := s.Parent().SpanID(); p.IsValid() {
		out.ParentSpanID = hex.EncodeToString(p[:])
	}
	switch st := s.Status(); st.Code {
	case codes.Error:
		out.Status = &otlpStatus{Code: 2, Message: st.Description}
	case codes.Ok:
		out.Status = &otlpStatus{Code: 1}
	}
	for _, e := range s.Events() {
		out.Events = append(out.Events, otlpEvent{
			TimeUnixNano: unixNano(e.Time.UnixNano()), Name: e.Name,
			Attributes: otlpAttrs(e.Attributes), DroppedAttributesCount: clampUint32(e.DroppedAttributeCount),
		})
	}
	for _, l := range s.Links() {
		ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		out.Links = append(out.Links, otlpLink{
			TraceID: hex.EncodeToString(ltid[:]), SpanID: hex.EncodeToString(lsid[:]),
			TraceState: l.SpanContext.TraceState().String(),
			Attributes: otlpAttrs(l.Attributes), DroppedAttributesCount: clampUint32(l.DroppedAttributeCount),
			Flags: spanFlags(l.SpanContext.TraceFlags(), l.SpanContext),
		})
	}
	return out
}

// otlpKind maps a span kind to SPAN_KIND_*: the numbers are the same
// (INTERNAL 1, SERVER 2, CLIENT 3, PRODUCER 4, CONSUMER 5), anything else
// is UNSPECIFIED.
func otlpKind(k trace.SpanKind) int {
	if k >= trace.SpanKindInternal && k <= trace.SpanKindConsumer {
		return int(k)
	}
	return 0
}

func otlpAttrs(kvs []attribute.KeyValue) []otlpKeyValue {
	if len(kvs) == 0 {
		return nil
	}
	out := make([]otlpKeyValue, len(kvs))
	for i, kv := range kvs {
		out[i] = otlpKeyValue{Key: string(kv.Key), Value: otlpValue(kv.Value)}
	}
	return out
}

func otlpValue(v attribute.Value) otlpAnyValue {
	var a otlpAnyValue
	switch v.Type() {
	case attribute.BOOL:
		b := v.AsBool()
		a.BoolValue = &b
	case attribute.INT64:
		n := v.AsInt64()
		a.IntValue = &n
	case attribute.FLOAT64:
		d := otlpDouble(v.AsFloat64())
		a.DoubleValue = &d
	case attribute.STRING:
		s := v.AsString()
		a.StringValue = &s
	case attribute.BYTESLICE:
		a.BytesValue = v.AsByteSlice()
	case attribute.BOOLSLICE:
		a.ArrayValue = &otlpValues{Values: mapValues(v.AsBoolSlice(), attribute.BoolValue)}
	case attribute.INT64SLICE:
		a.ArrayValue = &otlpValues{Values: mapValues(v.AsInt64Slice(), attribute.Int64Value)}
	case attribute.FLOAT64SLICE:
		a.ArrayValue = &otlpValues{Values: mapValues(v.AsFloat64Slice(), attribute.Float64Value)}
	case attribute.STRINGSLICE:
		a.ArrayValue = &otlpValues{Values: mapValues(v.AsStringSlice(), attribute.StringValue)}
	case attribute.SLICE:
		a.ArrayValue = &otlpValues{Values: mapValues(v.AsSlice(), func(v attribute.Value) attribute.Value { return v })}
	case attribute.MAP:
		a.KvlistValue = &otlpKeyValues{Values: otlpAttrs(v.AsMap())}
		if a.KvlistValue.Values == nil {
			a.KvlistValue.Values = []otlpKeyValue{}
		}
	case attribute.EMPTY:
	default:
		s := "INVALID"
		a.StringValue = &s
	}
	return a
}

func mapValues[T any](in []T, value func(T) attribute.Value) []otlpAnyValue {
	out := make([]otlpAnyValue, len(in))
	for i, x := range in {
		out[i] = otlpValue(value(x))
	}
	return out
}

func unixNano(n int64) uint64 { return uint64(max(0, n)) }

func clampUint32(v int) uint32 {
	return uint32(min(max(v, 0), math.MaxUint32))
}
