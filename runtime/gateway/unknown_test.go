package gateway

import (
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpdeck/runtime"
)

// TestUnknownNamesCarryTheirKind: a request for a prompt, resource,
// resource template or task the gateway does not offer is answered
// -32602 with data {reason "unknown", kind …} as an unknown tool is, so a
// client switches on data.kind for every error of the gateway. They used
// to come with no data at all. A go-sdk client asks (legacy era, over
// pipes) of mcpdeck's demo server, which has prompts, resources and a
// template; the tasks are asked of over HTTP by a 2026-07-28 client.
func TestUnknownNamesCarryTheirKind(t *testing.T) {
	t.Parallel()
	rt := newRuntime(t, demoServer("demo"))
	g := newGateway(t, rt, Options{})
	ctx := ctxFor(t, 60*time.Second)
	cs := connect(t, goClient("asker", newClientEvents()), pipeTransport(t, g), "legacy")

	_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "demo__nope"})
	wantUnknown(t, "prompts/get of an unknown prompt", err, runtime.KindUnknownPrompt)
	_, err = cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "demo__nope"},
		Argument: mcp.CompleteParamsArgument{Name: "name", Value: "a"}})
	wantUnknown(t, "completion of an unknown prompt", err, runtime.KindUnknownPrompt)
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "nowhere://at/all"})
	wantUnknown(t, "resources/read of a resource nobody offers", err, runtime.KindUnknownResource)
	_, err = cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "nowhere://{x}"},
		Argument: mcp.CompleteParamsArgument{Name: "x", Value: "a"}})
	wantUnknown(t, "completion of an unknown resource template", err, runtime.KindUnknownResource)
	err = cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "nowhere://at/all"})
	wantUnknown(t, "resources/subscribe to a resource nobody offers", err, runtime.KindUnknownResource)

	m := &modernClient{t: t, url: serveHTTP(t, g), name: "tasker"}
	for _, method := range []string{"tasks/get", "tasks/cancel"} {
		_, e := m.do(method, map[string]any{"taskId": "task-nope"})
		if e == nil || e["code"] != float64(-32602) {
			t.Errorf("%s of an unknown task: %v, want -32602", method, e)
			continue
		}
		data, _ := e["data"].(map[string]any)
		if data["reason"] != "unknown" || data["kind"] != runtime.KindUnknownTask.String() {
			t.Errorf("%s of an unknown task: data %v, want reason unknown and kind %s", method, e["data"], runtime.KindUnknownTask)
		}
	}
}

// wantUnknown fails unless err is the gateway's -32602 for a name it does
// not offer, of kind.
func wantUnknown(t *testing.T, what string, err error, kind runtime.ErrorKind) {
	t.Helper()
	e := rpcErr(err)
	if e == nil || e.Code != -32602 {
		t.Errorf("%s: %v, want -32602", what, err)
		return
	}
	wantKind(t, what, e, "unknown", kind)
}
