package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The reserved _meta keys of the 2026-07-28 revision.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
	MetaProgressToken      = "progressToken"
)

// TraceKeys are the OpenTelemetry keys a request's _meta may carry
// (W3C trace context and baggage); they pass through untouched.
var TraceKeys = []string{"traceparent", "tracestate", "baggage"}

// ExtensionTasks is the tasks extension's identifier, declared under
// clientCapabilities.extensions.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// Empty is a capability object with no settings: it marshals as {}.
type Empty struct{}

// ElicitationCapability declares elicitation; both modes nil marshals as
// {}, which servers read as form mode.
type ElicitationCapability struct {
	Form *Empty `json:"form,omitempty"`
	URL  *Empty `json:"url,omitempty"`
}

// SamplingCapability declares sampling.
type SamplingCapability struct {
	Context *Empty `json:"context,omitempty"`
	Tools   *Empty `json:"tools,omitempty"`
}

// RootsCapability declares roots; listChanged (legacy only: the modern
// revision has no roots/list_changed) promises the notification.
type RootsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ClientCapabilities are what a client declares it can do: in initialize
// (legacy) or in every request's _meta (modern). The zero value marshals
// as {}: no optional capability.
type ClientCapabilities struct {
	Roots       *RootsCapability       `json:"roots,omitempty"`
	Sampling    *SamplingCapability    `json:"sampling,omitempty"`
	Elicitation *ElicitationCapability `json:"elicitation,omitempty"`
	// LegacyTasks is the 2025-11-25 tasks capability, kept as sent.
	LegacyTasks  json.RawMessage            `json:"tasks,omitempty"`
	Extensions   map[string]json.RawMessage `json:"extensions,omitempty"`
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
}

// Has reports whether the capabilities allow an input request of method
// (elicitation/create, sampling/createMessage, roots/list): a server must
// not send one the request did not declare.
func (c ClientCapabilities) Has(method string) bool {
	switch method {
	case "elicitation/create":
		return c.Elicitation != nil
	case "sampling/createMessage":
		return c.Sampling != nil
	case "roots/list":
		return c.Roots != nil
	}
	return false
}

// Elicits reports whether an elicitation in mode ("form", "" for form,
// or "url") may be sent: an elicitation capability without modes ({})
// declares form mode alone.
func (c ClientCapabilities) Elicits(mode string) bool {
	e := c.Elicitation
	switch {
	case e == nil:
		return false
	case mode == "url":
		return e.URL != nil
	}
	return e.Form != nil || e.URL == nil
}

// Tasks reports whether the tasks extension is declared.
func (c ClientCapabilities) Tasks() bool {
	_, ok := c.Extensions[ExtensionTasks]
	return ok
}

// Envelope is what every modern request carries in params._meta: the
// version, the client's capabilities for this request, its identity and,
// optionally, a log level, a progress token and trace context.
type Envelope struct {
	Version      string
	Capabilities ClientCapabilities
	ClientInfo   *Implementation
	LogLevel     LogLevel // "" asks for no notifications/message
	// ProgressToken, when not nil, asks for notifications/progress; a
	// string or an integer.
	ProgressToken any
	// Trace holds traceparent, tracestate and baggage to pass through;
	// other keys are ignored.
	Trace map[string]string
}

// Meta returns the _meta object for e, merged over extra (keys a caller
// already put in _meta, such as an extension's): the envelope's reserved
// keys win, every other key of extra stays.
func (e Envelope) Meta(extra map[string]any) map[string]any {
	m := make(map[string]any, len(extra)+6)
	for k, v := range extra {
		m[k] = v
	}
	m[MetaProtocolVersion] = e.Version
	m[MetaClientCapabilities] = e.Capabilities
	if e.ClientInfo != nil {
		m[MetaClientInfo] = e.ClientInfo
	}
	if e.LogLevel != "" {
		m[MetaLogLevel] = e.LogLevel
	}
	if e.ProgressToken != nil {
		m[MetaProgressToken] = e.ProgressToken
	}
	for _, k := range TraceKeys {
		if v, ok := e.Trace[k]; ok && v != "" {
			m[k] = v
		}
	}
	return m
}

// Apply puts the envelope into params, a request's params object as a
// map, and returns it: params is changed in place (nil starts a new one).
// A _meta already in params (a map) keeps its other keys. Use Apply on
// the hot path; Params handles any params value.
func (e Envelope) Apply(params map[string]any) map[string]any {
	if params == nil {
		params = make(map[string]any, 1)
	}
	extra, _ := params["_meta"].(map[string]any)
	params["_meta"] = e.Meta(extra)
	return params
}

// Params returns params (nil, a map, a struct, or raw JSON of an object)
// with the envelope in its _meta, as raw JSON ready to send. Keys already
// in params._meta other than the reserved ones are kept.
func (e Envelope) Params(params any) (json.RawMessage, error) {
	if m, ok := params.(map[string]any); ok {
		return json.Marshal(e.Apply(m))
	}
	var raw []byte
	switch p := params.(type) {
	case nil:
	case json.RawMessage:
		raw = p
	case []byte:
		raw = p
	default:
		var err error
		if raw, err = json.Marshal(p); err != nil {
			return nil, fmt.Errorf("encoding request params: %w", err)
		}
	}
	fields := map[string]json.RawMessage{}
	if t := bytes.TrimSpace(raw); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		if err := json.Unmarshal(t, &fields); err != nil {
			return nil, fmt.Errorf("encoding request params: params must be a JSON object: %w", err)
		}
	}
	var extra map[string]any
	if m, ok := fields["_meta"]; ok {
		if err := json.Unmarshal(m, &extra); err != nil {
			return nil, fmt.Errorf("encoding request params: _meta must be a JSON object: %w", err)
		}
	}
	meta, err := json.Marshal(e.Meta(extra))
	if err != nil {
		return nil, fmt.Errorf("encoding request _meta: %w", err)
	}
	fields["_meta"] = meta
	return json.Marshal(fields)
}

// Encoded is an envelope marshalled once, for the hot path: every request
// of a connection carries the same version, capabilities and identity, so
// re-encoding them per call would be waste. Build it with Encode when the
// envelope changes (a new connection, a new log level).
type Encoded struct {
	inner []byte // the members of the _meta object, without braces
}

// Encode marshals the envelope's fixed part. ProgressToken and Trace are
// per request: pass them to Encoded.Apply instead.
func (e Envelope) Encode() (Encoded, error) {
	e.ProgressToken, e.Trace = nil, nil
	b, err := json.Marshal(e.Meta(nil))
	if err != nil {
		return Encoded{}, fmt.Errorf("encoding the request envelope: %w", err)
	}
	return Encoded{inner: b[1 : len(b)-1]}, nil
}

// Apply sets params["_meta"] (params nil starts a new map) to the encoded
// envelope plus progressToken when not nil, and returns params. A _meta
// map already in params keeps its other keys, at the cost of a merge.
func (e Encoded) Apply(params map[string]any, progressToken any) map[string]any {
	if params == nil {
		params = make(map[string]any, 1)
	}
	if extra, ok := params["_meta"].(map[string]any); ok && len(extra) > 0 {
		var meta map[string]any
		if json.Unmarshal(e.JSON(nil), &meta) == nil {
			for k, v := range extra {
				if _, reserved := meta[k]; !reserved {
					meta[k] = v
				}
			}
			if progressToken != nil {
				meta[MetaProgressToken] = progressToken
			}
			params["_meta"] = meta
			return params
		}
	}
	params["_meta"] = json.RawMessage(e.JSON(progressToken))
	return params
}

// JSON returns the _meta object with progressToken when not nil.
func (e Encoded) JSON(progressToken any) []byte {
	b := make([]byte, 0, len(e.inner)+40)
	b = append(b, '{')
	if progressToken != nil {
		if tok, err := json.Marshal(progressToken); err == nil {
			b = append(b, `"progressToken":`...)
			b = append(b, tok...)
			b = append(b, ',')
		}
	}
	b = append(b, e.inner...)
	return append(b, '}')
}

// Marshal returns params as a JSON object with the encoded envelope (plus
// progressToken when not nil) as its _meta, ready to send: params is
// marshalled once and the envelope spliced in as it was encoded, with no
// second pass over it (json.Marshal would compact a json.RawMessage _meta
// again, on every request). A _meta already in params keeps its other
// keys, at the cost of a merge; params is not changed.
func (e Encoded) Marshal(params map[string]any, progressToken any) (json.RawMessage, error) {
	if _, ok := params["_meta"]; ok {
		cp := make(map[string]any, len(params))
		for k, v := range params {
			cp[k] = v
		}
		return json.Marshal(e.Apply(cp, progressToken))
	}
	var body []byte
	if len(params) > 0 {
		var err error
		if body, err = json.Marshal(params); err != nil {
			return nil, err
		}
	}
	meta := e.JSON(progressToken)
	out := make([]byte, 0, len(body)+len(meta)+10)
	out = append(out, `{"_meta":`...)
	out = append(out, meta...)
	if len(body) > 2 { // more than {}
		out = append(out, ',')
		out = append(out, body[1:]...)
		return out, nil
	}
	return append(out, '}'), nil
}
