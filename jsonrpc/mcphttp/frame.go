package mcphttp

import (
	"bytes"
	"encoding/json"
	"errors"

	"mcpdeck/jsonrpc"
)

// message is what the stream needs to know about a frame: whether it is a
// request, a notification or a response, and its id and method.
type message struct {
	id     json.RawMessage // nil for a notification
	method string
}

func (m message) isRequest() bool { return m.method != "" && m.id != nil }

// key identifies the message's id for matching a response to its request.
func (m message) key() string { return idKey(m.id) }

func idKey(id json.RawMessage) string { return string(bytes.TrimSpace(id)) }

// messageOf is what the stream needs to know of a message the connection
// writes, taken from its fields: the frame is not read again.
func messageOf(msg jsonrpc.Message) message {
	var m message
	if msg.ID != "" {
		m.id = json.RawMessage(msg.ID)
	}
	if !msg.IsResponse() {
		m.method = msg.Method
	}
	return m
}

// classify reads just the envelope of a frame (jsonrpc.ReadEnvelope, the
// one reader of frames). A frame that is not a JSON object (a batch,
// garbage) is treated as a notification: it is POSTed and must be
// acknowledged, which is the most the stream can do with it.
func classify(frame []byte) message {
	env, err := jsonrpc.ReadEnvelope(frame)
	if err != nil {
		return message{}
	}
	method, ok := env.MethodName()
	if env.Method != nil && !ok {
		return message{} // a method that is not a string: not a message the stream can route
	}
	return message{id: env.ID, method: method}
}

// cancelledID returns the request id a notifications/cancelled frame names.
func cancelledID(frame []byte) string {
	env, err := jsonrpc.ReadEnvelope(frame)
	var p jsonrpc.CancelledParams
	if err != nil || json.Unmarshal(env.Params, &p) != nil {
		return ""
	}
	return idKey(p.RequestID)
}

// negotiatedVersion returns the protocolVersion member of an initialize
// response's result, or "" if the frame carries none. The transport knows
// no MCP types (it sits below the vocabulary in runtime/mcp): it reads the
// one member its header must repeat by name.
func negotiatedVersion(frame []byte) string {
	var r jsonrpc.Response[map[string]json.RawMessage]
	var v string
	if json.Unmarshal(frame, &r) != nil || json.Unmarshal(r.Result["protocolVersion"], &v) != nil {
		return ""
	}
	return v
}

// errorFrame builds the JSON-RPC error response the stream synthesizes when
// a request failed in transit, so that the request, and only it, fails.
func errorFrame(id json.RawMessage, err error) []byte {
	type rpcError struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{CodeTransportError, err.Error(), json.RawMessage(markerOf(err))}})
	return b
}

// markerOf is the data of the error response synthesized for err: an
// answer over the size limit is marked as such, so that it keeps its kind
// (IsTooLarge) once it is only a JSON-RPC error.
func markerOf(err error) string {
	if errors.Is(err, jsonrpc.ErrMessageTooLarge) {
		return tooLargeMarker
	}
	return transportMarker
}

// splitBatch returns the messages of a JSON body: one object, or the
// elements of a batch array (servers of protocol 2025-03-26 may batch).
func splitBatch(body []byte) [][]byte {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '[' {
		return [][]byte{body}
	}
	var parts []json.RawMessage
	if json.Unmarshal(body, &parts) != nil {
		return [][]byte{body} // let the connection report it as invalid
	}
	out := make([][]byte, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out
}
