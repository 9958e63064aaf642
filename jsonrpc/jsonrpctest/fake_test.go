//go:build unix

package jsonrpctest_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

func toolNames(t *testing.T, m wire) ([]string, string, map[string]json.RawMessage) {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("tools/list failed: %+v", m.Error)
	}
	var r struct {
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
		NextCursor string `json:"nextCursor"`
	}
	if err := json.Unmarshal(m.Result, &r); err != nil {
		t.Fatalf("decoding tools/list: %v", err)
	}
	var names []string
	schemas := map[string]json.RawMessage{}
	for _, tl := range r.Tools {
		names = append(names, tl.Name)
		schemas[tl.Name] = tl.InputSchema
		schemas[tl.Name+"#description"] = json.RawMessage(strconv.Quote(tl.Description))
	}
	return names, r.NextCursor, schemas
}

func TestNormalServer(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.Normal)

	init := f.call(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
		Capabilities    struct {
			Tools struct {
				ListChanged bool `json:"listChanged"`
			} `json:"tools"`
			Resources struct {
				Subscribe bool `json:"subscribe"`
			} `json:"resources"`
			Logging *struct{} `json:"logging"`
			Prompts *struct{} `json:"prompts"`
		} `json:"capabilities"`
		ServerInfo struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	if err := json.Unmarshal(init.Result, &ir); err != nil {
		t.Fatal(err)
	}
	if ir.ProtocolVersion != "2025-06-18" || ir.ServerInfo.Name != "fake-normal" || ir.ServerInfo.Version != "0.0.1" ||
		!ir.Capabilities.Tools.ListChanged || !ir.Capabilities.Resources.Subscribe || ir.Capabilities.Logging == nil || ir.Capabilities.Prompts == nil {
		t.Fatalf("initialize result %s", init.Result)
	}
	f.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	page1, cursor, schemas := toolNames(t, f.call(2, "tools/list", ""))
	if want := []string{"echo", "slow", "big"}; !slices.Equal(page1, want) || cursor != "page2" {
		t.Fatalf("page 1 = %v, cursor %q; want %v, cursor page2", page1, cursor, want)
	}
	page2, cursor, more := toolNames(t, f.call(3, "tools/list", `{"cursor":"page2"}`))
	if want := []string{"notify_changed", "flood", "crash", "fail"}; !slices.Equal(page2, want) || cursor != "" {
		t.Fatalf("page 2 = %v, cursor %q; want %v and no cursor", page2, cursor, want)
	}
	for name, s := range more {
		schemas[name] = s
	}
	for _, name := range append(page1, page2...) {
		var s struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(schemas[name], &s); err != nil || s.Type != "object" {
			t.Errorf("tool %s inputSchema %s is not an object schema", name, schemas[name])
		}
	}
	if m := f.call(4, "tools/list", `{"cursor":"bogus"}`); m.Error == nil || m.Error.Code != -32602 {
		t.Errorf("tools/list with a bad cursor = %+v, want -32602", m)
	}

	if text, isErr := toolText(t, f.call(5, "tools/call", `{"name":"echo","arguments":{"text":"hi there"}}`)); text != "hi there" || isErr {
		t.Errorf("echo = %q (isError %v), want %q", text, isErr, "hi there")
	}
	if text, isErr := toolText(t, f.call(6, "tools/call", `{"name":"echo","arguments":{}}`)); !isErr || !strings.Contains(text, `"text" is required`) {
		t.Errorf("echo without text = %q (isError %v), want an isError naming the field", text, isErr)
	}
	if text, isErr := toolText(t, f.call(7, "tools/call", `{"name":"echo","arguments":{"text":5}}`)); !isErr || !strings.Contains(text, `"text" must be a string`) {
		t.Errorf("echo with a number = %q (isError %v), want an isError naming the field", text, isErr)
	}
	if text, isErr := toolText(t, f.call(8, "tools/call", `{"name":"fail"}`)); !isErr || text == "" {
		t.Errorf("fail = %q (isError %v), want isError", text, isErr)
	}
	if text, _ := toolText(t, f.call(9, "tools/call", `{"name":"big","arguments":{"bytes":100000}}`)); len(text) != 100000 || strings.Trim(text, "x") != "" {
		t.Errorf("big returned %d bytes, want 100000 x's", len(text))
	}
	if m := f.call(10, "tools/call", `{"name":"nope"}`); m.Error == nil || m.Error.Code != -32602 || m.Error.Message != "unknown tool: nope" {
		t.Errorf("unknown tool = %+v, want -32602 unknown tool: nope", m.Error)
	}
	if m := f.call(11, "ping", ""); m.Error != nil || string(m.Result) != "{}" {
		t.Errorf("ping = %s %+v, want {}", m.Result, m.Error)
	}
	if m := f.call(12, "no/such/method", ""); m.Error == nil || m.Error.Code != -32601 {
		t.Errorf("unknown method = %+v, want -32601", m.Error)
	}
	for i, method := range []string{"prompts/list", "resources/list", "logging/setLevel"} {
		if m := f.call(20+i, method, `{"level":"debug"}`); m.Error != nil {
			t.Errorf("%s failed: %+v", method, m.Error)
		}
	}

	f.request(30, "tools/call", `{"name":"notify_changed"}`)
	m, skipped := f.response("30")
	if len(skipped) != 1 || skipped[0].Method != "notifications/tools/list_changed" {
		t.Errorf("notify_changed sent %+v before answering, want one list_changed", skipped)
	}
	if text, _ := toolText(t, m); text != "ok" {
		t.Errorf("notify_changed = %q, want ok", text)
	}

	f.send("this is not json")
	if m := f.next(); m.Error == nil || m.Error.Code != -32700 {
		t.Errorf("a garbage line got %+v, want a -32700 parse error", m)
	}

	if err := f.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	if code := f.exitCode(); code != 0 {
		t.Errorf("exit status at stdin EOF = %d, want 0", code)
	}
}

func TestVersionNegotiation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode      jsonrpctest.Mode
		requested string
		want      string
	}{
		{jsonrpctest.Normal, "2024-11-05", "2024-11-05"},
		{jsonrpctest.Normal, "2030-01-01", "2025-11-25"},
		{jsonrpctest.VersionBad, "2025-11-25", "1999-01-01"},
	} {
		t.Run(string(tc.mode)+"/"+tc.requested, func(t *testing.T) {
			f := start(t, tc.mode)
			m := f.call(1, "initialize", fmt.Sprintf(`{"protocolVersion":%q}`, tc.requested))
			var r struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if err := json.Unmarshal(m.Result, &r); err != nil || r.ProtocolVersion != tc.want {
				t.Errorf("negotiated %q (%v), want %q", r.ProtocolVersion, err, tc.want)
			}
		})
	}
}

// TestSlowProgressAndCancel proves that slow reports progress, that a cancelled call is
// never answered, and that a slow call does not hold up ping. The uncancelled call is
// started after the cancelled one and takes twice as long, so its response marks the
// point by which the cancelled one would have been answered.
func TestSlowProgressAndCancel(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.Normal)
	f.initialize()

	f.request(2, "tools/call", `{"name":"slow","arguments":{"seconds":0.3},"_meta":{"progressToken":"tok"}}`)
	m := f.next()
	var p struct {
		ProgressToken string  `json:"progressToken"`
		Progress      float64 `json:"progress"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil || m.Method != "notifications/progress" || p.ProgressToken != "tok" || p.Progress < 1 {
		t.Fatalf("first message after slow = %s %s, want progress for tok", m.Method, m.Params)
	}
	f.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"user"}}`)
	f.stderrLine("cancelled 2 user")

	f.request(3, "tools/call", `{"name":"slow","arguments":{"seconds":0.6}}`)
	if m := f.call(4, "ping", ""); m.Error != nil {
		t.Fatalf("ping during a slow call: %+v", m.Error)
	}
	m, skipped := f.response("3")
	for _, s := range skipped {
		if string(s.ID) == "2" {
			t.Fatalf("the cancelled request 2 was answered: %+v", s)
		}
	}
	if text, _ := toolText(t, m); text != "slept 0.6s" {
		t.Errorf("slow = %q", text)
	}
}

func TestFloodTool(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.Normal)
	f.initialize()
	f.request(1, "tools/call", `{"name":"flood","arguments":{"count":500}}`)
	m, skipped := f.response("1")
	if len(skipped) != 500 {
		t.Fatalf("flood sent %d messages before answering, want 500", len(skipped))
	}
	for i, s := range skipped {
		var p struct {
			Level  string         `json:"level"`
			Logger string         `json:"logger"`
			Data   map[string]int `json:"data"`
		}
		if err := json.Unmarshal(s.Params, &p); err != nil || s.Method != "notifications/message" || p.Level != "info" || p.Logger != "flood" || p.Data["seq"] != i {
			t.Fatalf("flood message %d = %s %s", i, s.Method, s.Params)
		}
	}
	if text, _ := toolText(t, m); text != "done" {
		t.Errorf("flood answered %q, want done", text)
	}
}

func TestFloodMode(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.Flood, jsonrpctest.WithCount(2000))
	f.initialize()
	f.request(1, "ping", "")
	_, skipped := f.response("1")
	if len(skipped) != 2000 {
		t.Fatalf("flood mode sent %d notifications before answering ping, want 2000", len(skipped))
	}
}

func TestCrashTool(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.Normal)
	f.initialize()
	f.request(1, "tools/call", `{"name":"crash"}`)
	f.stderrLine("crashing on purpose")
	if code := f.exitCode(); code != 3 {
		t.Errorf("exit status = %d, want 3", code)
	}
}

func TestCrashOnCall(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.CrashOnCall)
	f.initialize()
	if m := f.call(1, "ping", ""); m.Error != nil {
		t.Fatalf("ping before the crash: %+v", m.Error)
	}
	f.request(2, "tools/call", `{"name":"echo","arguments":{"text":"x"}}`)
	f.stderrLine("crash-on-call")
	if code := f.exitCode(); code != 3 {
		t.Errorf("exit status = %d, want 3", code)
	}
	for l := range f.stdout {
		t.Errorf("the crashing server answered: %s", l)
	}
}

func TestWrongID(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.WrongID)
	f.initialize()
	f.request(7, "tools/call", `{"name":"echo","arguments":{"text":"x"}}`)
	if m := f.next(); string(m.ID) != "1007" || m.Method != "" {
		t.Fatalf("tools/call 7 answered with id %s, want 1007", m.ID)
	}
	f.request(8, "ping", "")
	if m := f.next(); string(m.ID) != "8" {
		t.Fatalf("ping 8 answered with id %s, want 8", m.ID)
	}
}
