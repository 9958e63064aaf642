package mcphttp

import (
	"bytes"
	"encoding/json"
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

// classify decodes just the envelope of a frame. A frame that is not a JSON
// object (a batch, garbage) is treated as a notification: it is POSTed and
// must be acknowledged, which is the most the stream can do with it.
func classify(frame []byte) message {
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(frame, &env) != nil {
		return message{}
	}
	return message{id: env.ID, method: env.Method}
}

// cancelledID returns the request id a notifications/cancelled frame names.
func cancelledID(frame []byte) string {
	var n struct {
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(frame, &n) != nil {
		return ""
	}
	return idKey(n.Params.RequestID)
}

// negotiatedVersion returns result.protocolVersion of an initialize
// response, or "" if the frame carries none.
func negotiatedVersion(frame []byte) string {
	var r struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(frame, &r) != nil {
		return ""
	}
	return r.Result.ProtocolVersion
}

// errorFrame builds the JSON-RPC error response the stream synthesizes when
// a request failed in transit, so that the request, and only it, fails.
func errorFrame(id json.RawMessage, err error) []byte {
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{CodeTransportError, err.Error()}})
	return b
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
