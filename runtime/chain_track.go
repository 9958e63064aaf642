package runtime

import (
	"context"
	"encoding/json"
	"time"
)

// trackLink records a caller's request in flight (the session's inflight
// part) for as long as it runs: Controller.Cancel with any of its ids
// cancels it, a progress notification with its token reaches it, and a
// question the server asks meanwhile can reach its caller's responder.
func trackLink(ctx context.Context, s *session, r *request, next sender) (json.RawMessage, error) {
	if !r.forCaller {
		return next(ctx, r)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ac := &activeCall{method: r.method, tool: r.label, started: time.Now(), cancel: cancel, span: r.span, responder: responderFrom(ctx), hear: progressFrom(ctx)}
	s.inflight.add(ac, s.c.progressID.Add(1))
	// Removed before cancel(nil) runs: ctx is done here only when the
	// request was cancelled (by Cancel, or by its caller giving up).
	defer func() { s.inflight.remove(ac, ctx.Err() != nil) }()
	r.active = ac
	return next(ctx, r)
}
