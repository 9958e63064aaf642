package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Envelope is a JSON-RPC 2.0 message's top-level members with their values
// kept raw: the one declaration of the frame envelope. The connection's
// intake reads each frame into it once (in one pass, without decoding a
// value) and sorts it from there; the HTTP transports, the gateway and the
// recordings read frames through it too. A member absent from the frame
// is nil.
type Envelope struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method json.RawMessage `json:"method,omitempty"` // the raw string token
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
	// Deep is set when a value nests deeper than encoding/json decodes:
	// such a value cannot be handed on to be decoded.
	Deep bool `json:"-"`
}

// ReadEnvelope reads a frame's envelope: in one pass when it can, else by
// a strict decode (escaped keys, duplicates). The error says why a frame
// is not a JSON-RPC object at all.
func ReadEnvelope(frame []byte) (Envelope, error) {
	if env, ok := scanMembers(frame); ok {
		return env, nil
	}
	var env Envelope
	if err := json.Unmarshal(frame, &env); err != nil {
		return Envelope{}, fmt.Errorf("not a JSON-RPC message: %w", err)
	}
	return env, nil
}

// HasID reports an id member that is not null.
func (e Envelope) HasID() bool { return len(e.ID) > 0 && !isNull(e.ID) }

// NullID reports an id member that is JSON null, which JSON-RPC reserves
// for errors about a request whose id could not be read.
func (e Envelope) NullID() bool { return isNull(bytes.TrimSpace(e.ID)) }

// hasError reports an error member that is not null.
func (e Envelope) hasError() bool { return e.Error != nil && !isNull(e.Error) }

// IsRequest reports a request: a method and an id.
func (e Envelope) IsRequest() bool {
	return e.Method != nil && e.ID != nil && e.Result == nil && e.Error == nil
}

// IsNotification reports a notification: a method and no id.
func (e Envelope) IsNotification() bool {
	return e.Method != nil && e.ID == nil && e.Result == nil && e.Error == nil
}

// IsResponse reports a response: an id and exactly one of result and
// error, no method.
func (e Envelope) IsResponse() bool {
	return e.Method == nil && e.ID != nil && (e.Result != nil) != e.hasError()
}

// MethodName returns the method as a string; ok is false when there is
// none or it is not a JSON string.
func (e Envelope) MethodName() (string, bool) {
	m := e.Method
	if len(m) < 2 || m[0] != '"' || m[len(m)-1] != '"' {
		return "", false
	}
	if bytes.IndexByte(m, '\\') < 0 {
		return string(m[1 : len(m)-1]), true
	}
	var s string
	if json.Unmarshal(m, &s) != nil {
		return "", false
	}
	return s, true
}

// IDKey renders the id the way Request.ID does (a number as written, a
// string quoted), so ids read from frames and from the library compare.
func (e Envelope) IDKey() string {
	raw := bytes.TrimSpace(e.ID)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return fmt.Sprintf("%q", s)
		}
	}
	return string(raw)
}

// ErrorObject is a response's error member as the wire carries it.
type ErrorObject struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Err is the error as an *Error (nil data stays nil).
func (o *ErrorObject) Err() *Error {
	e := &Error{Code: o.Code, Message: o.Message}
	if len(o.Data) > 0 && !isNull(o.Data) {
		e.Data = o.Data
	}
	return e
}

// decodeError reads an error member; ok is false when it is not an object
// with an integer code.
func decodeError(raw json.RawMessage) (*Error, bool) {
	var e struct {
		ErrorObject
		Code *int64 `json:"code"`
	}
	if json.Unmarshal(raw, &e) != nil || e.Code == nil {
		return nil, false
	}
	e.ErrorObject.Code = *e.Code
	return e.ErrorObject.Err(), true
}

// Response is a response frame with its result decoded as R.
type Response[R any] struct {
	ID     json.RawMessage `json:"id"`
	Result R               `json:"result"`
	Error  *ErrorObject    `json:"error,omitempty"`
}

// CancelledParams are the params of notifications/cancelled, which the
// connection handles itself in both directions.
type CancelledParams struct {
	RequestID json.RawMessage `json:"requestId,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}
