package demoserver

import (
	"encoding/json"
	"fmt"
	"slices"

	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	mcpwire "mcpdeck/runtime/mcp"
)

// LatestProtocolVersion is the MCP revision the demo server prefers and
// answers with when a client asks for one it does not know. The demo
// server speaks the legacy (initialize) revisions: mcp's one list of them.
const LatestProtocolVersion = mcpwire.LatestLegacy

// supportedVersions lists every revision the demo server can speak, newest
// first. It narrows go-sdk's list (which includes 2026-07-28): a request
// enveloped for the stateless revision is refused with -32022 naming these,
// which tells a client to use initialize.
var supportedVersions = mcpwire.LegacyVersions()

// SupportedProtocolVersions returns the MCP revisions the demo server answers
// with when a client requests them, newest first.
func SupportedProtocolVersions() []string { return slices.Clone(supportedVersions) }

func invalidParams(format string, args ...any) *sdkjsonrpc.Error {
	return &sdkjsonrpc.Error{Code: sdkjsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// codeResourceNotFound is the session revisions' error code for an unknown
// resource URI. (go-sdk now answers -32602, the 2026-07-28 code; the demo
// server speaks the session revisions.)
const codeResourceNotFound = -32002

// resourceNotFound is the error for an unknown resource URI, with the URI
// in data.
func resourceNotFound(uri string) *sdkjsonrpc.Error {
	data, _ := json.Marshal(map[string]string{"uri": uri})
	return &sdkjsonrpc.Error{
		Code:    codeResourceNotFound,
		Message: fmt.Sprintf("resource %q not found: the demo server has %s and %s; call resources/list", uri, StatusURI, GreetingTemplate),
		Data:    data,
	}
}

// text is a result of one text block.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// toolError is a tool's failure: a result with isError, not a protocol
// error, so a model could correct itself and retry.
func toolError(s string) *mcp.CallToolResult {
	r := text(s)
	r.IsError = true
	return r
}
