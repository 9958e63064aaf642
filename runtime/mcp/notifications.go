package mcp

import (
	"encoding/json"

	"mcpdeck/jsonrpc"
)

// The notifications both eras share that carry params worth a type.
const (
	NotificationProgress     = "notifications/progress"
	NotificationRootsChanged = "notifications/roots/list_changed"
	// NotificationElicitationComplete says a URL-mode elicitation's
	// out-of-band flow finished (params {elicitationId}); the session
	// revisions only: 2026-07-28 has neither it nor the id.
	NotificationElicitationComplete = "notifications/elicitation/complete"
)

// ProgressParams are the params of notifications/progress. The token is
// kept raw: a string or a number, echoed back exactly.
type ProgressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         float64         `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
	Meta          json.RawMessage `json:"_meta,omitempty"`
}

// TokenString is the progress token as text: a string token without its
// quotes, a number as written.
func (p ProgressParams) TokenString() string {
	var s string
	if json.Unmarshal(p.ProgressToken, &s) == nil {
		return s
	}
	return string(p.ProgressToken)
}

// CancelledParams are the params of notifications/cancelled (the
// connection handles cancellation itself, so the type is jsonrpc's).
type CancelledParams = jsonrpc.CancelledParams
