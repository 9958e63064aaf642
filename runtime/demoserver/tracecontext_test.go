package demoserver

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTraceContextEchoed: a request's traceparent and tracestate come back
// in its result's _meta, for a tool call answered from a goroutine and for
// a request answered on the read loop alike.
func TestTraceContextEchoed(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{LogInterval: -1})
	s.initialize(LatestProtocolVersion)
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	const ts = "rojo=00f067aa0ba902b7"
	meta := map[string]any{"traceparent": tp, "tracestate": ts, "progressToken": "p1"}

	call := s.call(2, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}, "_meta": meta})
	var r struct {
		Content []content         `json:"content"`
		Meta    map[string]string `json:"_meta"`
	}
	if err := json.Unmarshal(call.Result, &r); err != nil {
		t.Fatalf("decoding %s: %v", call.Result, err)
	}
	if r.Meta["traceparent"] != tp || r.Meta["tracestate"] != ts || len(r.Meta) != 2 {
		t.Errorf("_meta = %v, want exactly the traceparent and tracestate sent", r.Meta)
	}
	if len(r.Content) != 1 || r.Content[0].Text != "hi" {
		t.Errorf("content = %+v: the result itself must be unchanged", r.Content)
	}

	list := s.call(3, "tools/list", map[string]any{"_meta": map[string]any{"traceparent": tp}})
	var l struct {
		Tools []json.RawMessage `json:"tools"`
		Meta  map[string]string `json:"_meta"`
	}
	if err := json.Unmarshal(list.Result, &l); err != nil {
		t.Fatal(err)
	}
	if l.Meta["traceparent"] != tp || len(l.Tools) == 0 {
		t.Errorf("tools/list: _meta = %v with %d tools, want the traceparent and the tools", l.Meta, len(l.Tools))
	}
}

// TestNoTraceContextNoMeta: without trace context the answer is as before,
// with no _meta at all.
func TestNoTraceContextNoMeta(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{LogInterval: -1})
	s.initialize(LatestProtocolVersion)
	call := s.call(2, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "traceparent"}})
	if strings.Contains(string(call.Result), "_meta") {
		t.Errorf("result has _meta without trace context: %s", call.Result)
	}
}
