package demoserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sourcegraph/jsonrpc2"

	"mcpdeck/runtime/mcp"
)

type promptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

type prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []promptArgument `json:"arguments,omitempty"`
}

type promptMessage struct {
	Role    string  `json:"role"`
	Content content `json:"content"`
}

type getPromptParams struct {
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments"`
}

var greetPrompt = prompt{
	Name:        "greet",
	Title:       "Greet someone",
	Description: "Asks the model to greet a person by name.",
	Arguments:   []promptArgument{{Name: "name", Description: "Who to greet.", Required: true}},
}

// getPrompt answers prompts/get. Unlike tool arguments, a missing prompt
// argument is a protocol error (-32602), as the spec prescribes.
func getPrompt(params *json.RawMessage) (any, *jsonrpc2.Error) {
	var p getPromptParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.Name != greetPrompt.Name {
		return nil, invalidParams("unknown prompt %q: the demo server has the prompt %q; call prompts/list", p.Name, greetPrompt.Name)
	}
	name := strings.TrimSpace(p.Arguments["name"])
	if name == "" {
		return nil, invalidParams("prompt %q needs the argument \"name\" (who to greet)", greetPrompt.Name)
	}
	return map[string]any{
		"description": fmt.Sprintf("Greet %s", name),
		"messages": []promptMessage{{
			Role:    "user",
			Content: content{Type: "text", Text: fmt.Sprintf("Please greet %s warmly, in one short sentence.", name)},
		}},
	}, nil
}

type resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

type resourceContents struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
}

// StatusURI is the URI of the demo server's only resource.
const StatusURI = "demo://status"

var statusResource = resource{
	URI:         StatusURI,
	Name:        "status",
	Title:       "Demo server status",
	Description: "Uptime, negotiated protocol version, log level and tool call counts. Subscribe to hear about each new call.",
	MimeType:    "text/plain",
}

func (s *server) readResource(params *json.RawMessage) (any, *jsonrpc2.Error) {
	var p mcp.URIParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if greeting, ok := readGreeting(p.URI); ok {
		return greeting, nil
	}
	if p.URI != StatusURI {
		return nil, resourceNotFound(p.URI)
	}
	return map[string]any{
		"contents": []resourceContents{{URI: StatusURI, MimeType: "text/plain", Text: s.statusText()}},
	}, nil
}

func (s *server) statusText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	version := s.version
	if version == "" {
		version = "(not initialized)"
	}
	total := 0
	names := make([]string, 0, len(s.tools))
	for _, t := range s.tools {
		total += s.calls[t.Name]
		names = append(names, fmt.Sprintf("%s %d", t.Name, s.calls[t.Name]))
	}
	slices.Sort(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", s.opts.Name, s.opts.Version)
	fmt.Fprintf(&b, "uptime: %ss\n", formatNumber(s.uptime()))
	fmt.Fprintf(&b, "protocol: %s\n", version)
	fmt.Fprintf(&b, "log level: %s\n", level(s.level.Load()))
	fmt.Fprintf(&b, "tool calls: %d (%s)\n", total, strings.Join(names, ", "))
	return b.String()
}

func (s *server) subscribe(params *json.RawMessage, on bool) (any, *jsonrpc2.Error) {
	var p mcp.URIParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.URI != StatusURI {
		return nil, resourceNotFound(p.URI)
	}
	s.mu.Lock()
	s.subscribed[p.URI] = on
	s.mu.Unlock()
	return struct{}{}, nil
}

// statusChanged tells a subscribed client that demo://status changed; it
// changes on every tool call.
func (s *server) statusChanged(conn *jsonrpc2.Conn) {
	s.mu.Lock()
	on := s.subscribed[StatusURI]
	s.mu.Unlock()
	if on {
		_ = conn.Notify(context.Background(), "notifications/resources/updated", mcp.URIParams{URI: StatusURI})
	}
}

func resourceNotFound(uri string) *jsonrpc2.Error {
	e := &jsonrpc2.Error{
		Code:    codeResourceNotFound,
		Message: fmt.Sprintf("resource %q not found: the demo server has only %s; call resources/list", uri, StatusURI),
	}
	e.SetError(map[string]string{"uri": uri})
	return e
}
