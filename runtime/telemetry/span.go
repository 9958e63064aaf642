package telemetry

import (
	"context"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// RequestInfo describes one MCP request (or notification) the client
// sends, for its span and its operation-duration measurement.
type RequestInfo struct {
	Method string // mcp.method.name: tools/call, resources/read, ...
	// Target is what the method acts on: the tool name for tools/call, the
	// prompt name for prompts/get, the URI for resources/read, subscribe
	// and unsubscribe. Only tool and prompt names go into the span name:
	// URIs are high-cardinality (the conventions' advice).
	Target          string
	Server          string // configured server name
	Era             string // EraLegacy or EraModern
	Transport       string // stdio, http, sse
	ProtocolVersion string // mcp.protocol.version
	RequestID       string // jsonrpc.request.id; "" for a notification or when set later (SetRequestID)
	SessionID       string // mcp.session.id, where the transport has one
	// URL is the server's URL for remote servers; it gives server.address
	// and server.port.
	URL string
	// Stream marks a request whose answer ends a long-lived stream
	// (subscriptions/listen): its span lasts as long as the stream, and no
	// operation duration is recorded, since that length says nothing of
	// latency.
	Stream bool
}

// Span is one request's CLIENT span and duration measurement. A nil *Span
// is valid and does nothing, which is what StartRequest returns when
// telemetry is off. End it exactly once; later calls do nothing.
type Span struct {
	t     *Telemetry
	span  trace.Span // nil when traces are off
	info  RequestInfo
	start time.Time
	// internal marks a span that is not one request (a connection
	// attempt): no operation duration is recorded for it.
	internal bool
	// retries counts Retry calls, to number the rounds.
	retries atomic.Int32
	ended   atomic.Bool
}

// StartRequest starts the span of a request about to be sent and returns a
// context carrying it (for Inject). The span's parent is the span in ctx,
// if any: the gateway's continuation of a client's trace, or the caller's.
func (t *Telemetry) StartRequest(ctx context.Context, info RequestInfo) (context.Context, *Span) {
	if !t.Enabled() {
		return ctx, nil
	}
	s := &Span{t: t, info: info, start: time.Now()}
	if t.tracer != nil {
		ctx, s.span = t.tracer.Start(ctx, spanName(info),
			trace.WithSpanKind(trace.SpanKindClient),
			trace.WithTimestamp(s.start),
			trace.WithAttributes(spanAttributes(info)...))
	}
	return ctx, s
}

// StartConnect starts the INTERNAL span of one connection attempt to a
// server, named "connect": starting the process or dialing, the era
// probe, the handshake and the first listing are its children, so one
// trace shows how a server came up (or why it did not). Only Method-less
// fields of info are read. End it with the attempt's outcome.
func (t *Telemetry) StartConnect(ctx context.Context, info RequestInfo) (context.Context, *Span) {
	if !t.TracesEnabled() {
		return ctx, nil
	}
	s := &Span{t: t, info: info, start: time.Now(), internal: true}
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = appendTransport(attrs, info.Transport)
	attrs = appendAddress(attrs, info.URL)
	attrs = append(attrs, KeyServer.String(info.Server))
	attrs = appendSet(attrs, KeyMCPTransport, info.Transport)
	ctx, s.span = t.tracer.Start(ctx, "connect", trace.WithSpanKind(trace.SpanKindInternal), trace.WithTimestamp(s.start), trace.WithAttributes(attrs...))
	return ctx, s
}

// SetProtocol records the protocol revision and era a connection agreed
// on, once they are known.
func (s *Span) SetProtocol(version, era string) {
	if s == nil || s.span == nil || version == "" {
		return
	}
	s.span.SetAttributes(KeyProtocolVersion.String(version), KeyEra.String(era))
}

// Retry starts the span of the same operation sent again (an MRTR round
// after input_required, or a request re-issued after a reconnect), linked
// to this one. Pass the context StartRequest was given, so the rounds are
// siblings under the caller's span; reason is "input_required" or
// "reconnect". The caller still ends this span and must end the new one.
func (s *Span) Retry(ctx context.Context, info RequestInfo, reason string) (context.Context, *Span) {
	if s == nil {
		return ctx, nil
	}
	attempt := int(s.retries.Add(1))
	n := &Span{t: s.t, info: info, start: time.Now()}
	n.retries.Store(int32(attempt))
	if s.span != nil {
		attrs := append(spanAttributes(info), KeyRetryReason.String(reason), KeyRetryAttempt.Int(attempt))
		ctx, n.span = s.t.tracer.Start(ctx, spanName(info),
			trace.WithSpanKind(trace.SpanKindClient),
			trace.WithTimestamp(n.start),
			trace.WithLinks(trace.Link{
				SpanContext: s.span.SpanContext(),
				Attributes:  []attribute.KeyValue{KeyRetryReason.String(reason)},
			}),
			trace.WithAttributes(attrs...))
	}
	return ctx, n
}

// SetRequestID records jsonrpc.request.id once the id is chosen, for
// callers whose ids are assigned as the request is sent.
func (s *Span) SetRequestID(id string) {
	if s == nil || s.span == nil || id == "" {
		return
	}
	s.span.SetAttributes(KeyRequestID.String(id))
}

// Progress adds a notifications/progress event to the span.
func (s *Span) Progress(progress, total float64, message string) {
	if s == nil || s.span == nil {
		return
	}
	attrs := []attribute.KeyValue{KeyProgress.Float64(progress)}
	if total > 0 {
		attrs = append(attrs, KeyProgressTotal.Float64(total))
	}
	attrs = appendSet(attrs, KeyProgressMessage, message)
	s.span.AddEvent("notifications/progress", trace.WithAttributes(attrs...))
}

// Cancelled adds a notifications/cancelled event: the request was
// cancelled (timeout, user, context) and the server was told so. End the
// span afterwards with ErrorTypeCancelled or ErrorTypeTimeout.
func (s *Span) Cancelled(reason string) {
	if s == nil || s.span == nil {
		return
	}
	s.span.AddEvent("notifications/cancelled", trace.WithAttributes(KeyCancelReason.String(reason)))
}

// End ends the span and records mcp.client.operation.duration. errorType
// is error.type: "" on success, ErrorTypeToolError for an isError result,
// ErrorTypeForCode(code) for a JSON-RPC error, ErrorTypeTimeout,
// ErrorTypeCancelled, ErrorTypeClosed; a non-nil err without one is
// ErrorTypeOther. With an error type the span's status is Error,
// described by err (the JSON-RPC error message) when there is one.
func (s *Span) End(err error, errorType string) {
	if s == nil || !s.ended.CompareAndSwap(false, true) {
		return
	}
	end := time.Now()
	if errorType == "" && err != nil {
		errorType = ErrorTypeOther
	}
	code, isCode := statusCode(errorType)
	if s.span != nil {
		if errorType != "" {
			s.span.SetAttributes(KeyErrorType.String(errorType))
			if isCode {
				s.span.SetAttributes(KeyStatusCode.String(code))
			}
			desc := errorType
			if err != nil {
				desc = err.Error()
			}
			s.span.SetStatus(codes.Error, desc)
		}
		s.span.End(trace.WithTimestamp(end))
	}
	if m := s.t.meters; m != nil && !s.internal && !s.info.Stream {
		m.opDuration.Record(context.Background(), end.Sub(s.start).Seconds(),
			metric.WithAttributeSet(m.operationAttributes(s.info, errorType, code, isCode)))
	}
}

// SpanContext is the span's identity, as Inject writes it into
// traceparent; invalid when traces are off.
func (s *Span) SpanContext() trace.SpanContext {
	if s == nil || s.span == nil {
		return trace.SpanContext{}
	}
	return s.span.SpanContext()
}

// ErrorTypeForCode is error.type for a JSON-RPC error response: the code
// as a decimal string, as the conventions ask.
func ErrorTypeForCode(code int64) string { return strconv.FormatInt(code, 10) }

// statusCode reports whether errorType is a JSON-RPC code, which also goes
// into rpc.response.status_code.
func statusCode(errorType string) (string, bool) {
	if errorType == "" || (errorType[0] != '-' && (errorType[0] < '0' || errorType[0] > '9')) {
		return "", false
	}
	if _, err := strconv.ParseInt(errorType, 10, 64); err != nil {
		return "", false
	}
	return errorType, true
}

// spanName is "{mcp.method.name} {target}" where the target is a tool or
// prompt name, else the method alone.
func spanName(info RequestInfo) string {
	if info.Target != "" && (info.Method == "tools/call" || info.Method == "prompts/get") {
		return info.Method + " " + info.Target
	}
	return info.Method
}

// spanAttributes are the conventions' CLIENT span attributes plus ours.
func spanAttributes(info RequestInfo) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 12)
	attrs = append(attrs, KeyMethod.String(info.Method))
	attrs = appendTarget(attrs, info.Method, info.Target)
	attrs = appendSet(attrs, KeyRequestID, info.RequestID)
	attrs = appendSet(attrs, KeySessionID, info.SessionID)
	attrs = appendSet(attrs, KeyProtocolVersion, info.ProtocolVersion)
	attrs = appendTransport(attrs, info.Transport)
	attrs = appendAddress(attrs, info.URL)
	attrs = appendSet(attrs, KeyServer, info.Server)
	attrs = appendSet(attrs, KeyMCPTransport, info.Transport)
	attrs = appendSet(attrs, KeyEra, info.Era)
	return attrs
}

// opKey identifies one operation-duration series: the low-cardinality
// fields only (no request id, session or URI).
type opKey struct {
	method, target, server, transport, version, errorType string
}

// maxCachedSets bounds the attribute-set cache; past it sets are built
// per measurement, which is slower but correct.
const maxCachedSets = 4096

// operationAttributes returns the attribute set of one measurement, cached:
// building and hashing it is most of what recording costs.
func (m *meters) operationAttributes(info RequestInfo, errorType, code string, isCode bool) attribute.Set {
	k := opKey{method: info.Method, server: info.Server, transport: info.Transport, version: info.ProtocolVersion, errorType: errorType}
	if info.Method == "tools/call" || info.Method == "prompts/get" {
		k.target = info.Target
	}
	if v, ok := m.opSets.Load(k); ok {
		return v.(attribute.Set)
	}
	set := operationAttributes(k, code, isCode)
	if m.opSetCount.Load() < maxCachedSets {
		if _, loaded := m.opSets.LoadOrStore(k, set); !loaded {
			m.opSetCount.Add(1)
		}
	}
	return set
}

func operationAttributes(k opKey, code string, isCode bool) attribute.Set {
	attrs := make([]attribute.KeyValue, 0, 10)
	attrs = append(attrs, KeyMethod.String(k.method))
	// k.target is kept for tools/call and prompts/get only: a resource
	// URI is no series' label.
	attrs = appendTarget(attrs, k.method, k.target)
	if k.errorType != "" {
		attrs = append(attrs, KeyErrorType.String(k.errorType))
		if isCode {
			attrs = append(attrs, KeyStatusCode.String(code))
		}
	}
	attrs = appendSet(attrs, KeyProtocolVersion, k.version)
	attrs = appendTransport(attrs, k.transport)
	attrs = appendSet(attrs, KeyServer, k.server)
	return attribute.NewSet(attrs...)
}

// appendTarget adds the attribute naming what the method acts on.
func appendTarget(attrs []attribute.KeyValue, method, target string) []attribute.KeyValue {
	if target == "" {
		return attrs
	}
	switch method {
	case "tools/call":
		return append(attrs, KeyToolName.String(target), KeyOperationName.String("execute_tool"))
	case "prompts/get":
		return append(attrs, KeyPromptName.String(target))
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		return append(attrs, KeyResourceURI.String(target))
	}
	return attrs
}

// appendSet adds key with value when the value is set: an attribute
// with nothing to say is left out, not sent empty.
func appendSet(attrs []attribute.KeyValue, key attribute.Key, value string) []attribute.KeyValue {
	if value == "" {
		return attrs
	}
	return append(attrs, key.String(value))
}

// appendAddress adds server.address and server.port from a remote
// server's URL.
func appendAddress(attrs []attribute.KeyValue, raw string) []attribute.KeyValue {
	if raw == "" {
		return attrs
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return attrs
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		switch u.Scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	attrs = append(attrs, KeyServerAddress.String(host))
	if p, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, KeyServerPort.Int(p))
	}
	return attrs
}
