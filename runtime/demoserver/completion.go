package demoserver

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The demo server's resource template and completions: a greeting for any
// name (demo://greeting/{name}), whose name argument — like the greet
// prompt's — completes from a short list of names.

// GreetingTemplate is the URI template of the demo server's greetings.
const GreetingTemplate = "demo://greeting/{name}"

const greetingPrefix = "demo://greeting/"

var greetingTemplate = &mcp.ResourceTemplate{
	URITemplate: GreetingTemplate,
	Name:        "greeting",
	Title:       "A greeting",
	Description: "A short greeting for {name}; the name completes from a few famous programmers.",
	MIMEType:    "text/plain",
}

// completionNames are what name arguments complete from.
var completionNames = []string{"Ada", "Alan", "Barbara", "Dennis", "Edsger", "Grace", "Ken", "Linus", "Margaret", "Radia"}

// greetingName is the name in a greeting URI; ok is false for any other URI.
func greetingName(uri string) (string, bool) {
	name, ok := strings.CutPrefix(uri, greetingPrefix)
	return name, ok && name != ""
}

// readGreeting answers resources/read for a greeting URI.
func readGreeting(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	name, ok := greetingName(uri)
	if !ok {
		return nil, resourceNotFound(uri)
	}
	return &mcp.ReadResourceResult{
		Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: fmt.Sprintf("Hello, %s!\n", name)}},
	}, nil
}

// complete answers completion/complete for the greet prompt's and the
// greeting template's name argument: the names starting with the value,
// case-insensitively.
func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	ref, arg := req.Params.Ref, req.Params.Argument
	if ref == nil {
		return nil, invalidParams("completion/complete needs a \"ref\": the prompt or template whose argument to complete")
	}
	switch {
	case ref.Type == "ref/prompt" && ref.Name == greetPrompt.Name,
		ref.Type == "ref/resource" && ref.URI == GreetingTemplate:
	default:
		return nil, invalidParams("nothing to complete for %s %q: the demo server completes the %q prompt and the %s template",
			ref.Type, ref.Name+ref.URI, greetPrompt.Name, GreetingTemplate)
	}
	if arg.Name != "name" {
		return nil, invalidParams("no argument %q to complete: only \"name\" completes", arg.Name)
	}
	values := []string{}
	for _, n := range completionNames {
		if strings.HasPrefix(strings.ToLower(n), strings.ToLower(arg.Value)) {
			values = append(values, n)
		}
	}
	sort.Strings(values)
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}
