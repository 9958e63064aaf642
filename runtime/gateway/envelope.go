package gateway

import (
	"bytes"
	"encoding/json"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
)

// envelope is a modern request's _meta: its version, the capabilities it
// declares, who sent it, and what it asks for.
type envelope struct {
	version  string
	caps     mcp.ClientCapabilities
	info     *mcp.Implementation
	logLevel string // "" asks for no notifications/message
}

// metaOf is the part of a request's params the transport looks at.
type metaOf struct {
	Meta map[string]json.RawMessage `json:"_meta"`
}

// parseEnvelope reads the envelope of raw params (the HTTP transport's
// validation, before a connection decodes the request); see envelopeOf.
func parseEnvelope(params json.RawMessage) (env *envelope, token json.RawMessage, err error) {
	if !bytes.Contains(params, []byte(`"_meta"`)) {
		return nil, nil, nil
	}
	var m metaOf
	if json.Unmarshal(params, &m) != nil {
		return nil, nil, nil // the method's own decoding reports malformed params
	}
	return envelopeOf(m.Meta)
}

// cachedEnvelope is a client's last _meta and what was read from it.
type cachedEnvelope struct {
	raw   []byte
	env   *envelope
	token json.RawMessage
}

// envelope reads a request's envelope from its raw _meta, reusing what
// was read from the client's last one when the request repeats it (the
// common case: a client sends the same envelope every time).
func (cl *client) envelope(raw json.RawMessage) (*envelope, json.RawMessage, error) {
	if len(raw) == 0 {
		return nil, nil, nil
	}
	if last := cl.lastEnv.Load(); last != nil && bytes.Equal(last.raw, raw) {
		return last.env, last.token, nil
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(raw, &meta) != nil {
		return nil, nil, invalidParams("_meta must be an object")
	}
	env, token, err := envelopeOf(meta)
	if err == nil {
		cl.lastEnv.Store(&cachedEnvelope{raw: bytes.Clone(raw), env: env, token: token})
	}
	return env, token, err
}

// envelopeOf reads a request's envelope from its _meta. It returns nil,
// nil for a request without one (a legacy request), and an error naming
// what is wrong for a modern request the gateway cannot serve: a version
// it does not speak (-32022), or a missing or malformed key (-32602).
// token is the request's progressToken, either way.
func envelopeOf(meta map[string]json.RawMessage) (env *envelope, token json.RawMessage, err error) {
	if t, ok := meta[mcp.MetaProgressToken]; ok && !bytes.Equal(t, []byte("null")) {
		token = t
	}
	rawVersion, ok := meta[mcp.MetaProtocolVersion]
	if !ok {
		return nil, token, nil
	}
	env = &envelope{}
	if json.Unmarshal(rawVersion, &env.version) != nil || env.version == "" {
		return nil, token, invalidParams("_meta[%q] must be a protocol revision string", mcp.MetaProtocolVersion)
	}
	if mcp.EraOf(env.version) != mcp.Modern || !mcp.Supported(env.version) {
		return nil, token, unsupportedVersion(env.version)
	}
	rawCaps, ok := meta[mcp.MetaClientCapabilities]
	if !ok {
		return nil, token, invalidParams("_meta[%q] is missing: every 2026-07-28 request declares its capabilities ({} for none)", mcp.MetaClientCapabilities)
	}
	if err := json.Unmarshal(rawCaps, &env.caps); err != nil || !isObject(rawCaps) {
		return nil, token, invalidParams("_meta[%q] must be an object", mcp.MetaClientCapabilities)
	}
	if raw, ok := meta[mcp.MetaClientInfo]; ok {
		var info mcp.Implementation
		if json.Unmarshal(raw, &info) == nil {
			env.info = &info
		}
	}
	if raw, ok := meta[mcp.MetaLogLevel]; ok {
		var level string
		if json.Unmarshal(raw, &level) != nil {
			return nil, token, invalidParams("_meta[%q] must be a string", mcp.MetaLogLevel)
		}
		if _, err := mcp.ParseLogLevel(level); err != nil {
			return nil, token, invalidParams("_meta[%q]: %v", mcp.MetaLogLevel, err)
		}
		env.logLevel = level
	}
	return env, token, nil
}

var protocolKey = []byte(mcp.MetaProtocolVersion)

// hasVersion reports cheaply whether params may carry a modern envelope.
func hasVersion(params json.RawMessage) bool { return bytes.Contains(params, protocolKey) }

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

// withInfo is meta (a result's _meta, nil for none) with the gateway's
// serverInfo, which identifies the server a modern client talks to.
func (g *Gateway) withInfo(meta json.RawMessage) json.RawMessage {
	if !mcp.HasMeta(meta) {
		return g.resultMeta()
	}
	info, _ := json.Marshal(g.implementationIn(g.catalog()))
	return mcp.SetMeta(meta, mcp.MetaServerInfo, info)
}

// resultMeta is the _meta of a modern result that has none of its own:
// the serverInfo of whoever the clients talk to.
func (g *Gateway) resultMeta() json.RawMessage {
	if own := g.catalog().own; own != nil {
		return own.infoMeta
	}
	return g.infoMeta
}

// implementation is the gateway's serverInfo.
func (g *Gateway) implementation() mcp.Implementation {
	return mcp.Implementation{Name: "mcpdeck-gateway", Title: "mcpdeck gateway", Version: g.opts.Version}
}

// implementationIn is the serverInfo clients are given with cat: the
// served server's own when the gateway is transparent, else the gateway's.
func (g *Gateway) implementationIn(cat *catalog) mcp.Implementation {
	if cat.own != nil {
		return cat.own.info
	}
	return g.implementation()
}

// modernEnvelope are the members a 2026-07-28 result carries that the
// session revisions do not have.
var modernEnvelope = []string{"resultType", "ttlMs", "cacheScope"}

// legacyResult is a result for a session-era client: a modern server's
// raw result (prompts/get, resources/read, completion/complete) loses the
// 2026-07-28 envelope; any other result passes as it is.
func legacyResult(v any) any {
	raw, ok := v.(json.RawMessage)
	if !ok || !bytes.Contains(raw, []byte(`"resultType"`)) && !bytes.Contains(raw, []byte(`"ttlMs"`)) && !bytes.Contains(raw, []byte(`"cacheScope"`)) {
		return v
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return v
	}
	for _, k := range modernEnvelope {
		delete(fields, k)
	}
	out, err := json.Marshal(fields)
	if err != nil {
		return v
	}
	return json.RawMessage(out)
}

// modernResult adds what every modern result carries to a result object:
// resultType complete and _meta with serverInfo; cacheable results
// (lists, resources/read, server/discover) also get ttlMs 0 (the offer is
// live) and cacheScope private (it depends on the client's policy). The
// results the gateway builds get the fields directly; a server's raw
// result is decoded and re-encoded.
func (g *Gateway) modernResult(v any, cacheable bool) (any, error) {
	switch r := v.(type) {
	case callResult:
		r.ResultType, r.Meta = mcp.Complete, g.withInfo(r.Meta)
		return r, nil
	case mcp.CompleteResult:
		r.ResultType, r.Meta = mcp.Complete, g.withInfo(r.Meta)
		return r, nil
	case inputRequired:
		r.Meta = g.resultMeta()
		return r, nil
	case map[string]any:
		if _, ok := r["resultType"]; !ok {
			r["resultType"] = mcp.Complete
		}
		if _, ok := r["_meta"]; !ok {
			r["_meta"] = g.resultMeta()
		}
		if cacheable {
			r["ttlMs"], r["cacheScope"] = 0, "private"
		}
		return r, nil
	}
	raw, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(v); err != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "encoding the result: %v", err)
		}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "the result is not an object: %v", err)
	}
	if _, ok := fields["resultType"]; !ok {
		fields["resultType"] = json.RawMessage(`"complete"`)
	}
	fields["_meta"] = g.withInfo(fields["_meta"])
	if cacheable {
		fields["ttlMs"] = json.RawMessage(`0`)
		fields["cacheScope"] = json.RawMessage(`"private"`)
	}
	return fields, nil
}
