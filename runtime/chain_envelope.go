package runtime

import (
	"context"
	"encoding/json"

	"mcpdeck/runtime/mcp"
)

// envelopeLink puts a request's params on the wire as the session's era
// wants them: in the modern era with the envelope in _meta (version,
// capabilities, client, log level), and in either era with the progress
// token of a caller's request and the _meta keys the links above and the
// caller (WithRequestMeta) asked for. Params an entry made ready itself
// (the handshake's) pass as they are.
func envelopeLink(ctx context.Context, s *session, r *request, next sender) (json.RawMessage, error) {
	if r.wire == nil {
		token := ""
		if r.forCaller {
			if r.meta == nil {
				r.meta = map[string]any{}
			}
			addRequestMeta(ctx, r.meta)
			token = r.active.token
		}
		r.wire = s.wire(s.encodedFor(ctx), r.params, token, r.meta)
	} else if p, ok := r.wire.(mcp.InitializeParams); ok {
		// The handshake's params are its own; only the trace context
		// joins them, in _meta.
		r.wire = initializeWire(p, r.meta)
	}
	return next(ctx, r)
}

// wire prepares a request's params for the connection. In the modern
// era they become JSON with the envelope in _meta (with the progress
// token when not empty, and extra, the trace context, when not empty),
// marshalled once. In the legacy era _meta carries only the token and
// extra; nil params with neither stay nil (no params member at all, not
// "params": null).
func (s *session) wire(enc *mcp.Encoded, params map[string]any, token string, extra map[string]any) any {
	if s.modern() {
		if len(extra) > 0 {
			cp := make(map[string]any, len(params)+1)
			for k, v := range params {
				cp[k] = v
			}
			meta := make(map[string]any, len(extra))
			for k, v := range extra {
				meta[k] = v
			}
			cp["_meta"] = meta
			params = cp
		}
		var tok any
		if token != "" {
			tok = token
		}
		raw, err := enc.Marshal(params, tok)
		if err != nil {
			return params // unencodable params: the connection reports it
		}
		return raw
	}
	if token == "" && len(extra) == 0 {
		if params == nil {
			return nil
		}
		return params
	}
	if params == nil {
		params = map[string]any{}
	}
	meta := make(map[string]any, len(extra)+1)
	for k, v := range extra {
		meta[k] = v
	}
	if token != "" {
		meta["progressToken"] = token
	}
	params["_meta"] = meta
	return params
}

// encodedFor is the encoded envelope of a request made with ctx: the
// session's, or, for a request made for a caller that declared its own
// capabilities (WithCallerCapabilities), the session's with those,
// encoded for this request alone. Nil in the legacy era, which has none.
func (s *session) encodedFor(ctx context.Context) *mcp.Encoded {
	if !s.modern() {
		return nil
	}
	if _, ok := ctx.Value(callerCapsKey{}).(mcp.ClientCapabilities); !ok {
		return s.env.enc.Load()
	}
	s.env.mu.Lock()
	env := s.env.env
	s.env.mu.Unlock()
	env.Capabilities = s.declaredFor(ctx)
	enc, err := env.Encode()
	if err != nil {
		return s.env.enc.Load()
	}
	return &enc
}
