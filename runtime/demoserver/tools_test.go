package demoserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	jsonschema "mcpdeck/runtime/internal/jsonschema"
)

type listedTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  map[string]any  `json:"annotations"`
}

type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func (r toolResult) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

func compileSchema(t *testing.T, name string, raw json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: decoding schema: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "mem://" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: not a valid JSON Schema: %v", name, err)
	}
	return sch
}

func validates(t *testing.T, sch *jsonschema.Schema, instance string) bool {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(instance))
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(v) == nil
}

func listTools(t *testing.T, s *session) map[string]listedTool {
	t.Helper()
	var r struct{ Tools []listedTool }
	s.result(100, "tools/list", map[string]any{}, &r)
	out := map[string]listedTool{}
	for _, tl := range r.Tools {
		out[tl.Name] = tl
	}
	return out
}

func callTool(t *testing.T, s *session, id int, name string, args any) toolResult {
	t.Helper()
	var r toolResult
	s.result(id, "tools/call", map[string]any{"name": name, "arguments": args}, &r)
	return r
}

func TestToolsListSchemas(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{LogInterval: -1})
	s.initialize(LatestProtocolVersion)
	tools := listTools(t, s)

	for _, name := range []string{"echo", "add", "sleep", "fail"} {
		tl, ok := tools[name]
		if !ok {
			t.Fatalf("tools/list lacks %q", name)
		}
		if tl.Title == "" || tl.Description == "" {
			t.Errorf("%s: title %q, description %q: both are required", name, tl.Title, tl.Description)
		}
		if tl.Annotations["readOnlyHint"] != true || tl.Annotations["openWorldHint"] != false {
			t.Errorf("%s: annotations = %v, want readOnlyHint true and openWorldHint false", name, tl.Annotations)
		}
		var in struct {
			Type       string                    `json:"type"`
			Properties map[string]map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(tl.InputSchema, &in); err != nil || in.Type != "object" || in.Properties == nil {
			t.Errorf("%s: inputSchema %s is not an object schema with properties", name, tl.InputSchema)
		}
		for prop, def := range in.Properties {
			if def["description"] == nil {
				t.Errorf("%s.%s has no description", name, prop)
			}
		}
		compileSchema(t, name+"-input", tl.InputSchema)
	}
	if len(tools) != 4 {
		t.Errorf("tools/list has %d tools, want 4", len(tools))
	}

	// The schemas must also mean what the tools enforce.
	add := compileSchema(t, "add-input", tools["add"].InputSchema)
	if !validates(t, add, `{"a":1,"b":2.5}`) || validates(t, add, `{"a":"1","b":2}`) || validates(t, add, `{"a":1}`) {
		t.Error("add's inputSchema does not require two numbers")
	}
	sleep := compileSchema(t, "sleep-input", tools["sleep"].InputSchema)
	if !validates(t, sleep, `{}`) || validates(t, sleep, `{"seconds":-1}`) || validates(t, sleep, `{"seconds":601}`) {
		t.Error("sleep's inputSchema does not bound seconds to 0..600 with seconds optional")
	}
	var sleepSchema struct {
		Properties struct {
			Seconds map[string]any `json:"seconds"`
		} `json:"properties"`
	}
	json.Unmarshal(tools["sleep"].InputSchema, &sleepSchema)
	if sleepSchema.Properties.Seconds["default"] != 2.0 || sleepSchema.Properties.Seconds["type"] != "number" {
		t.Errorf("sleep.seconds = %v, want a number with default 2", sleepSchema.Properties.Seconds)
	}
	echo := compileSchema(t, "echo-input", tools["echo"].InputSchema)
	if validates(t, echo, `{}`) {
		t.Error("echo's inputSchema does not require text")
	}
	if tools["add"].OutputSchema == nil {
		t.Fatal("add has no outputSchema")
	}
	compileSchema(t, "add-output", tools["add"].OutputSchema)
}

func TestEcho(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{LogInterval: -1})
	s.initialize(LatestProtocolVersion)

	text := `hello "world" ünïcode` + "\twith a tab and a\nnewline"
	r := callTool(t, s, 1, "echo", map[string]any{"text": text})
	if r.IsError || r.text() != text || len(r.Content) != 1 || r.Content[0].Type != "text" {
		t.Errorf("echo = %+v, want the text back", r)
	}
	for i, args := range []any{map[string]any{}, map[string]any{"text": 42}, nil} {
		r := callTool(t, s, 10+i, "echo", args)
		if !r.IsError || !strings.Contains(r.text(), `"text"`) {
			t.Errorf("echo %v = %+v, want isError naming \"text\"", args, r)
		}
	}
}

func TestAdd(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{LogInterval: -1})
	s.initialize(LatestProtocolVersion)
	out := compileSchema(t, "add-output", listTools(t, s)["add"].OutputSchema)

	r := callTool(t, s, 1, "add", map[string]any{"a": 2, "b": 3.5})
	if r.IsError || r.text() != "5.5" {
		t.Errorf("add 2 3.5 = %+v, want text 5.5", r)
	}
	if !validates(t, out, string(r.StructuredContent)) {
		t.Errorf("structuredContent %s does not validate against the outputSchema", r.StructuredContent)
	}
	var sc struct{ Sum float64 }
	if err := json.Unmarshal(r.StructuredContent, &sc); err != nil || sc.Sum != 5.5 {
		t.Errorf("structuredContent = %s, want {\"sum\":5.5}", r.StructuredContent)
	}

	bad := []struct {
		args  map[string]any
		field string
	}{
		{map[string]any{"a": "x", "b": 1}, `"a"`},
		{map[string]any{"a": 1}, `"b"`},
		{map[string]any{"a": 1, "b": true}, `"b"`},
		{map[string]any{"a": nil, "b": 1}, `"a"`},
	}
	for i, tc := range bad {
		r := callTool(t, s, 10+i, "add", tc.args)
		if !r.IsError || !strings.Contains(r.text(), tc.field) || r.StructuredContent != nil {
			t.Errorf("add %v = %+v, want isError naming %s and no structuredContent", tc.args, r, tc.field)
		}
	}
}

func TestFail(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{LogInterval: -1})
	s.initialize(LatestProtocolVersion)
	r := callTool(t, s, 1, "fail", map[string]any{})
	if !r.IsError || !strings.Contains(r.text(), "always fails") {
		t.Errorf("fail = %+v, want isError with an explanation", r)
	}
}

func TestMalformedToolCalls(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{LogInterval: -1})
	s.initialize(LatestProtocolVersion)
	cases := []struct {
		params any
		want   string
	}{
		{map[string]any{"name": "nope", "arguments": map[string]any{}}, `"nope"`},
		{map[string]any{"name": "echo", "arguments": []int{1}}, "arguments"},
		{"not an object", "params"},
	}
	for i, tc := range cases {
		m := s.call(i+1, "tools/call", tc.params)
		if m.Error == nil || m.Error.Code != -32602 || !strings.Contains(m.Error.Message, tc.want) {
			t.Errorf("tools/call %v = %s, want -32602 mentioning %s", tc.params, m.raw, tc.want)
		}
	}
}

func TestSleepReportsProgress(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{LogInterval: -1})
	s.initialize(LatestProtocolVersion)

	s.request(1, "tools/call", map[string]any{
		"name": "sleep", "arguments": map[string]any{"seconds": 0.55},
		"_meta": map[string]any{"progressToken": "tok"},
	})
	resp, before := s.until(func(m message) bool { return m.isResponseTo("1") })
	var progress []float64
	for _, m := range before {
		if m.Method != "notifications/progress" {
			continue
		}
		var p struct {
			ProgressToken string  `json:"progressToken"`
			Progress      float64 `json:"progress"`
			Total         float64 `json:"total"`
			Message       string  `json:"message"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatal(err)
		}
		if p.ProgressToken != "tok" || p.Total != 0.55 || p.Message == "" {
			t.Errorf("progress = %s, want token tok, total 0.55 and a message", m.raw)
		}
		if n := len(progress); n > 0 && p.Progress <= progress[n-1] {
			t.Errorf("progress went from %v to %v, want it increasing", progress[n-1], p.Progress)
		}
		progress = append(progress, p.Progress)
	}
	// 550 ms at 100 ms intervals is five ticks; a stalled machine may drop some.
	if len(progress) < 2 {
		t.Errorf("got %d progress notifications for a 550 ms sleep, want at least 2", len(progress))
	}
	var r toolResult
	json.Unmarshal(resp.Result, &r)
	if r.IsError || r.text() != "slept 0.55 s" {
		t.Errorf("sleep result = %s, want \"slept 0.55 s\"", resp.raw)
	}

	// A numeric token is echoed as a number; no token means no progress.
	s.request(2, "tools/call", map[string]any{
		"name": "sleep", "arguments": map[string]any{"seconds": 0.15},
		"_meta": map[string]any{"progressToken": 7},
	})
	p, _ := s.until(func(m message) bool { return m.Method == "notifications/progress" })
	if !strings.Contains(string(p.Params), `"progressToken":7`) {
		t.Errorf("progress = %s, want the numeric token 7", p.raw)
	}
	s.until(func(m message) bool { return m.isResponseTo("2") })
	s.request(3, "tools/call", map[string]any{"name": "sleep", "arguments": map[string]any{"seconds": 0.25}})
	_, before = s.until(func(m message) bool { return m.isResponseTo("3") })
	for _, m := range before {
		if m.Method == "notifications/progress" {
			t.Errorf("progress %s for a call without a progressToken", m.raw)
		}
	}

	r = callTool(t, s, 4, "sleep", map[string]any{"seconds": 601})
	if !r.IsError || !strings.Contains(r.text(), `"seconds"`) {
		t.Errorf("sleep 601 = %+v, want isError naming \"seconds\"", r)
	}
}

// TestSleepCancelled cancels a running sleep and proves it is never
// answered: a ping sent after the cancellation is answered, and nothing for
// the cancelled id arrives before it or after it until the session ends.
func TestSleepCancelled(t *testing.T) {
	t.Parallel()
	for _, id := range []string{`7`, `"sleep-7"`} {
		t.Run("id="+id, func(t *testing.T) {
			s := startSession(t, Options{LogInterval: -1})
			s.initialize(LatestProtocolVersion)
			s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":30},"_meta":{"progressToken":1}}}`, id))
			// The first progress shows the call is running.
			s.until(func(m message) bool { return m.Method == "notifications/progress" })
			s.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"test"}}`, id))
			s.request(99, "ping", nil)
			_, before := s.until(func(m message) bool { return m.isResponseTo("99") })
			for _, m := range append(before, s.rest()...) {
				if m.isResponseTo(id) {
					t.Errorf("cancelled request %s was answered: %s", id, m.raw)
				}
			}
		})
	}
}

// TestEOFMidSleep closes stdin while a long sleep runs: Run must return nil
// at once, stopping the sleep rather than waiting it out.
func TestEOFMidSleep(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{LogInterval: time.Hour})
	s.initialize(LatestProtocolVersion)
	s.request(1, "tools/call", map[string]any{"name": "sleep", "arguments": map[string]any{"seconds": 600}})
	// A ping answered while the sleep runs shows calls do not block the read loop.
	if m := s.call(2, "ping", nil); m.Error != nil {
		t.Fatalf("ping during sleep = %s", m.raw)
	}
	for _, m := range s.rest() {
		if m.isResponseTo("1") {
			t.Errorf("the interrupted sleep was answered: %s", m.raw)
		}
	}
}

// TestCancelledAtOnceNeverAnswered cancels calls in the same write that
// sends them, so the cancellation often arrives before the call has
// started: such a call is not answered either (go-sdk alone would answer
// it with an error).
func TestCancelledAtOnceNeverAnswered(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{LogInterval: -1})
	s.initialize(LatestProtocolVersion)
	var script strings.Builder
	for id := 1; id <= 20; id++ {
		fmt.Fprintf(&script, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":30}}}`+"\n", id)
		fmt.Fprintf(&script, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"test"}}`+"\n", id)
	}
	if _, err := io.WriteString(s.in, script.String()); err != nil {
		t.Fatal(err)
	}
	s.request(99, "ping", nil)
	_, before := s.until(func(m message) bool { return m.isResponseTo("99") })
	for _, m := range append(before, s.rest()...) {
		if m.isResponse() {
			t.Errorf("a cancelled call was answered: %s", m.raw)
		}
	}
}
