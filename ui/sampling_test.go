package ui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
	"mcpdeck/ui/uitest"
)

// samplingRequest is a request with everything a dialog shows: a system
// prompt, model preferences, limits, tools, and messages of every kind of
// block, one with a terminal escape a server must not get to the screen.
func samplingRequest(t *testing.T) runtime.SampleRequest {
	raw := json.RawMessage(`{
  "messages": [
    {"role": "user", "content": {"type": "text", "text": "What's the weather in Paris?\nAnswer briefly.\u001b[31m"}},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}}]},
    {"role": "user", "content": [{"type": "tool_result", "toolUseId": "call_1", "content": [{"type": "text", "text": "18°C, partly cloudy"}]}]},
    {"role": "user", "content": {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}}
  ],
  "systemPrompt": "You are a helpful assistant.",
  "modelPreferences": {"hints": [{"name": "claude-3-sonnet"}, {"name": "claude"}], "costPriority": 0.3, "speedPriority": 0.8, "intelligencePriority": 0.5},
  "maxTokens": 100,
  "temperature": 0.7,
  "stopSequences": ["\n\n"],
  "includeContext": "thisServer",
  "tools": [{"name": "get_weather", "description": "Get current weather for a city", "inputSchema": {"type": "object"}}],
  "toolChoice": {"mode": "auto"}
}`)
	req := runtime.SampleRequest{Server: "everything", Raw: raw}
	if err := json.Unmarshal(raw, &req.Params); err != nil {
		t.Fatal(err)
	}
	return req
}

// sampleAsync asks the UI's sampler, as a server's request would.
func sampleAsync(rt *uitest.Runtime, req runtime.SampleRequest) <-chan runtime.SampleResponse {
	got := make(chan runtime.SampleResponse, 1)
	go func() {
		resp, _ := rt.Sample(context.Background(), req)
		got <- resp
	}()
	return got
}

func replyText(t *testing.T, r mcp.CreateMessageResult) string {
	t.Helper()
	blocks, err := mcp.ContentBlocks(r.Content)
	var c mcp.Content
	if err == nil {
		err = json.Unmarshal(blocks[0], &c)
	}
	if err != nil || len(blocks) != 1 {
		t.Fatalf("reply %s: %v", r.Content, err)
	}
	return c.Text
}

// The sampling dialog shows the whole request, sanitised, and sends what
// the person writes as the model's reply.
func TestGoldenSamplingDialog(t *testing.T) {
	forSizes(t, func(t *testing.T, w, h int) {
		rt := uitest.New(uitest.ReadySnapshot())
		hs := start(t, rt, w, h)
		got := sampleAsync(rt, samplingRequest(t))
		hs.waitText("everything asks for a model's reply", "You are a helpful")
		hs.tm.Type("Paris, 18 C")
		v := hs.waitText("Paris, 18 C", "≈3 of 100 tokens")
		if strings.Contains(v, "\x1b[31m") || !strings.Contains(v, `\x1b[31m`) {
			t.Errorf("the server's escape reached the screen unescaped:\n%s", v)
		}
		golden.RequireEqual(t, []byte(v))
		hs.keys("ctrl+s")
		resp := <-got
		if resp.Declined || replyText(t, resp.Result) != "Paris, 18 C" || resp.Result.Model != OperatorModel ||
			resp.Result.Role != "assistant" || resp.Result.StopReason != "endTurn" || resp.By != "the operator (TUI)" {
			t.Fatalf("reply %+v", resp)
		}
		hs.waitView("the dialog closed", func(v string) bool { return !strings.Contains(v, "asks for a model's reply") })
	})
}

// esc (and ctrl+x) decline; ctrl+e edits the whole result as JSON, which
// is checked before it is sent; a request the server withdraws closes its
// dialog.
func TestSamplingDeclineRawAndWithdrawn(t *testing.T) {
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 120, 40)
	req := samplingRequest(t)

	got := sampleAsync(rt, req)
	hs.waitText("asks for a model's reply")
	hs.keys("esc")
	if resp := <-got; !resp.Declined || resp.By != "the operator (TUI)" {
		t.Fatalf("esc: %+v", resp)
	}

	got = sampleAsync(rt, req)
	hs.waitText("asks for a model's reply")
	hs.tm.Type("Lyon")
	hs.keys("ctrl+e")
	hs.waitText("the whole CreateMessageResult", `"model": "mcpdeck-operator"`, `"text": "Lyon"`)
	hs.keys("x", "ctrl+s") // a stray character before the JSON: refused, saying why
	hs.waitText("the reply is not a CreateMessageResult")
	hs.keys("backspace", "ctrl+s")
	if resp := <-got; resp.Declined || replyText(t, resp.Result) != "Lyon" {
		t.Fatalf("raw reply: %+v", resp)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := rt.Sample(ctx, req); done <- err }()
	hs.waitText("asks for a model's reply")
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a withdrawn request was answered")
	}
	hs.waitText("everything withdrew its sampling request")
}

// server-everything's sampling tool, called from the TUI: its request
// opens the dialog, and the reply written there reaches the server.
func TestSamplingOnTheRealRuntime(t *testing.T) {
	hs := startEverything(t)
	hs.openTool("trigger-sampling-request")
	hs.tm.Type("Capital of France?")
	hs.keys("enter")
	hs.waitText("everything asks for a model's reply", "You are a helpful test server.", "Capital of France?", "temperature 0.7")
	hs.tm.Type("Paris")
	hs.keys("ctrl+s")
	hs.waitText("Result of everything › trigger-sampling-request", "LLM sampling result", `"text": "Paris"`, OperatorModel)
}
