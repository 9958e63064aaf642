package runtime

import (
	"context"
	"encoding/json"
	"fmt"

	"mcpdeck/runtime/schema"
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

// ElicitResponse answers an elicitation.
type ElicitResponse struct {
	Action  string         `json:"action"` // accept, decline or cancel
	Content map[string]any `json:"content,omitempty"`
	// Reason says why an elicitor that answers without a person
	// declined, for the person reading the diagnostics; it is not sent.
	Reason string `json:"-"`
}

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

// DefaultsElicitor answers a form elicitation as the TUI's form starts
// it, without a person (`--elicitation defaults`): every field its initial
// value from runtime/schema's model (schema.Node.Initial: its default, its
// constant, a required enum's first value, false for a required boolean,
// null where null is accepted). It accepts when those values satisfy the
// requested schema, formats included, and otherwise declines with the
// Reason: a required field with nothing to pick (a name, an email) is the
// person's to give, not mcpdeck's to invent. A url-mode elicitation is
// declined: a headless run opens no browser.
type DefaultsElicitor struct{}

// Elicit accepts with initial values, or declines saying why.
func (DefaultsElicitor) Elicit(_ context.Context, req ElicitRequest) (ElicitResponse, error) {
	decline := func(format string, args ...any) (ElicitResponse, error) {
		return ElicitResponse{Action: "decline", Reason: fmt.Sprintf(format, args...)}, nil
	}
	if req.Mode == "url" {
		return decline("it asks to open %s in a browser, which a headless run does not do", req.URL)
	}
	root, err := schema.Parse(req.RequestedSchema)
	if err != nil {
		return decline("its requested schema cannot be read: %v", err)
	}
	content := map[string]any{}
	for _, p := range root.Properties {
		v, ok := p.Initial(p.Required)
		if !ok {
			if p.Required {
				return decline("the required field %s has no default, choices or constant to pick", fieldName(p))
			}
			continue
		}
		var value any
		_ = json.Unmarshal(v, &value)
		content[p.Name] = value
	}
	enc, err := json.Marshal(content)
	if err != nil {
		return decline("its defaults do not encode: %v", err)
	}
	errs, err := schema.Validate(req.RequestedSchema, enc, schema.Options{AssertFormats: true})
	switch {
	case err != nil:
		return decline("its requested schema does not compile: %v", err)
	case len(errs) > 0:
		return decline("its defaults do not satisfy its requested schema (%s)", errs[0])
	}
	return ElicitResponse{Action: "accept", Content: content}, nil
}

// fieldName is a field as a person finds it in the server's form: its
// key, and its title when it has one.
func fieldName(p *schema.Property) string {
	if p.Title != "" && p.Title != p.Name {
		return fmt.Sprintf("%q (%s)", p.Name, p.Title)
	}
	return fmt.Sprintf("%q", p.Name)
}
