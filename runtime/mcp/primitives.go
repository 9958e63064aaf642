package mcp

import (
	"encoding/json"
	"time"
)

// The methods and notifications of prompts, resources and completions.
const (
	MethodListPrompts            = "prompts/list"
	MethodGetPrompt              = "prompts/get"
	MethodListResources          = "resources/list"
	MethodListResourceTemplates  = "resources/templates/list"
	MethodReadResource           = "resources/read"
	MethodSubscribe              = "resources/subscribe"
	MethodUnsubscribe            = "resources/unsubscribe"
	MethodComplete               = "completion/complete"
	NotificationPromptsChanged   = "notifications/prompts/list_changed"
	NotificationResourcesChanged = "notifications/resources/list_changed"
	NotificationResourceUpdated  = "notifications/resources/updated"
)

// Cacheable is the modern era's cache hint of a cacheable result (lists,
// resources/read, server/discover).
type Cacheable struct {
	TTLMs      *float64   `json:"ttlMs,omitempty"`
	CacheScope CacheScope `json:"cacheScope,omitempty"`
}

// Hint is the result's freshness, received at received.
func (c Cacheable) Hint(received time.Time) CacheHint {
	return cacheHint(c.TTLMs, c.CacheScope, received)
}

// Page is what every list result carries besides its items: the cursor
// of the next page, the modern era's resultType and cache hint, and _meta.
type Page struct {
	NextCursor string     `json:"nextCursor,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
	Cacheable
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// ListParams are the params of a list request: the cursor of the page
// wanted ("" for the first) and _meta.
type ListParams struct {
	Cursor string          `json:"cursor,omitempty"`
	Meta   json.RawMessage `json:"_meta,omitempty"`
}

// Retry is what a modern request retried after input_required adds to its
// params (MRTR): the answers by input-request key and the server's
// requestState, byte for byte.
type Retry struct {
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
	RequestState   json.RawMessage            `json:"requestState,omitempty"`
}

// Prompt is a prompt as prompts/list describes it.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Icons       json.RawMessage  `json:"icons,omitempty"`
	Meta        json.RawMessage  `json:"_meta,omitempty"`
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// ListPromptsResult is a prompts/list page.
type ListPromptsResult struct {
	Prompts []Prompt `json:"prompts"`
	Page
}

// GetPromptParams are the params of prompts/get.
type GetPromptParams struct {
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitempty"`
	Retry
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// PromptMessage is one message of a prompt.
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// GetPromptResult is a complete prompts/get result.
type GetPromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
	ResultType  ResultType      `json:"resultType,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// Resource is a resource as resources/list describes it.
type Resource struct {
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Size        json.RawMessage `json:"size,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	Icons       json.RawMessage `json:"icons,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// ResourceTemplate is a resource template (an RFC 6570 URI template).
type ResourceTemplate struct {
	URITemplate string          `json:"uriTemplate"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	Icons       json.RawMessage `json:"icons,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// ListResourcesResult is a resources/list page.
type ListResourcesResult struct {
	Resources []Resource `json:"resources"`
	Page
}

// ListResourceTemplatesResult is a resources/templates/list page.
type ListResourceTemplatesResult struct {
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates"`
	Page
}

// URIParams are the params of resources/read, resources/subscribe and
// resources/unsubscribe, and of notifications/resources/updated.
type URIParams struct {
	URI string `json:"uri"`
	Retry
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// ReadResourceResult is a complete resources/read result.
type ReadResourceResult struct {
	Contents   []ResourceContents `json:"contents"`
	ResultType ResultType         `json:"resultType,omitempty"`
	Cacheable
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// CompletionReference names what an argument belongs to: a prompt
// (ref/prompt, by name) or a resource template (ref/resource, by URI
// template).
type CompletionReference struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// The completion reference types.
const (
	RefPrompt   = "ref/prompt"
	RefResource = "ref/resource"
)

// CompleteArgument is the argument being completed and its value so far.
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CompleteContext holds the values of arguments already chosen.
type CompleteContext struct {
	Arguments map[string]string `json:"arguments,omitempty"`
}

// CompleteParams are the params of completion/complete.
type CompleteParams struct {
	Ref      CompletionReference `json:"ref"`
	Argument CompleteArgument    `json:"argument"`
	Context  *CompleteContext    `json:"context,omitempty"`
	Meta     json.RawMessage     `json:"_meta,omitempty"`
}

// Completion is the values a server suggests.
type Completion struct {
	Values  []string `json:"values"`
	Total   int      `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}

// CompleteResult is a completion/complete result.
type CompleteResult struct {
	Completion Completion      `json:"completion"`
	ResultType ResultType      `json:"resultType,omitempty"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}
