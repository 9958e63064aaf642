package demoserver

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/sourcegraph/jsonrpc2"
)

// The demo server's resource template and completions: a greeting for any
// name (demo://greeting/{name}), whose name argument — like the greet
// prompt's — completes from a short list of names.

// GreetingTemplate is the URI template of the demo server's greetings.
const GreetingTemplate = "demo://greeting/{name}"

const greetingPrefix = "demo://greeting/"

type resourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

var greetingTemplate = resourceTemplate{
	URITemplate: GreetingTemplate,
	Name:        "greeting",
	Title:       "A greeting",
	Description: "A short greeting for {name}; the name completes from a few famous programmers.",
	MimeType:    "text/plain",
}

// completionNames are what name arguments complete from.
var completionNames = []string{"Ada", "Alan", "Barbara", "Dennis", "Edsger", "Grace", "Ken", "Linus", "Margaret", "Radia"}

// readGreeting answers resources/read for a greeting URI; ok is false for
// any other URI.
func readGreeting(uri string) (any, bool) {
	name, ok := strings.CutPrefix(uri, greetingPrefix)
	if !ok || name == "" {
		return nil, false
	}
	return map[string]any{
		"contents": []resourceContents{{URI: uri, MimeType: "text/plain", Text: fmt.Sprintf("Hello, %s!\n", name)}},
	}, true
}

type completeParams struct {
	Ref struct {
		Type string `json:"type"`
		Name string `json:"name"`
		URI  string `json:"uri"`
	} `json:"ref"`
	Argument struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"argument"`
}

// complete answers completion/complete for the greet prompt's and the
// greeting template's name argument: the names starting with the value,
// case-insensitively.
func complete(params *json.RawMessage) (any, *jsonrpc2.Error) {
	var p completeParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	switch {
	case p.Ref.Type == "ref/prompt" && p.Ref.Name == greetPrompt.Name,
		p.Ref.Type == "ref/resource" && p.Ref.URI == GreetingTemplate:
	default:
		return nil, invalidParams("nothing to complete for %s %q: the demo server completes the %q prompt and the %s template",
			p.Ref.Type, p.Ref.Name+p.Ref.URI, greetPrompt.Name, GreetingTemplate)
	}
	if p.Argument.Name != "name" {
		return nil, invalidParams("no argument %q to complete: only \"name\" completes", p.Argument.Name)
	}
	values := []string{}
	for _, n := range completionNames {
		if strings.HasPrefix(strings.ToLower(n), strings.ToLower(p.Argument.Value)) {
			values = append(values, n)
		}
	}
	sort.Strings(values)
	return map[string]any{"completion": map[string]any{"values": values, "total": len(values), "hasMore": false}}, nil
}
