package gateway

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// frame is a JSON-RPC message as the HTTP transport sorts it, before the
// connection decodes it.
type frame struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func (f *frame) hasID() bool { return len(f.ID) > 0 && !bytes.Equal(f.ID, []byte("null")) }

// isRequest, isNotification and isResponse classify a decoded frame.
func (f *frame) isRequest() bool      { return f.Method != nil && f.hasID() }
func (f *frame) isNotification() bool { return f.Method != nil && !f.hasID() }
func (f *frame) isResponse() bool     { return f.Method == nil && f.hasID() }

func (f *frame) method() string {
	if f.Method == nil {
		return ""
	}
	return *f.Method
}

// idKey renders a raw JSON id the way jsonrpc.Request.ID does (a number
// as written, a string quoted), so ids from both sides compare.
func idKey(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return strconv.Quote(s)
		}
	}
	return string(raw)
}

// responseID returns the id of a response frame.
func responseID(b []byte) (string, bool) {
	var f frame
	if json.Unmarshal(b, &f) != nil || !f.isResponse() {
		return "", false
	}
	return idKey(f.ID), true
}
