package gateway

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// linkID is the elicitationId the connect tool gives its URL elicitation
// in a session revision (2026-07-28 has none).
const linkID = "link-1"

// addElicitTools adds the roots server's connect and caps tools.
//
// connect asks a URL-mode elicitation (input_required; the SDK sends a
// legacy client elicitation/create), with the elicitationId linkID in a
// session revision, and answers the action; in a session revision it then
// says the out-of-band flow finished (notifications/elicitation/complete).
// caps answers, as JSON, the client capabilities its request declared.
func addElicitTools(s *mcp.Server) {
	s.AddTool(&mcp.Tool{Name: "connect", Description: "Asks the user to open a link.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			modern := req.ProtocolVersion() == "2026-07-28"
			if res, ok := req.Params.InputResponses["link"].(*mcp.ElicitResult); ok {
				if !modern && res.Action == "accept" {
					_ = req.Session.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: linkID})
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action}}}, nil
			}
			p := &mcp.ElicitParams{Mode: "url", URL: "https://example.com/link", Message: "Link your account."}
			if !modern {
				p.ElicitationID = linkID
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"link": p}, RequestState: "connect-v1"}, nil
		})
	s.AddTool(&mcp.Tool{Name: "caps", Description: "Answers the client capabilities of the request.", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b, _ := json.Marshal(req.ClientCapabilities())
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
		})
}

// A server's URL elicitation reaches the client whose call asked it with
// what that client's revision has: a 2025-11-25 client gets an
// elicitationId (the server's, or one the gateway makes up for a
// 2026-07-28 server, which sends none) and, when the server says the flow
// finished, notifications/elicitation/complete; a 2026-07-28 client gets
// neither, its revision having no such id or notification.
func TestURLElicitationCarriesWhatTheClientsEraHas(t *testing.T) {
	t.Parallel()
	for _, upstream := range []string{"legacy", "modern"} {
		t.Run(upstream+" server", func(t *testing.T) {
			t.Parallel()
			rt := newRuntime(t, rootsServer("r", upstream))
			g := newGateway(t, rt, Options{})
			url := serveHTTP(t, g)
			for _, era := range []string{"legacy", "modern"} {
				t.Run(era+" client", func(t *testing.T) {
					asked := make(chan *mcp.ElicitParams, 4)
					completed := make(chan string, 4)
					c := mcp.NewClient(&mcp.Implementation{Name: era, Version: "1"}, &mcp.ClientOptions{
						Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
						ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
							asked <- req.Params
							return &mcp.ElicitResult{Action: "accept"}, nil
						},
						ElicitationCompleteHandler: func(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
							completed <- req.Params.ElicitationID
						},
					})
					tr := pipeTransport(t, g)
					if era == "modern" {
						tr = httpTransport(url)
					}
					cs := connect(t, c, tr, era)
					res, err := cs.CallTool(ctxFor(t, 20*time.Second), &mcp.CallToolParams{Name: "r__connect", Arguments: map[string]any{}})
					if err != nil || textOf(res) != "accept" {
						t.Fatalf("connect: %v %+v", err, res)
					}
					p := waitFor(t, "the URL elicitation", asked, nil)
					if p.Mode != "url" || p.URL != "https://example.com/link" {
						t.Fatalf("the client was asked %+v", p)
					}
					switch {
					case era == "modern" && p.ElicitationID != "":
						t.Fatalf("a 2026-07-28 client was sent elicitationId %q, which its revision does not have", p.ElicitationID)
					case era == "legacy" && upstream == "legacy" && p.ElicitationID != linkID:
						t.Fatalf("a 2025-11-25 client was sent elicitationId %q, want the server's %q", p.ElicitationID, linkID)
					case era == "legacy" && p.ElicitationID == "":
						t.Fatal("a 2025-11-25 client was sent no elicitationId, which its revision requires")
					}
					if era == "legacy" && upstream == "legacy" {
						if id := waitFor(t, "notifications/elicitation/complete", completed, nil); id != linkID {
							t.Fatalf("the client was told %q completed, want %q", id, linkID)
						}
					}
				})
			}
		})
	}
}
