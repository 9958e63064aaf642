package mcp

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// ReservedMetaKey reports whether a _meta key belongs to the protocol:
// progressToken, the trace context keys, and every key whose prefix has
// modelcontextprotocol or mcp as its second label (io.modelcontextprotocol/,
// dev.mcp/…; com.example.mcp/ is not reserved). A proxy sets these for its
// own hop; the others belong to whoever sent them and are passed on.
func ReservedMetaKey(key string) bool {
	if key == MetaProgressToken || slices.Contains(TraceKeys, key) {
		return true
	}
	prefix, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	labels := strings.Split(prefix, ".")
	return len(labels) >= 2 && (labels[1] == "modelcontextprotocol" || labels[1] == "mcp")
}

// ForeignMeta returns the members of a _meta object that are not
// reserved, nil when there are none (or raw is not an object): what a
// client put in a request's _meta for the server, which a proxy passes on
// while it writes its own hop's envelope.
func ForeignMeta(raw json.RawMessage) map[string]json.RawMessage {
	if !isObject(raw) {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	for k := range m {
		if ReservedMetaKey(k) {
			delete(m, k)
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// SetMeta returns the _meta object raw with key set to value (raw nil or
// not an object starts a new one); every other member stays as it was.
func SetMeta(raw json.RawMessage, key string, value json.RawMessage) json.RawMessage {
	m := map[string]json.RawMessage{}
	if isObject(raw) {
		_ = json.Unmarshal(raw, &m)
	}
	m[key] = value
	out, err := Marshal(m)
	if err != nil {
		return raw
	}
	return out
}

// paramsHead is what every request's and notification's params may
// carry, whatever the method.
type paramsHead struct {
	Meta json.RawMessage `json:"_meta"`
}

// MetaOf returns the _meta member of params (a request's, a
// notification's or a result), nil when there is none.
func MetaOf(params json.RawMessage) json.RawMessage {
	if !bytes.Contains(params, []byte(`"_meta"`)) {
		return nil // the common case, without a decode
	}
	var p paramsHead
	if json.Unmarshal(params, &p) != nil || isNull(p.Meta) {
		return nil
	}
	return p.Meta
}

// MetaValue returns the member key of a _meta object, nil when absent.
func MetaValue(raw json.RawMessage, key string) json.RawMessage {
	if !isObject(raw) || !bytes.Contains(raw, []byte(key)) {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || isNull(m[key]) {
		return nil
	}
	return m[key]
}

// HasMeta reports whether raw is a _meta object with at least one member.
func HasMeta(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return isObject(t) && !bytes.Equal(bytes.Join(bytes.Fields(t), nil), []byte("{}"))
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }
