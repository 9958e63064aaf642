package mcp

import (
	"bytes"
	"encoding/json"
)

// The lifecycle of the legacy era: initialize, then initialized. (The
// modern era has neither: see server/discover in discover.go.)
const (
	MethodInitialize        = "initialize"
	NotificationInitialized = "notifications/initialized"
	MethodPing              = "ping"
)

// Implementation names a client or a server: clientInfo, serverInfo, and
// the modern era's _meta identity. Self-reported: for display only.
//
// Icons (2025-11-25: [{src, mimeType?, sizes?, theme?}]), here and on
// tools, prompts, resources and resource links, are kept raw like _meta:
// mcpdeck shows none of them, and a malformed icon must not fail a whole
// initialize or list.
type Implementation struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Version     string          `json:"version"`
	Description string          `json:"description,omitempty"`
	WebsiteURL  string          `json:"websiteUrl,omitempty"`
	Icons       json.RawMessage `json:"icons,omitempty"`
}

// ListChangedCapability is a capability whose only setting is listChanged.
type ListChangedCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourcesCapability declares resources.
type ResourcesCapability struct {
	Subscribe   bool `json:"subscribe,omitempty"`
	ListChanged bool `json:"listChanged,omitempty"`
}

// TasksCapability is the 2025-11-25 tasks capability of a server: which
// requests may be task-augmented. (The modern era moved tasks to an
// extension: see ServerCapabilities.Tasks.)
type TasksCapability struct {
	List     *Empty `json:"list,omitempty"`
	Cancel   *Empty `json:"cancel,omitempty"`
	Requests *struct {
		Tools *struct {
			Call *Empty `json:"call,omitempty"`
		} `json:"tools,omitempty"`
	} `json:"requests,omitempty"`
}

// ToolCalls reports whether tools/call may be task-augmented.
func (t *TasksCapability) ToolCalls() bool {
	return t != nil && t.Requests != nil && t.Requests.Tools != nil && t.Requests.Tools.Call != nil
}

// ServerCapabilities are what a server offers, in initialize (legacy) or
// server/discover (modern). A decoded value keeps what the server sent in
// Raw and marshals back to exactly that, so capabilities mcpdeck does not
// model are not lost on the way through.
type ServerCapabilities struct {
	Tools       *ListChangedCapability `json:"tools,omitempty"`
	Prompts     *ListChangedCapability `json:"prompts,omitempty"`
	Resources   *ResourcesCapability   `json:"resources,omitempty"`
	Logging     *Empty                 `json:"logging,omitempty"`
	Completions *Empty                 `json:"completions,omitempty"`
	// LegacyTasks is the 2025-11-25 tasks capability.
	LegacyTasks  *TasksCapability           `json:"tasks,omitempty"`
	Extensions   map[string]json.RawMessage `json:"extensions,omitempty"`
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	// Raw is the capabilities object as received; set by decoding.
	Raw json.RawMessage `json:"-"`
}

// serverCapabilities is ServerCapabilities without its methods, for the
// codec below.
type serverCapabilities ServerCapabilities

// UnmarshalJSON decodes the capabilities and keeps the raw value. It is
// lenient, as a client must be: a capability of a shape the schema does
// not give (servers write "tools": true) leaves the typed fields it could
// not read empty instead of failing the whole initialize or discover
// result; Raw still holds what was sent, for check to judge.
func (c *ServerCapabilities) UnmarshalJSON(b []byte) error {
	var v serverCapabilities
	if json.Unmarshal(b, &v) != nil {
		v = serverCapabilities{}
	}
	*c = ServerCapabilities(v)
	c.Raw = nil
	if t := bytes.TrimSpace(b); !bytes.Equal(t, []byte("null")) {
		c.Raw = bytes.Clone(t)
	}
	return nil
}

// MarshalJSON writes Raw when the value was decoded, else the fields.
func (c ServerCapabilities) MarshalJSON() ([]byte, error) {
	if len(c.Raw) > 0 {
		return c.Raw, nil
	}
	return json.Marshal(serverCapabilities(c))
}

// JSON returns the capabilities as the server sent them, or marshalled
// when they were built rather than decoded.
func (c ServerCapabilities) JSON() json.RawMessage {
	if len(c.Raw) > 0 {
		return c.Raw
	}
	b, _ := json.Marshal(serverCapabilities(c))
	return b
}

// InitializeParams are the params of initialize.
type InitializeParams struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ClientCapabilities `json:"capabilities"`
	ClientInfo      Implementation     `json:"clientInfo"`
	Meta            json.RawMessage    `json:"_meta,omitempty"`
}

// InitializeResult is the answer to initialize: the one declaration of it
// every side of mcpdeck (client, gateway, demo server, recordings, check)
// reads and writes.
type InitializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
	Meta            json.RawMessage    `json:"_meta,omitempty"`
}
