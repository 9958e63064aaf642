package demoserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The demo server's prompt and its status resource.

var greetPrompt = &mcp.Prompt{
	Name:        "greet",
	Title:       "Greet someone",
	Description: "Asks the model to greet a person by name.",
	Arguments:   []*mcp.PromptArgument{{Name: "name", Description: "Who to greet.", Required: true}},
}

// getPrompt answers prompts/get for greet. Unlike tool arguments, a
// missing prompt argument is a protocol error (-32602), as the spec
// prescribes.
func getPrompt(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	name := strings.TrimSpace(req.Params.Arguments["name"])
	if name == "" {
		return nil, invalidParams("prompt %q needs the argument \"name\" (who to greet)", greetPrompt.Name)
	}
	return &mcp.GetPromptResult{
		Description: fmt.Sprintf("Greet %s", name),
		Messages: []*mcp.PromptMessage{{
			Role:    "user",
			Content: &mcp.TextContent{Text: fmt.Sprintf("Please greet %s warmly, in one short sentence.", name)},
		}},
	}, nil
}

// StatusURI is the URI of the demo server's status resource.
const StatusURI = "demo://status"

var statusResource = &mcp.Resource{
	URI:         StatusURI,
	Name:        "status",
	Title:       "Demo server status",
	Description: "Uptime, negotiated protocol version, log level and tool call counts. Subscribe to hear about each new call.",
	MIMEType:    "text/plain",
}

func (d *demo) readStatus(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{
		Contents: []*mcp.ResourceContents{{URI: StatusURI, MIMEType: "text/plain", Text: d.statusText()}},
	}, nil
}

func (d *demo) statusText() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	version := d.version
	if version == "" {
		version = "(not initialized)"
	}
	total := 0
	names := make([]string, 0, len(d.tools))
	for _, t := range d.tools {
		total += d.calls[t.Name]
		names = append(names, fmt.Sprintf("%s %d", t.Name, d.calls[t.Name]))
	}
	slices.Sort(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", d.opts.Name, d.opts.Version)
	fmt.Fprintf(&b, "uptime: %ss\n", formatNumber(d.uptime()))
	fmt.Fprintf(&b, "protocol: %s\n", version)
	fmt.Fprintf(&b, "log level: %s\n", level(d.level.Load()))
	fmt.Fprintf(&b, "tool calls: %d (%s)\n", total, strings.Join(names, ", "))
	return b.String()
}

// subscribe and unsubscribe accept demo://status, the one resource that
// changes (on every tool call); go-sdk keeps the subscription.
func subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	return checkSubscribable(req.Params.URI)
}

func unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	return checkSubscribable(req.Params.URI)
}

func checkSubscribable(uri string) error {
	if uri != StatusURI {
		return resourceNotFound(uri)
	}
	return nil
}

// statusChanged tells a subscribed client that demo://status changed.
func (d *demo) statusChanged(ctx context.Context) {
	_ = d.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: StatusURI})
}
