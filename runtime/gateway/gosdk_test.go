package gateway

//lint:file-ignore SA1019 the Go SDK client speaks the session revisions here, where logging is current (deprecated only in 2026-07-28)

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/runtime"
)

// TestGoSDKStdio runs the official Go SDK client (v1.8.0) against the
// gateway over the stdio framing, in both eras.
// The servers behind are spoken to in either era too: the peer answers
// both (the demo server only legacy), and what it asks reaches the client
// either way.
func TestGoSDKStdio(t *testing.T) {
	for _, upstream := range []string{"modern", "legacy"} {
		t.Run(upstream+" servers", func(t *testing.T) {
			peer, demo := peerServer("peer"), demoServer("demo") // the demo server speaks only legacy
			peer.Protocol = upstream
			rt := newRuntime(t, peer, demo)
			if v, _ := rt.Snapshot().Server("peer"); v.Era.String() != upstream {
				t.Fatalf("the peer is spoken to in era %s", v.Era)
			}
			g := newGateway(t, rt, Options{})
			for _, era := range []string{"legacy", "modern"} {
				t.Run(era+" client", func(t *testing.T) { exerciseGoSDK(t, rt, func() mcp.Transport { return pipeTransport(t, g) }, era) })
			}
		})
	}
}

// TestGoSDKHTTP runs the official Go SDK client against the gateway over
// Streamable HTTP: a legacy session, and stateless 2026-07-28 requests.
func TestGoSDKHTTP(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t, peerServer("peer"), demoServer("demo"))
	g := newGateway(t, rt, Options{})
	url := serveHTTP(t, g)
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) { exerciseGoSDK(t, rt, func() mcp.Transport { return httpTransport(url) }, era) })
	}
}

// exerciseGoSDK is the end-to-end flow every transport and era must pass:
// list, call, progress, cancel, elicitation, prompts, resources,
// completion, logs, resource updates, and a list change after a toggle
// from the runtime's API.
func exerciseGoSDK(t *testing.T, rt *runtime.Controller, transport func() mcp.Transport, era string) {
	ev := newClientEvents()
	cs := connect(t, goClient("gosdk-"+era, ev), transport(), era)
	ctx := ctxFor(t, 60*time.Second)
	stderr, stopStderr := rt.Subscribe(runtime.SubscribeOptions{Buffer: 1 << 14})
	defer stopStderr()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	names := toolNames(tools.Tools)
	for _, want := range []string{"demo__echo", "peer__ask", "peer__echo", "peer__slow"} {
		if !strings.Contains(names, want) {
			t.Fatalf("tools/list lacks %s: %s", want, names)
		}
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__echo", Arguments: map[string]any{"text": "hello " + era}})
	if err != nil || textOf(res) != "hello "+era || res.IsError {
		t.Fatalf("echo: %v %+v", err, res)
	}

	// Progress comes back under the client's own token.
	p := &mcp.CallToolParams{Name: "peer__slow", Arguments: map[string]any{"seconds": 0.3}}
	p.SetProgressToken("tok-" + era)
	if res, err = cs.CallTool(ctx, p); err != nil || textOf(res) != "slept 0.3s" {
		t.Fatalf("slow: %v %+v", err, res)
	}
	pr := waitFor(t, "progress", ev.progress, nil)
	if pr.ProgressToken != "tok-"+era || pr.Total != 3 {
		t.Fatalf("progress: %+v", pr)
	}

	// Cancelling the client's request cancels the server's.
	cctx, cancel := context.WithCancel(ctx)
	p = &mcp.CallToolParams{Name: "peer__slow", Arguments: map[string]any{"seconds": 30}}
	p.SetProgressToken("cancel-" + era)
	errc := make(chan error, 1)
	go func() { _, err := cs.CallTool(cctx, p); errc <- err }()
	waitFor(t, "progress of the call to cancel", ev.progress, func(p *mcp.ProgressNotificationParams) bool { return p.ProgressToken == "cancel-"+era })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
	waitFor(t, "the server's cancellation", stderr, func(e runtime.Event) bool {
		l, ok := e.(runtime.StderrLine)
		return ok && l.Server == "peer" && strings.Contains(l.Line, "cancelled slow")
	})

	// The server's elicitation during the call reaches this client.
	if res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__ask", Arguments: map[string]any{}}); err != nil || textOf(res) != "Hello, octocat!" {
		t.Fatalf("ask: %v %+v", err, res)
	}
	if msg := waitFor(t, "elicitation", ev.elicited, nil); msg != "What is your name?" {
		t.Fatalf("elicitation message %q", msg)
	}

	// Prompts, resources, templates and completions of the demo server.
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) == 0 || prompts.Prompts[0].Name != "demo__greet" {
		t.Fatalf("prompts/list: %v %+v", err, prompts)
	}
	got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "demo__greet", Arguments: map[string]string{"name": "Grace"}})
	if err != nil || len(got.Messages) == 0 || !strings.Contains(textOfPrompt(got), "Grace") {
		t.Fatalf("prompts/get: %v %+v", err, got)
	}
	resources, err := cs.ListResources(ctx, nil)
	if err != nil || len(resources.Resources) != 1 || resources.Resources[0].URI != "demo://status" {
		t.Fatalf("resources/list: %v %+v", err, resources)
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != "demo://greeting/{name}" {
		t.Fatalf("resources/templates/list: %v %+v", err, templates)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://greeting/Ada"})
	if err != nil || len(read.Contents) != 1 || read.Contents[0].Text != "Hello, Ada!\n" {
		t.Fatalf("resources/read of a template: %v %+v", err, read)
	}
	comp, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "demo__greet"},
		Argument: mcp.CompleteParamsArgument{Name: "name", Value: "Gr"}})
	if err != nil || len(comp.Completion.Values) != 1 || comp.Completion.Values[0] != "Grace" {
		t.Fatalf("completion/complete: %v %+v", err, comp)
	}

	// Resource updates: legacy through resources/subscribe, modern through
	// a listen stream.
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "demo://status"}); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	// demo://status changes with every call; the modern subscription is a
	// listen stream the SDK opens without waiting, so call until it tells.
	for updated := false; !updated; {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "x"}}); err != nil {
			t.Fatalf("demo echo: %v", err)
		}
		select {
		case uri := <-ev.updated:
			updated = uri == "demo://status"
		case <-time.After(500 * time.Millisecond):
		case <-ctx.Done():
			t.Fatal("no notifications/resources/updated for demo://status")
		}
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "demo://status"}); err != nil {
		t.Fatalf("unsubscribe: %v", err)
	}

	// Logs: a legacy session gets them at its level; a modern request gets
	// those its server sends while it is in flight, when it asks.
	if era == "legacy" {
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
			t.Fatalf("logging/setLevel: %v", err)
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "peer__log", Arguments: map[string]any{"message": "hi"}}); err != nil {
			t.Fatalf("log: %v", err)
		}
		waitFor(t, "the server's log", ev.logs, func(l *mcp.LoggingMessageParams) bool {
			return l.Logger == "peer/peer" && l.Data == "warning: hi"
		})
	} else {
		// The demo server logs a heartbeat every 100 ms.
		lp := &mcp.CallToolParams{Name: "demo__sleep", Arguments: map[string]any{"seconds": 0.5}, Meta: mcp.Meta{"io.modelcontextprotocol/logLevel": "info"}}
		if _, err := cs.CallTool(ctx, lp); err != nil {
			t.Fatalf("sleep: %v", err)
		}
		l := waitFor(t, "the server's log during the request", ev.logs, nil)
		if !strings.HasPrefix(l.Logger, "demo") || l.Level != "info" {
			t.Fatalf("log: %+v", l)
		}
		// The gateway sends a request's last logs before its answer, and
		// the Go SDK client hands them to its handler on a goroutine of
		// their own, so one may still come in after CallTool returned: a
		// heartbeat counts the demo server's calls, which tells them apart
		// from the next request's.
		first := heartbeatCalls(l)
		drain(ev.logs)
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "demo__sleep", Arguments: map[string]any{"seconds": 0.3}}); err != nil {
			t.Fatalf("sleep: %v", err)
		}
		for {
			select {
			case l := <-ev.logs:
				if heartbeatCalls(l) > first {
					t.Fatalf("a modern request that did not ask for logs got one: %+v", l)
				}
				continue
			default:
			}
			break
		}
	}

	// A toggle from the runtime's API changes the offer, and says so.
	drain(ev.toolChanged)
	if err := rt.SetServerEnabled(ctx, "demo", false); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "tools/list_changed after switching demo off", ev.toolChanged, nil)
	tools, err = cs.ListTools(ctx, nil)
	if err != nil || strings.Contains(toolNames(tools.Tools), "demo__") {
		t.Fatalf("after switching demo off: %v %s", err, toolNames(tools.Tools))
	}
	if err := rt.SetServerEnabled(ctx, "demo", true); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "tools/list_changed after switching demo on", ev.toolChanged, nil)
	tools, err = cs.ListTools(ctx, nil)
	if err != nil || !strings.Contains(toolNames(tools.Tools), "demo__echo") {
		t.Fatalf("after switching demo on: %v %s", err, toolNames(tools.Tools))
	}
}

func drain[T any](ch <-chan T) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

func textOfPrompt(r *mcp.GetPromptResult) string {
	var b strings.Builder
	for _, m := range r.Messages {
		if t, ok := m.Content.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// heartbeatCalls is the call count a demo server heartbeat log carries.
func heartbeatCalls(l *mcp.LoggingMessageParams) float64 {
	d, _ := l.Data.(map[string]any)
	n, _ := d["calls"].(float64)
	return n
}
