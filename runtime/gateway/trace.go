package gateway

import (
	"bytes"
	"context"
	"encoding/json"

	"mcpdeck/runtime/telemetry"
)

// traced returns ctx carrying the trace context a client sent in its
// request's params._meta (traceparent, tracestate, baggage: the keys the
// MCP conventions put there), so the runtime's span of the forwarded
// request is a child of the client's span and the server it goes to
// receives the same trace id in its own _meta. A request without trace
// context costs one scan of its _meta.
func traced(ctx context.Context, meta json.RawMessage) context.Context {
	if !bytes.Contains(meta, []byte(`"`+telemetry.MetaTraceparent+`"`)) && !bytes.Contains(meta, []byte(`"`+telemetry.MetaBaggage+`"`)) {
		return ctx
	}
	var m map[string]any
	if json.Unmarshal(meta, &m) != nil {
		return ctx
	}
	return telemetry.Extract(ctx, m)
}
