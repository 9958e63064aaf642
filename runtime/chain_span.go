package runtime

import (
	"context"
	"encoding/json"
	"errors"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/telemetry"
)

// spanLink opens the span of every request, a caller's around every round
// and poll of it, and puts its trace context into the request's _meta, so
// a server that also traces joins the trace. The session's own requests
// (handshake, list pages, health probes, the listen stream, task polls)
// are spans too, so a trace shows everything the runtime sent.
func spanLink(ctx context.Context, s *session, r *request, next sender) (json.RawMessage, error) {
	if r.meta == nil {
		r.meta = map[string]any{}
	}
	ctx, r.span = s.startSpan(ctx, r)
	if !r.forCaller && r.span != nil {
		// A caller's request has its id set by the round link; the
		// session's own are told here.
		sp, told := r.span, r.onID
		r.onID = func(id uint64) {
			sp.SetRequestID(jsonrpc.FormatID(id))
			if told != nil {
				told(id)
			}
		}
	}
	body, err := next(ctx, r)
	endSpan(r.span, body, err)
	return body, err
}

// startSpan opens the span of r and puts its trace context into r.meta.
func (s *session) startSpan(ctx context.Context, r *request) (context.Context, *telemetry.Span) {
	tel := s.c.opts.Telemetry
	if !tel.TracesEnabled() && !tel.MetricsEnabled() {
		// No span of ours, but a caller's trace context (a gateway client's)
		// still reaches the server.
		telemetry.Inject(ctx, r.meta)
		return ctx, nil
	}
	info := s.requestInfo(r.method, r.target)
	info.Stream = r.stream
	ctx, sp := tel.StartRequest(ctx, info)
	telemetry.Inject(ctx, r.meta)
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
