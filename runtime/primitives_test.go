package runtime

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/jsonrpctest"
)

func everything(t *testing.T, roots ...string) *Controller {
	t.Helper()
	node, script := jsonrpctest.Everything(t)
	srv := config.Server{Name: "e", Transport: config.TransportStdio, Command: node, Args: []string{script, "stdio"},
		Enabled: true, StartupTimeout: 30 * time.Second, CallTimeout: 30 * time.Second}
	c := New(Options{Config: configOf(srv), Roots: roots, StopGrace: time.Second})
	t.Cleanup(func() { _ = c.Shutdown(ctxFor(t, 20*time.Second)) })
	enable(t, c)
	return c
}

// Resources, templates, reads, subscriptions (kept across a reconnect),
// prompts with arguments and completions, against server-everything.
func TestEverythingPrimitives(t *testing.T) {
	t.Parallel()
	c := everything(t)
	ctx := ctxFor(t, 60*time.Second)
	v := serverOf(t, c, "e")
	if len(v.Resources) < 5 || len(v.Templates) != 2 || len(v.Prompts) < 4 {
		t.Fatalf("listed %d resources, %d templates, %d prompts", len(v.Resources), len(v.Templates), len(v.Prompts))
	}
	raw, err := c.ReadResource(ctx, "e", v.Resources[0].URI)
	if err != nil || !strings.Contains(string(raw), `"contents"`) {
		t.Fatalf("read %s: %s, %v", v.Resources[0].URI, raw, err)
	}
	const uri = "demo://resource/dynamic/text/7"
	raw, err = c.ReadResource(ctx, "e", uri)
	if err != nil || !strings.Contains(string(raw), uri) {
		t.Fatalf("read from a template: %s, %v", raw, err)
	}

	raw, err = c.GetPrompt(ctx, "e", "args-prompt", map[string]string{"city": "Lisbon"})
	if err != nil || !strings.Contains(string(raw), "Lisbon") {
		t.Fatalf("prompt: %s, %v", raw, err)
	}
	comp, err := c.Complete(ctx, CompleteRequest{Server: "e", Ref: CompletionRef{Prompt: "completable-prompt"}, Argument: "department", Value: ""})
	if err != nil || len(comp.Values) == 0 {
		t.Fatalf("completions: %+v, %v", comp, err)
	}
	narrowed, err := c.Complete(ctx, CompleteRequest{Server: "e", Ref: CompletionRef{Prompt: "completable-prompt"}, Argument: "name",
		Context: map[string]string{"department": comp.Values[0]}})
	if err != nil || len(narrowed.Values) == 0 {
		t.Fatalf("completions in context: %+v, %v", narrowed, err)
	}

	// Subscribe, and let the server send updates.
	rec := record(t, c)
	if err := c.SubscribeResource(ctx, "e", uri); err != nil {
		t.Fatal(err)
	}
	if got := serverOf(t, c, "e").Subscriptions; !slices.Equal(got, []string{uri}) {
		t.Fatalf("subscriptions %v", got)
	}
	if _, err := c.Call(ctx, CallRequest{Server: "e", Tool: "toggle-subscriber-updates"}); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "an update", func(e Event) bool { u, ok := e.(ResourceUpdated); return ok && u.URI == uri })

	// A reconnect keeps the subscription: the new session subscribes again.
	if err := c.Reconnect(ctx, "e"); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the subscription restored", func(e Event) bool {
		f, ok := e.(TrafficFrame)
		return ok && f.Frame.Dir == Out && f.Frame.Method == "resources/subscribe" && strings.Contains(string(f.Frame.Raw), uri)
	})
	if err := c.UnsubscribeResource(ctx, "e", uri); err != nil {
		t.Fatal(err)
	}
	if got := serverOf(t, c, "e").Subscriptions; len(got) != 0 {
		t.Fatalf("after unsubscribe: %v", got)
	}
}

// Roots are declared only when configured: without roots the server keeps
// its own directories (server-everything then offers no get-roots-list);
// with them, it is offered exactly those, and a change is announced.
func TestEverythingRootsOnlyWhenConfigured(t *testing.T) {
	t.Parallel()
	bare := everything(t)
	if strings.Contains(toolNames(serverOf(t, bare, "e").Tools), "get-roots-list") {
		t.Fatal("roots declared with none configured")
	}

	dir := t.TempDir()
	c := everything(t, dir)
	ctx := ctxFor(t, 60*time.Second)
	deadline := time.After(15 * time.Second)
	for !strings.Contains(toolNames(serverOf(t, c, "e").Tools), "get-roots-list") {
		select {
		case <-deadline:
			t.Fatalf("get-roots-list never offered: %s", toolNames(serverOf(t, c, "e").Tools))
		case <-time.After(50 * time.Millisecond):
		}
	}
	res, err := c.Call(ctx, CallRequest{Server: "e", Tool: "get-roots-list"})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].Text, "file://"+dir) {
		t.Fatalf("roots seen by the server: %+v, %v", res, err)
	}
	if got := serverOf(t, c, "e").Roots; len(got) != 1 || got[0].URI != "file://"+dir {
		t.Fatalf("snapshot roots %v", got)
	}
	rec := record(t, c)
	other := t.TempDir()
	if err := c.SetRoots(ctx, "e", []string{dir, other}); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "roots/list_changed sent", func(e Event) bool {
		f, ok := e.(TrafficFrame)
		return ok && f.Frame.Dir == Out && f.Frame.Method == "notifications/roots/list_changed"
	})
	// The server asks roots/list again when told; it then reports both.
	rec.waitFor(t, "roots/list asked again", func(e Event) bool {
		f, ok := e.(TrafficFrame)
		return ok && f.Frame.Dir == In && f.Frame.Kind == FrameRequest && f.Frame.Method == "roots/list"
	})
	deadline = time.After(10 * time.Second)
	for {
		res, err = c.Call(ctx, CallRequest{Server: "e", Tool: "get-roots-list"})
		if err == nil && strings.Contains(res.Content[0].Text, "file://"+other) {
			break
		}
		select {
		case <-deadline:
			t.Fatalf("roots after the change: %+v, %v", res, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// The log level chosen at run time is sent, shown, and refused when it is
// not one of MCP's.
func TestEverythingLogLevel(t *testing.T) {
	t.Parallel()
	c := everything(t)
	ctx := ctxFor(t, 30*time.Second)
	rec := record(t, c)
	if err := c.SetLogLevel(ctx, "e", "error"); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "setLevel sent", func(e Event) bool {
		f, ok := e.(TrafficFrame)
		return ok && f.Frame.Dir == Out && f.Frame.Method == "logging/setLevel" && strings.Contains(string(f.Frame.Raw), `"error"`)
	})
	if got := serverOf(t, c, "e").LogLevel; got != "error" {
		t.Fatalf("level shown %q", got)
	}
	if err := c.SetLogLevel(ctx, "e", "loud"); !errors.Is(err, ErrInvalidArguments) {
		t.Fatalf("bad level: %v", err)
	}
}

// The call history keeps every call with its arguments and outcome.
func TestCallHistory(t *testing.T) {
	t.Parallel()
	c := newController(t, demoServer("demo"))
	enable(t, c)
	ctx := ctxFor(t, 20*time.Second)
	_, _ = c.Call(ctx, CallRequest{Server: "demo", Tool: "echo", Arguments: json.RawMessage(`{"text":"one"}`)})
	_, _ = c.Call(ctx, CallRequest{Server: "demo", Tool: "fail"})
	_, _ = c.Call(ctx, CallRequest{Server: "demo", Tool: "echo", Arguments: json.RawMessage(`{"text":5}`)})
	_, _ = c.Call(ctx, CallRequest{Server: "demo", Tool: "nope"})
	calls, dropped := c.History()
	if len(calls) != 3 || dropped != 0 {
		t.Fatalf("history: %d calls, %d dropped", len(calls), dropped)
	}
	want := []CallStatus{CallOK, CallToolError, CallFailed}
	for i, rec := range calls {
		if rec.Status != want[i] || rec.Seq != uint64(i+1) || rec.Server != "demo" || len(rec.Arguments) == 0 {
			t.Errorf("call %d: %+v", i, rec)
		}
	}
	if calls[0].Result == nil || !strings.Contains(calls[0].Result.Content[0].Text, "one") || calls[0].RequestID == 0 {
		t.Fatalf("first call: %+v", calls[0])
	}
	if calls[2].Err == nil || calls[2].Err.Kind != KindInvalidArguments {
		t.Fatalf("invalid arguments kept as %+v", calls[2].Err)
	}
}

func TestHistoryIsBounded(t *testing.T) {
	t.Parallel()
	var h history
	for i := range historyMaxCalls + 10 {
		h.add(CallRecord{Tool: "t", Arguments: json.RawMessage(`{"i":` + string(rune('0'+i%10)) + `}`)})
	}
	if len(h.calls) != historyMaxCalls || h.dropped != 10 || h.calls[0].Seq != 11 {
		t.Fatalf("%d kept, %d dropped, first %d", len(h.calls), h.dropped, h.calls[0].Seq)
	}
	big := make([]byte, historyMaxBytes/2)
	h.add(CallRecord{Result: &Result{Content: []Content{{Type: "text", Text: string(big)}}}})
	h.add(CallRecord{Result: &Result{Content: []Content{{Type: "text", Text: string(big)}}}})
	if h.bytes > historyMaxBytes {
		t.Fatalf("history holds %d bytes, over %d", h.bytes, historyMaxBytes)
	}
}
