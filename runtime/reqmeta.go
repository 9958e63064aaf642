package runtime

import (
	"context"
	"encoding/json"

	"mcpdeck/runtime/mcp"
)

// requestMetaKey is the context key of WithRequestMeta.
type requestMetaKey struct{}

// WithRequestMeta returns a ctx whose requests carry the keys of meta, a
// _meta object from elsewhere (the gateway passes its client's), in their
// own _meta: every key the protocol does not reserve (mcp.ReservedMetaKey)
// reaches the server as sent. The reserved ones (the envelope, the
// progress token, the trace context) belong to each hop, so the request
// carries mcpdeck's own.
func WithRequestMeta(ctx context.Context, meta json.RawMessage) context.Context {
	foreign := mcp.ForeignMeta(meta)
	if foreign == nil {
		return ctx
	}
	return context.WithValue(ctx, requestMetaKey{}, foreign)
}

// addRequestMeta puts the keys WithRequestMeta gave ctx into meta, the
// _meta being built for a request, without replacing any already there.
func addRequestMeta(ctx context.Context, meta map[string]any) {
	foreign, _ := ctx.Value(requestMetaKey{}).(map[string]json.RawMessage)
	for k, v := range foreign {
		if _, taken := meta[k]; !taken {
			meta[k] = v
		}
	}
}
