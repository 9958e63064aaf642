package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// propagator writes and reads W3C Trace Context (traceparent, tracestate)
// and W3C Baggage (baggage): the keys the MCP conventions and SEP-414 put,
// unprefixed, into params._meta.
var propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// Meta keys Inject writes.
const (
	MetaTraceparent = "traceparent"
	MetaTracestate  = "tracestate"
	MetaBaggage     = "baggage"
)

// Inject writes the trace context of ctx (the span StartRequest returned)
// into meta, a request's params._meta, so a server that traces joins the
// same trace. It works whether or not this process exports traces, so a
// gateway passes a client's context on either way; with no span and no
// baggage in ctx it writes nothing. meta must not be nil.
func Inject(ctx context.Context, meta map[string]any) {
	if !trace.SpanContextFromContext(ctx).IsValid() && baggage.FromContext(ctx).Len() == 0 {
		return
	}
	propagator.Inject(ctx, metaCarrier(meta))
}

// Extract returns ctx carrying the remote trace context found in meta (an
// incoming request's params._meta), so spans started from it continue the
// client's trace: the gateway's path. Without one, ctx is returned as is.
func Extract(ctx context.Context, meta map[string]any) context.Context {
	if len(meta) == 0 {
		return ctx
	}
	if _, ok := meta[MetaTraceparent]; !ok {
		if _, ok := meta[MetaBaggage]; !ok {
			return ctx
		}
	}
	return propagator.Extract(ctx, metaCarrier(meta))
}

// metaCarrier adapts params._meta to the propagators. Values that are not
// strings are not trace context and are ignored.
type metaCarrier map[string]any

func (c metaCarrier) Get(key string) string {
	s, _ := c[key].(string)
	return s
}

func (c metaCarrier) Set(key, value string) { c[key] = value }

func (c metaCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}
