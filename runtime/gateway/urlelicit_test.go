package gateway

//lint:file-ignore SA1019 roots and sampling are current in the session revisions the gateway serves (deprecated only in 2026-07-28)

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/runtimetest"
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
			// As sent: the SDK's own type always writes roots.
			b, _ := json.Marshal(req.Params.GetMeta()[mcp.MetaKeyClientCapabilities])
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
		})
}

// A server's URL elicitation reaches the client whose call asked it with
// what that client's revision has: a 2025-11-25 client gets an
// elicitationId of the gateway's own (never the server's: two servers
// behind the gateway, r and s here, both name theirs linkID, and the
// client was given linkID twice, so that either's
// notifications/elicitation/complete finished both flows) and, when the
// server says the flow finished, notifications/elicitation/complete under
// that id; a 2026-07-28 client gets neither, its revision having no such
// id or notification.
func TestURLElicitationCarriesWhatTheClientsEraHas(t *testing.T) {
	t.Parallel()
	for _, upstream := range []string{"legacy", "modern"} {
		t.Run(upstream+" server", func(t *testing.T) {
			t.Parallel()
			servers := []string{"r"}
			if upstream == "legacy" {
				servers = append(servers, "s") // the same elicitationId as r's
			}
			var cfg []config.Server
			for _, name := range servers {
				cfg = append(cfg, rootsServer(name, upstream))
			}
			rt := newRuntime(t, cfg...)
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
					given := map[string]string{} // the client's elicitationId → the server that asked
					for _, server := range servers {
						res, err := cs.CallTool(ctxFor(t, 20*time.Second), &mcp.CallToolParams{Name: server + "__connect", Arguments: map[string]any{}})
						if err != nil || textOf(res) != "accept" {
							t.Fatalf("%s__connect: %v %+v", server, err, res)
						}
						p := waitFor(t, "the URL elicitation", asked, nil)
						if p.Mode != "url" || p.URL != "https://example.com/link" {
							t.Fatalf("the client was asked %+v", p)
						}
						switch {
						case era == "modern" && p.ElicitationID != "":
							t.Fatalf("a 2026-07-28 client was sent elicitationId %q, which its revision does not have", p.ElicitationID)
						case era == "legacy" && p.ElicitationID == "":
							t.Fatal("a 2025-11-25 client was sent no elicitationId, which its revision requires")
						case era == "legacy" && given[p.ElicitationID] != "":
							t.Fatalf("%s's URL elicitation reached the client as %q, the id %s's already has: one's completion would finish both",
								server, p.ElicitationID, given[p.ElicitationID])
						}
						if era == "legacy" {
							given[p.ElicitationID] = server
						}
						if era == "legacy" && upstream == "legacy" {
							if id := waitFor(t, "notifications/elicitation/complete", completed, nil); given[id] != server {
								t.Fatalf("%s's flow finished, and the client was told %q completed, which it was given for %q", server, id, given[id])
							}
						}
					}
				})
			}
		})
	}
}

// A 2026-07-28 server is told on each request what may be asked during
// it: the calling client's elicitation, sampling and roots, not every
// client's (nor all the gateway declares to a session-era server for
// all of them). A client without elicitation does not tell the server it
// can elicit; the gateway's own decline (its Elicitor and Sampler) is no
// answer to declare.
func TestModernRequestsDeclareTheCallersCapabilities(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t, rootsServer("r", "modern"))
	g := newGateway(t, rt, Options{})
	url := serveHTTP(t, g)
	form := &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}
	both := &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}
	for _, tc := range []struct {
		name, era string
		caps      *mcp.ClientCapabilities
		want      map[string]bool // a capability the request declares, or does not
	}{
		{"modern client with nothing", "modern", &mcp.ClientCapabilities{}, map[string]bool{"elicitation": false, "sampling": false, "roots": false}},
		{"modern client with form mode", "modern", &mcp.ClientCapabilities{Elicitation: form}, map[string]bool{"elicitation": true, "url": false, "sampling": false, "roots": false}},
		{"legacy client with nothing", "legacy", &mcp.ClientCapabilities{}, map[string]bool{"elicitation": false, "sampling": false, "roots": false}},
		{"legacy client with url mode, roots and sampling", "legacy", &mcp.ClientCapabilities{Elicitation: both, RootsV2: &mcp.RootCapabilities{}, Sampling: &mcp.SamplingCapabilities{}},
			map[string]bool{"elicitation": true, "url": true, "sampling": true, "roots": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The SDK declares what it has a handler for.
			opts := &mcp.ClientOptions{Capabilities: tc.caps}
			if tc.caps.Elicitation != nil {
				opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "decline"}, nil
				}
			}
			if tc.caps.Sampling != nil {
				opts.CreateMessageHandler = func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					return nil, errors.New("no model")
				}
			}
			c := mcp.NewClient(&mcp.Implementation{Name: tc.name, Version: "1"}, opts)
			tr := pipeTransport(t, g)
			if tc.era == "modern" {
				tr = httpTransport(url)
			}
			cs := connect(t, c, tr, tc.era)
			res, err := cs.CallTool(ctxFor(t, 20*time.Second), &mcp.CallToolParams{Name: "r__caps", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Fatalf("caps: %v %+v", err, res)
			}
			var got map[string]json.RawMessage
			if err := json.Unmarshal([]byte(textOf(res)), &got); err != nil {
				t.Fatalf("caps answered %q", textOf(res))
			}
			var elicitation map[string]json.RawMessage
			_ = json.Unmarshal(got["elicitation"], &elicitation)
			for k, want := range tc.want {
				_, has := got[k]
				if k == "url" {
					_, has = elicitation["url"]
				}
				if has != want {
					t.Errorf("the server was told %s: %v, want %v (it was told %s)", k, has, want, textOf(res))
				}
			}
		})
	}
}

// operator answers elicitations as a person at the TUI would: it is
// told each one, and accepts.
type operator struct{ asked chan runtime.ElicitRequest }

func (o operator) Elicit(_ context.Context, req runtime.ElicitRequest) (runtime.ElicitResponse, error) {
	o.asked <- req
	return runtime.ElicitResponse{Action: "accept"}, nil
}

// On a runtime whose gateway a person operates (the TUI's --serve:
// runtime.Options.Operator), a URL elicitation that no client's call
// asked, the operator's own call's, reaches the operator's Elicitor (the
// TUI's dialog) in either era; a headless gateway's, with no one there,
// is refused as a client without url mode refuses it. (A gateway
// client's goes to that client either way: ui/cli's
// TestServeRelaysToItsClients.)
func TestOperatorGetsTheURLElicitationsOfItsOwnCalls(t *testing.T) {
	t.Parallel()
	for _, upstream := range []string{"legacy", "modern"} {
		for _, person := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s server, operator %v", upstream, person), func(t *testing.T) {
				t.Parallel()
				op := operator{make(chan runtime.ElicitRequest, 4)}
				opts := gatewayRuntime
				opts.Elicitor, opts.Operator = op, person
				if !person {
					opts.Elicitor = runtime.DeclineElicitor{}
				}
				rt := runtimetest.Start(t, opts, rootsServer("r", upstream))
				res, err := rt.Call(ctxFor(t, 20*time.Second), runtime.CallRequest{Server: "r", Tool: "connect"})
				if !person {
					if err == nil && !res.IsError && res.Content[0].Text == "accept" {
						t.Fatalf("a headless runtime accepted a URL elicitation: %+v", res)
					}
					return
				}
				if err != nil || res.IsError || res.Content[0].Text != "accept" {
					t.Fatalf("connect: %v %+v", err, res)
				}
				if req := waitFor(t, "the operator's URL elicitation", op.asked, nil); req.Mode != "url" || req.URL != "https://example.com/link" {
					t.Fatalf("the operator was asked %+v", req)
				}
			})
		}
	}
}
