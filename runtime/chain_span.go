package runtime

import (
	"context"
	"encoding/json"
	"errors"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/telemetry"
)

// spanLink opens the span of a caller's request, around every round and
// poll of it, and puts its trace context into the request's _meta, so a
// server that also traces joins the trace.
func spanLink(ctx context.Context, s *session, r *request, next sender) (json.RawMessage, error) {
	if !r.forCaller {
		return next(ctx, r)
	}
	if r.meta == nil {
		r.meta = map[string]any{}
	}
	ctx, r.span = s.startSpan(ctx, r.method, r.target, r.meta)
	body, err := next(ctx, r)
	endSpan(r.span, body, err)
	return body, err
}

// startSpan opens the span of one request and puts its trace context into
// meta.
func (s *session) startSpan(ctx context.Context, method, target string, meta map[string]any) (context.Context, *telemetry.Span) {
	tel := s.c.opts.Telemetry
	if !tel.TracesEnabled() && !tel.MetricsEnabled() {
		// No span of ours, but a caller's trace context (a gateway client's)
		// still reaches the server.
		telemetry.Inject(ctx, meta)
		return ctx, nil
	}
	info := telemetry.RequestInfo{Method: method, Target: target, Server: s.name, Transport: s.cfg.Transport.String(),
		ProtocolVersion: s.init.ProtocolVersion, Era: eraName(s.init.ProtocolVersion)}
	if s.cfg.Transport != "stdio" {
		info.URL = s.cfg.URL
	}
	ctx, sp := tel.StartRequest(ctx, info)
	telemetry.Inject(ctx, meta)
	return ctx, sp
}

// endSpan ends a request's span with its outcome.
func endSpan(span *telemetry.Span, body json.RawMessage, err error) {
	if span == nil {
		return // telemetry is off: no need to read the result again
	}
	var ce *jsonrpc.CancelledError
	switch {
	case errors.As(err, &ce):
		span.Cancelled(ce.Reason)
		span.End(err, errorType(err, false))
	case err != nil:
		span.End(err, errorType(err, false))
	default:
		span.End(nil, errorType(nil, isErrorResult(body)))
	}
}
