package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

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

// CreateMessageParams are the params of sampling/createMessage: what a
// server asks a client's model (or, in mcpdeck, a person) to answer.
// Messages, preferences, tools and toolChoice are kept raw, as the server
// sent them.
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

// SamplingMessage is one message of a sampling request: a role and its
// content, one block or several (tool_use and tool_result blocks among
// them), each kept raw.
type SamplingMessage struct {
	Role    string
	Content []json.RawMessage
}

// samplingMessageWire is a SamplingMessage as the wire carries it.
type samplingMessageWire struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// DecodeMessages reads the messages of a sampling request; a message's
// content may be one block or an array of blocks.
func (p CreateMessageParams) DecodeMessages() ([]SamplingMessage, error) {
	var wire []samplingMessageWire
	if err := json.Unmarshal(p.Messages, &wire); err != nil {
		return nil, fmt.Errorf("sampling/createMessage: messages must be an array of {role, content}: %w", err)
	}
	out := make([]SamplingMessage, 0, len(wire))
	for i, m := range wire {
		blocks, err := ContentBlocks(m.Content)
		if err != nil {
			return nil, fmt.Errorf("sampling/createMessage: messages[%d]: %w", i, err)
		}
		out = append(out, SamplingMessage{Role: m.Role, Content: blocks})
	}
	return out, nil
}

// ContentBlocks reads sampling content, one block or an array of blocks,
// as a list of raw blocks, each an object with a "type".
func ContentBlocks(raw json.RawMessage) ([]json.RawMessage, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil, errors.New("content is missing")
	}
	var blocks []json.RawMessage
	if t[0] == '[' {
		if err := json.Unmarshal(t, &blocks); err != nil {
			return nil, fmt.Errorf("content: %w", err)
		}
	} else {
		blocks = []json.RawMessage{t}
	}
	if len(blocks) == 0 {
		return nil, errors.New("content is an empty array")
	}
	for i, b := range blocks {
		var typed struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(b, &typed) != nil || typed.Type == "" {
			return nil, fmt.Errorf("content block %d is not an object with a \"type\"", i)
		}
	}
	return blocks, nil
}

// CreateMessageResult is the answer to sampling/createMessage.
type CreateMessageResult struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Model      string          `json:"model"`
	StopReason string          `json:"stopReason,omitempty"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// Check reports what makes r an answer a server cannot take: a role
// other than assistant or user, content that is not one block or an array
// of blocks, no model.
func (r CreateMessageResult) Check() error {
	if r.Role != "assistant" && r.Role != "user" {
		return fmt.Errorf("its role is %q; a reply's role is \"assistant\"", r.Role)
	}
	if _, err := ContentBlocks(r.Content); err != nil {
		return fmt.Errorf("its %v; give {\"type\":\"text\",\"text\":\"…\"} or an array of blocks", err)
	}
	if r.Model == "" {
		return errors.New("it names no model; give \"model\", the name of what produced the reply")
	}
	return nil
}

// TextReply is a sampling answer of one text block.
func TextReply(text, model string) CreateMessageResult {
	content, _ := json.Marshal(Content{Type: ContentText, Text: text})
	return CreateMessageResult{Role: "assistant", Content: content, Model: model, StopReason: "endTurn"}
}

// CodeUserRejected is the error a client answers a sampling request with
// when the user declines it (2025-11-25 sampling, "Error Handling").
const CodeUserRejected = -1
