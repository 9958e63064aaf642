package demoserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/sourcegraph/jsonrpc2"

	"mcpdeck/runtime/mcp"
)

// LatestProtocolVersion is the MCP revision the demo server prefers and
// answers with when a client asks for one it does not know. The demo
// server speaks the legacy (initialize) revisions: mcp's one list of them.
const LatestProtocolVersion = mcp.LatestLegacy

// supportedVersions lists every revision the demo server can speak, newest first.
var supportedVersions = mcp.LegacyVersions()

// SupportedProtocolVersions returns the MCP revisions the demo server answers
// with when a client requests them, newest first.
func SupportedProtocolVersions() []string { return slices.Clone(supportedVersions) }

// negotiate picks the revision to answer initialize with: the requested one
// when supported, else the latest, which the client may then refuse.
func negotiate(requested string) string {
	if slices.Contains(supportedVersions, requested) {
		return requested
	}
	return LatestProtocolVersion
}

// codeResourceNotFound is MCP's error code for an unknown resource URI.
const codeResourceNotFound = -32002

type implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

type initializeParams struct {
	ProtocolVersion string         `json:"protocolVersion"`
	ClientInfo      implementation `json:"clientInfo"`
}

type listChangedCap struct {
	ListChanged bool `json:"listChanged"`
}

type resourcesCap struct {
	Subscribe   bool `json:"subscribe"`
	ListChanged bool `json:"listChanged"`
}

type serverCapabilities struct {
	Tools     listChangedCap `json:"tools"`
	Prompts   listChangedCap `json:"prompts"`
	Resources resourcesCap   `json:"resources"`
	Logging   struct{}       `json:"logging"`
	// Completions is declared: the greet prompt and the greeting template
	// complete their name argument.
	Completions *struct{} `json:"completions,omitempty"`
}

type initializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    serverCapabilities `json:"capabilities"`
	ServerInfo      implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
}

type requestMeta struct {
	// ProgressToken is kept raw: it may be a string or a number and must be
	// echoed back exactly.
	ProgressToken json.RawMessage `json:"progressToken,omitempty"`
}

type callToolParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Meta      requestMeta     `json:"_meta"`
}

type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type callToolResult struct {
	Content           []content `json:"content"`
	StructuredContent any       `json:"structuredContent,omitempty"`
	IsError           bool      `json:"isError,omitempty"`
}

func textResult(text string) callToolResult {
	return callToolResult{Content: []content{{Type: "text", Text: text}}}
}

func errorResult(text string) callToolResult {
	r := textResult(text)
	r.IsError = true
	return r
}

type progressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         float64         `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
}

type cancelledParams struct {
	RequestID jsonrpc2.ID `json:"requestId"`
	Reason    string      `json:"reason,omitempty"`
}

type logMessageParams struct {
	Level  string `json:"level"`
	Logger string `json:"logger,omitempty"`
	Data   any    `json:"data"`
}

type setLevelParams struct {
	Level string `json:"level"`
}

type uriParams struct {
	URI string `json:"uri"`
}

// decodeParams fills v from a request's params; absent or null params leave
// v at its zero value, so methods with optional params accept both.
func decodeParams(raw *json.RawMessage, v any) *jsonrpc2.Error {
	if raw == nil || len(bytes.TrimSpace(*raw)) == 0 || string(bytes.TrimSpace(*raw)) == "null" {
		return nil
	}
	if err := json.Unmarshal(*raw, v); err != nil {
		return invalidParams("params must be a JSON object matching the method's schema: %v", err)
	}
	return nil
}

func invalidParams(format string, args ...any) *jsonrpc2.Error {
	return &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}
