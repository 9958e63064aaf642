package mcp

import "encoding/json"

// The tool methods and notification.
const (
	MethodListTools          = "tools/list"
	MethodCallTool           = "tools/call"
	NotificationToolsChanged = "notifications/tools/list_changed"
)

// Tool is a tool as tools/list describes it. The schemas, the annotations
// (hints, untrusted) and _meta are kept raw: they pass through mcpdeck
// byte for byte, whatever keys they hold (MCP Apps put ui.resourceUri
// and visibility in _meta).
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	Execution    *ToolExecution  `json:"execution,omitempty"`
	Icons        json.RawMessage `json:"icons,omitempty"`
	Meta         json.RawMessage `json:"_meta,omitempty"`
}

// ToolExecution is a tool's execution settings (2025-11-25).
type ToolExecution struct {
	// TaskSupport is forbidden (the default), optional or required.
	TaskSupport string `json:"taskSupport,omitempty"`
}

// TaskSupport returns execution.taskSupport, "" when absent.
func (t Tool) TaskSupport() string {
	if t.Execution == nil {
		return ""
	}
	return t.Execution.TaskSupport
}

// ListToolsResult is a tools/list page.
type ListToolsResult struct {
	Tools []Tool `json:"tools"`
	Page
}

// CallToolParams are the params of tools/call: the name, the arguments
// (a JSON object, kept raw), a legacy task augmentation, a modern retry's
// inputResponses and requestState, and _meta.
type CallToolParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Retry
	// Task asks a 2025-11-25 server to run the call as a task.
	Task json.RawMessage `json:"task,omitempty"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// CallToolResult is a complete tools/call result. _meta is the server's
// (MCP Apps put viewUUID there); each content block keeps its own.
type CallToolResult struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	ResultType        ResultType      `json:"resultType,omitempty"`
	Meta              json.RawMessage `json:"_meta,omitempty"`
}
