package mcp

import "encoding/json"

// The requests a server makes of a client: in the legacy era on the
// connection, in the modern era inside an input_required result (MRTR).

// ElicitRequest is the params of elicitation/create: a form (a flat
// requested schema) or, in URL mode, a page to open.
type ElicitRequest struct {
	Mode            string          `json:"mode,omitempty"` // "form" (default) or "url"
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	URL             string          `json:"url,omitempty"`
	// ElicitationID names a URL-mode elicitation (2025-11-25 only).
	ElicitationID string          `json:"elicitationId,omitempty"`
	Meta          json.RawMessage `json:"_meta,omitempty"`
}

// The actions an elicitation is answered with.
const (
	ElicitActionAccept  = "accept"
	ElicitActionDecline = "decline"
	ElicitActionCancel  = "cancel"
)

// ElicitResult is the answer to elicitation/create.
type ElicitResult struct {
	Action  string          `json:"action"`
	Content map[string]any  `json:"content,omitempty"`
	Meta    json.RawMessage `json:"_meta,omitempty"`
}

// ElicitAccept is the response accepting an elicitation with content (a
// form's values; nil for URL mode, where accept means consent only).
func ElicitAccept(content map[string]any) json.RawMessage {
	b, _ := json.Marshal(ElicitResult{Action: ElicitActionAccept, Content: content})
	return b
}

// ElicitDecline is the response declining an elicitation.
func ElicitDecline() json.RawMessage { return json.RawMessage(`{"action":"decline"}`) }

// ElicitCancel is the response dismissing an elicitation.
func ElicitCancel() json.RawMessage { return json.RawMessage(`{"action":"cancel"}`) }

// Root is one entry of a roots/list answer.
type Root struct {
	URI  string          `json:"uri"`
	Name string          `json:"name,omitempty"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// ListRootsResult is the answer to roots/list.
type ListRootsResult struct {
	Roots []Root          `json:"roots"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// RootsResult is the response to a roots/list request.
func RootsResult(roots []Root) json.RawMessage {
	if roots == nil {
		roots = []Root{}
	}
	b, _ := json.Marshal(ListRootsResult{Roots: roots})
	return b
}

// CreateMessageParams are the params of sampling/createMessage. mcpdeck
// does not sample (it declares no sampling capability); the type names
// what a server asks, for display and for refusing it clearly.
type CreateMessageParams struct {
	Messages         json.RawMessage `json:"messages"`
	SystemPrompt     string          `json:"systemPrompt,omitempty"`
	MaxTokens        int             `json:"maxTokens"`
	ModelPreferences json.RawMessage `json:"modelPreferences,omitempty"`
	IncludeContext   string          `json:"includeContext,omitempty"`
	Temperature      *float64        `json:"temperature,omitempty"`
	StopSequences    []string        `json:"stopSequences,omitempty"`
	Metadata         json.RawMessage `json:"metadata,omitempty"`
	Tools            json.RawMessage `json:"tools,omitempty"`
	ToolChoice       json.RawMessage `json:"toolChoice,omitempty"`
	Meta             json.RawMessage `json:"_meta,omitempty"`
}

// CreateMessageResult is the answer to sampling/createMessage.
type CreateMessageResult struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Model      string          `json:"model"`
	StopReason string          `json:"stopReason,omitempty"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}
