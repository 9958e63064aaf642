package gateway

import (
	"encoding/json"
	"errors"

	"mcpdeck/jsonrpc"
)

// frame is a JSON-RPC message as the HTTP transport sorts it, before the
// connection decodes it: jsonrpc's Envelope, read the one way every frame
// is read (jsonrpc.ReadEnvelope), with a method that must be a string.
type frame struct{ jsonrpc.Envelope }

// UnmarshalJSON reads the envelope.
func (f *frame) UnmarshalJSON(b []byte) error {
	env, err := jsonrpc.ReadEnvelope(b)
	if err != nil {
		return err
	}
	if _, ok := env.MethodName(); env.Method != nil && !ok {
		return errors.New("the method member must be a string")
	}
	f.Envelope = env
	return nil
}

// isRequest, isNotification and isResponse classify a decoded frame.
func (f *frame) isRequest() bool      { return f.Method != nil && f.HasID() }
func (f *frame) isNotification() bool { return f.Method != nil && !f.HasID() }
func (f *frame) isResponse() bool     { return f.Method == nil && f.HasID() }

func (f *frame) method() string {
	m, _ := f.MethodName()
	return m
}

// idKey renders a raw JSON id the way jsonrpc.Request.ID does (a number
// as written, a string quoted), so ids from both sides compare.
func idKey(raw json.RawMessage) string { return jsonrpc.Envelope{ID: raw}.IDKey() }

// responseID returns the id of a response frame.
func responseID(b []byte) (string, bool) {
	var f frame
	if json.Unmarshal(b, &f) != nil || !f.isResponse() {
		return "", false
	}
	return f.IDKey(), true
}
