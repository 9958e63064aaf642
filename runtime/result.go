package runtime

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
)

// Result is the outcome of a tool call, shared by server tools and
// built-in tools.
type Result struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	// Meta is the result's _meta as the server sent it (MCP Apps put
	// viewUUID there; a modern server its serverInfo).
	Meta json.RawMessage `json:"_meta,omitempty"`
	// Truncated is set when text was cut to the size bound; OriginalSize
	// is the size of all text before the cut.
	Truncated    bool  `json:"truncated,omitempty"`
	OriginalSize int64 `json:"originalSize,omitempty"`
	// StructuredError reports structuredContent that does not match the
	// tool's outputSchema; it is information, not a failure.
	StructuredError string `json:"structuredError,omitempty"`

	RequestID uint64        `json:"requestId"`
	Duration  time.Duration `json:"duration"`
	// Rounds is how many round trips the call took: more than one when a
	// modern server asked for input (MRTR) and the call was retried.
	Rounds int `json:"rounds,omitempty"`
	// TaskID names the task the server ran the call as, if it did.
	TaskID string `json:"taskId,omitempty"`
	// Extra are the result's top-level members outside the specification
	// (a server's own: "cost", "trace"), as sent and in order, kept as
	// _meta is: their bytes, never interpreted. Result's JSON writes them
	// after its own members. One named as a member of Result (requestId,
	// duration, …) is not kept: that name's meaning here is mcpdeck's.
	Extra []jsonrpc.RawMember `json:"-"`
}

// resultJSON is Result without its methods.
type resultJSON Result

// MarshalJSON writes Result's members, then Extra's.
func (r Result) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(resultJSON(r))
	if err != nil {
		return b, err
	}
	return jsonrpc.AppendMembers(b, r.Extra)
}

// specMember reports whether key is a member of a tools/call result the
// specification gives: Result reads them (resultType is read before:
// mcp.TypeOf). A switch on the bytes, so the common case allocates nothing.
func specMember(key []byte) bool {
	switch string(key) {
	case "content", "structuredContent", "isError", "_meta", "resultType":
		return true
	}
	return false
}

// ownMembers are the members Result's JSON writes itself, read from its
// type on first use rather than at every start.
var ownMembers = sync.OnceValue(func() []string {
	var out []string
	for f := range reflect.TypeFor[resultJSON]().Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "-" {
			out = append(out, name)
		}
	}
	return out
})

// extraMembers returns the members of the result raw that are not the
// specification's, their bytes copied: one pass over raw that decodes
// nothing (jsonrpc.EachMember), and allocates nothing for a result with
// none, as nearly all are.
func extraMembers(raw json.RawMessage) []jsonrpc.RawMember {
	var out []jsonrpc.RawMember
	keep := func(k, v []byte) {
		if !specMember(k) && !slices.Contains(ownMembers(), string(k)) {
			out = append(out, jsonrpc.RawMember{Key: string(k), Value: bytes.Clone(v)})
		}
	}
	if jsonrpc.EachMember(raw, keep) {
		return out
	}
	out = nil // the scan could not tell (an escaped key): read it strictly
	for _, m := range jsonrpc.Members(raw) {
		keep([]byte(m.Key), m.Value)
	}
	return out
}

// Content is one content block: text, image, audio, resource_link or
// resource, with its annotations and _meta as the server sent them.
type Content = mcp.Content

// EmbeddedContent is the resource of a "resource" content block.
type EmbeddedContent = mcp.ResourceContents

// ResultOf is the Result of a server's tools/call result as it came, before
// the runtime's own fields (the size bound, the request id) are set.
func ResultOf(r mcp.CallToolResult) Result {
	return Result{Content: r.Content, StructuredContent: r.StructuredContent, IsError: r.IsError, Meta: r.Meta}
}

// CallRequest asks for one tool call.
type CallRequest struct {
	Server    string
	Tool      string          // the server's tool name (or the normalized name)
	Arguments json.RawMessage // a JSON object; nil means {}
	// Timeout overrides the server's call timeout; 0 keeps it.
	Timeout time.Duration
	// AtMost, when set, bounds the call's timeout, the server's or
	// Timeout: a gateway client's callTimeout shortens a call, never
	// lengthens it past what the server's configuration allows.
	AtMost time.Duration
	// NoValidate sends arguments that fail the input schema anyway.
	NoValidate bool
	// OnStarted, if set, learns the request id once the call is sent, and
	// the new id of every retry of a multi round-trip call.
	OnStarted func(id uint64)
	// Task calls a tool whose execution.taskSupport is "optional" as a
	// task, on a 2025-11-25 server that supports task-augmented calls
	// ("required" tools always are).
	Task bool
}
