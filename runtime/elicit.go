package runtime

import (
	"context"
	"encoding/json"

	"mcpdeck/runtime/mcp"
)

// ElicitRequest is a server's elicitation/create request.
type ElicitRequest struct {
	Server          string
	Mode            string // "form" (default) or "url"
	Message         string
	RequestedSchema json.RawMessage // form mode: a flat object schema
	URL             string          // url mode
	ElicitationID   string          // url mode
}

// ElicitResponse answers an elicitation: accept (with content), decline
// or cancel.
type ElicitResponse = mcp.ElicitResult

// Elicitor answers elicitation requests. It may block until a person
// answers; ctx ends when the server cancels or the connection closes.
type Elicitor interface {
	Elicit(ctx context.Context, req ElicitRequest) (ElicitResponse, error)
}

// DeclineElicitor declines every elicitation: the headless default.
type DeclineElicitor struct{}

// Elicit declines.
func (DeclineElicitor) Elicit(context.Context, ElicitRequest) (ElicitResponse, error) {
	return ElicitResponse{Action: "decline"}, nil
}

// DefaultsElicitor accepts with the schema's default values (fields
// without a default are left out).
type DefaultsElicitor struct{}

// Elicit accepts with defaults.
func (DefaultsElicitor) Elicit(_ context.Context, req ElicitRequest) (ElicitResponse, error) {
	var schema struct {
		Properties map[string]struct {
			Default any `json:"default"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(req.RequestedSchema, &schema)
	content := map[string]any{}
	for name, p := range schema.Properties {
		if p.Default != nil {
			content[name] = p.Default
		}
	}
	return ElicitResponse{Action: "accept", Content: content}, nil
}
