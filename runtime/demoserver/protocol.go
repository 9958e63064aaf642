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

// The demo server speaks the vocabulary's types (runtime/mcp) where they
// fit; the few below are its own.
type (
	content        = mcp.Content
	callToolResult = mcp.CallToolResult
)

func textResult(text string) callToolResult {
	return callToolResult{Content: []content{{Type: mcp.ContentText, Text: text}}}
}

func errorResult(text string) callToolResult {
	r := textResult(text)
	r.IsError = true
	return r
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
