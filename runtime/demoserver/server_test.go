package demoserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"mcpdeck/runtime/mcp"
)

func TestInitializeNegotiatesVersion(t *testing.T) {
	t.Parallel()
	cases := []struct{ requested, want string }{
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05"},
		{"2099-01-01", LatestProtocolVersion},
		{"", LatestProtocolVersion},
	}
	for _, tc := range cases {
		t.Run("requested="+tc.requested, func(t *testing.T) {
			s := startSession(t, Options{LogInterval: -1})
			r := s.initialize(tc.requested)
			if r.ProtocolVersion != tc.want {
				t.Errorf("protocolVersion = %q, want %q", r.ProtocolVersion, tc.want)
			}
			if r.ServerInfo.Name != DefaultName || r.ServerInfo.Version == "" || r.ServerInfo.Title == "" {
				t.Errorf("serverInfo = %+v, want name %q with a title and a version", r.ServerInfo, DefaultName)
			}
			c := r.Capabilities
			if !c.Tools.ListChanged || c.Prompts.ListChanged || !c.Resources.Subscribe || c.Resources.ListChanged {
				t.Errorf("capabilities = %+v", c)
			}
			if r.Instructions == "" {
				t.Error("instructions are empty")
			}
		})
	}
}

// TestInitializeWireShape checks the raw JSON, which the typed decode above
// cannot: logging must be present as an empty object.
func TestInitializeWireShape(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{LogInterval: -1, Name: "custom", Version: "v9"})
	m := s.call(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "x", "version": "0"}})
	var r struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
		ServerInfo   mcp.Implementation         `json:"serverInfo"`
	}
	if err := json.Unmarshal(m.Result, &r); err != nil {
		t.Fatal(err)
	}
	if got := string(r.Capabilities["logging"]); got != "{}" {
		t.Errorf("capabilities.logging = %s, want {}", got)
	}
	if r.ServerInfo.Name != "custom" || r.ServerInfo.Version != "v9" {
		t.Errorf("serverInfo = %+v, want the name and version from Options", r.ServerInfo)
	}
}

func TestPing(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{LogInterval: -1})
	m := s.call(5, "ping", nil)
	if m.Error != nil || string(m.Result) != "{}" {
		t.Errorf("ping = %s, want result {}", m.raw)
	}
	// String ids must come back as strings.
	s.send(`{"jsonrpc":"2.0","id":"abc","method":"ping"}`)
	m, _ = s.until(func(m message) bool { return m.isResponse() })
	if string(m.ID) != `"abc"` {
		t.Errorf("response id = %s, want \"abc\"", m.ID)
	}
}

func TestUnknownMethod(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{LogInterval: -1})
	s.initialize(LatestProtocolVersion)
	m := s.call(1, "tools/explode", map[string]any{})
	if m.Error == nil || m.Error.Code != -32601 {
		t.Fatalf("tools/explode = %s, want error -32601", m.raw)
	}
	if !strings.Contains(m.Error.Message, "tools/explode") {
		t.Errorf("error message %q does not name the method", m.Error.Message)
	}
}

// TestNotificationsGetNoReply sends unknown and known notifications and
// then a ping: the ping's response must be the first thing to come back.
func TestNotificationsGetNoReply(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{LogInterval: -1})
	s.notify("notifications/whatever", map[string]any{"x": 1})
	s.notify("notifications/roots/list_changed", nil)
	s.notify("notifications/cancelled", map[string]any{"requestId": 12345})
	s.request(1, "ping", nil)
	if m := s.next(); !m.isResponseTo("1") {
		t.Errorf("first message = %s, want the ping response", m.raw)
	}
}

func TestMalformedLines(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{LogInterval: -1})
	s.send(`this is not json`)
	m := s.next()
	if m.Error == nil || m.Error.Code != -32700 || string(m.ID) != "null" {
		t.Errorf("garbage line = %s, want error -32700 with id null", m.raw)
	}
	s.send(`{"jsonrpc":"2.0","id":3}`)
	m = s.next()
	if m.Error == nil || m.Error.Code != -32600 {
		t.Errorf("message without method = %s, want error -32600", m.raw)
	}
	s.send(``)
	// The session survives both.
	if m := s.call(4, "ping", nil); m.Error != nil {
		t.Errorf("ping after malformed lines = %s", m.raw)
	}
}

func TestSetLevelFiltersHeartbeat(t *testing.T) {
	t.Parallel()
	const interval = 20 * time.Millisecond
	s := startSession(t, Options{LogInterval: interval})
	s.initialize(LatestProtocolVersion)
	isLog := func(m message) bool { return m.Method == "notifications/message" }

	hb, _ := s.until(isLog)
	var p struct {
		Level  string    `json:"level"`
		Logger string    `json:"logger"`
		Data   heartbeat `json:"data"`
	}
	if err := json.Unmarshal(hb.Params, &p); err != nil {
		t.Fatal(err)
	}
	if p.Level != "info" || p.Logger != "demo" || p.Data.Msg != "heartbeat" {
		t.Errorf("heartbeat = %s, want level info, logger demo, msg heartbeat", hb.raw)
	}

	if m := s.call(1, "logging/setLevel", map[string]any{"level": "nope"}); m.Error == nil || m.Error.Code != -32602 {
		t.Errorf("setLevel nope = %s, want error -32602", m.raw)
	}
	if m := s.call(2, "logging/setLevel", map[string]any{"level": "warning"}); m.Error != nil {
		t.Fatalf("setLevel warning = %s", m.raw)
	}
	// Watch for ten intervals: any log message now would be a filtering bug.
	window := time.After(10 * interval)
watch:
	for {
		select {
		case m := <-s.lines:
			if isLog(m) {
				t.Fatalf("got %s after logging/setLevel warning", m.raw)
			}
		case <-window:
			break watch
		}
	}

	// Back at info the heartbeat resumes, which shows it kept ticking.
	if m := s.call(3, "logging/setLevel", map[string]any{"level": "info"}); m.Error != nil {
		t.Fatalf("setLevel info = %s", m.raw)
	}
	s.until(isLog)
}

func TestDebugLogPerToolCall(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{LogInterval: -1})
	s.initialize(LatestProtocolVersion)
	echo := map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}

	s.request(1, "tools/call", echo)
	_, before := s.until(func(m message) bool { return m.isResponseTo("1") })
	for _, m := range before {
		if m.Method == "notifications/message" {
			t.Errorf("at level info the server sent %s", m.raw)
		}
	}

	s.call(2, "logging/setLevel", map[string]any{"level": "debug"})
	s.request(3, "tools/call", echo)
	_, before = s.until(func(m message) bool { return m.isResponseTo("3") })
	found := false
	for _, m := range before {
		if m.Method == "notifications/message" && strings.Contains(string(m.Params), `"level":"debug"`) &&
			strings.Contains(string(m.Params), `"tool":"echo"`) {
			found = true
		}
	}
	if !found {
		t.Errorf("at level debug no debug log for the echo call among %d messages", len(before))
	}
}

func TestPromptsAndResources(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{LogInterval: -1})
	s.initialize(LatestProtocolVersion)

	var prompts struct{ Prompts []prompt }
	s.result(1, "prompts/list", nil, &prompts)
	if len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != "greet" || !prompts.Prompts[0].Arguments[0].Required {
		t.Errorf("prompts/list = %+v, want greet with a required argument", prompts)
	}
	var got struct {
		Messages []promptMessage `json:"messages"`
	}
	s.result(2, "prompts/get", map[string]any{"name": "greet", "arguments": map[string]any{"name": "Ada"}}, &got)
	if len(got.Messages) != 1 || got.Messages[0].Role != "user" || !strings.Contains(got.Messages[0].Content.Text, "Ada") {
		t.Errorf("prompts/get greet = %+v, want one user message naming Ada", got)
	}
	if m := s.call(3, "prompts/get", map[string]any{"name": "greet"}); m.Error == nil || m.Error.Code != -32602 || !strings.Contains(m.Error.Message, `"name"`) {
		t.Errorf("prompts/get without name = %s, want -32602 naming the argument", m.raw)
	}
	if m := s.call(4, "prompts/get", map[string]any{"name": "nope"}); m.Error == nil || m.Error.Code != -32602 {
		t.Errorf("prompts/get nope = %s, want -32602", m.raw)
	}

	var resources struct{ Resources []resource }
	s.result(5, "resources/list", nil, &resources)
	if len(resources.Resources) != 1 || resources.Resources[0].URI != StatusURI || resources.Resources[0].MimeType != "text/plain" {
		t.Errorf("resources/list = %+v", resources)
	}
	var templates struct {
		ResourceTemplates []resourceTemplate `json:"resourceTemplates"`
	}
	s.result(6, "resources/templates/list", nil, &templates)
	if len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != GreetingTemplate {
		t.Errorf("resources/templates/list = %+v, want the greeting template", templates)
	}
	var greeting struct{ Contents []resourceContents }
	s.result(61, "resources/read", map[string]any{"uri": "demo://greeting/Ada"}, &greeting)
	if len(greeting.Contents) != 1 || greeting.Contents[0].Text != "Hello, Ada!\n" {
		t.Errorf("read a greeting = %+v", greeting)
	}
	var comp struct {
		Completion struct {
			Values []string
			Total  int
		}
	}
	s.result(62, "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "greet"},
		"argument": map[string]any{"name": "name", "value": "a"}}, &comp)
	if strings.Join(comp.Completion.Values, ",") != "Ada,Alan" || comp.Completion.Total != 2 {
		t.Errorf("completion of the greet prompt's name = %+v", comp)
	}
	s.result(63, "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": GreetingTemplate},
		"argument": map[string]any{"name": "name", "value": "GR"}}, &comp)
	if strings.Join(comp.Completion.Values, ",") != "Grace" {
		t.Errorf("completion of the template's name = %+v", comp)
	}
	if m := s.call(64, "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "nope"},
		"argument": map[string]any{"name": "name", "value": ""}}); m.Error == nil || m.Error.Code != -32602 {
		t.Errorf("completion of an unknown prompt = %s, want -32602", m.raw)
	}

	s.call(7, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}})
	var read struct{ Contents []resourceContents }
	s.result(8, "resources/read", map[string]any{"uri": StatusURI}, &read)
	if len(read.Contents) != 1 || read.Contents[0].URI != StatusURI {
		t.Fatalf("resources/read = %+v", read)
	}
	text := read.Contents[0].Text
	for _, want := range []string{"uptime:", "protocol: " + LatestProtocolVersion, "tool calls: 1", "echo 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("status text %q lacks %q", text, want)
		}
	}
	m := s.call(9, "resources/read", map[string]any{"uri": "demo://nope"})
	if m.Error == nil || m.Error.Code != -32002 || !strings.Contains(string(m.Error.Data), "demo://nope") {
		t.Errorf("resources/read demo://nope = %s, want -32002 with the uri in data", m.raw)
	}
}

func TestResourceSubscription(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{LogInterval: -1})
	s.initialize(LatestProtocolVersion)
	isUpdate := func(m message) bool { return m.Method == "notifications/resources/updated" }
	echo := map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}}

	if m := s.call(1, "resources/subscribe", map[string]any{"uri": "demo://nope"}); m.Error == nil || m.Error.Code != -32002 {
		t.Errorf("subscribe demo://nope = %s, want -32002", m.raw)
	}
	if m := s.call(2, "resources/subscribe", map[string]any{"uri": StatusURI}); m.Error != nil {
		t.Fatalf("subscribe = %s", m.raw)
	}
	s.request(3, "tools/call", echo)
	upd, _ := s.until(isUpdate)
	if !strings.Contains(string(upd.Params), StatusURI) {
		t.Errorf("update = %s, want the status uri", upd.raw)
	}
	s.until(func(m message) bool { return m.isResponseTo("3") })

	if m := s.call(4, "resources/unsubscribe", map[string]any{"uri": StatusURI}); m.Error != nil {
		t.Fatalf("unsubscribe = %s", m.raw)
	}
	s.request(5, "tools/call", echo)
	_, before := s.until(func(m message) bool { return m.isResponseTo("5") })
	for _, m := range before {
		if isUpdate(m) {
			t.Errorf("got %s after unsubscribe", m.raw)
		}
	}
}

func TestEOFReturnsNil(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{})
	s.initialize(LatestProtocolVersion)
	s.rest()
}

func TestContextCancelStopsRun(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{LogInterval: -1})
	s.initialize(LatestProtocolVersion)
	s.request(1, "tools/call", map[string]any{"name": "sleep", "arguments": map[string]any{"seconds": 60}})
	s.cancel()
	if err := s.wait(); !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v after ctx cancel, want context.Canceled", err)
	}
}

// TestWriteFailureEndsSession closes the pipe the server writes to: the
// next write fails, and Run reports it instead of running on deaf.
func TestWriteFailureEndsSession(t *testing.T) {
	t.Parallel()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	defer inW.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outW.Close()
	outR.Close()

	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), inR, outW, Options{LogInterval: -1}) }()
	if _, err := inW.WriteString(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, ErrTransport) {
			t.Errorf("Run = %v, want an error wrapping ErrTransport", err)
		}
	case <-time.After(waitFor):
		t.Fatal("Run kept running after its output pipe broke")
	}
}

// TestShutdownWhileClientNotReading ends sessions whose client stopped
// reading, so the server's writes are stuck on a full pipe: neither stdin EOF
// nor ctx cancellation may hang on them.
func TestShutdownWhileClientNotReading(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"eof", "cancel"} {
		t.Run(how, func(t *testing.T) {
			inR, inW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer inR.Close()
			defer inW.Close()
			outR, outW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer outR.Close()
			defer outW.Close()

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- Run(ctx, inR, outW, Options{LogInterval: time.Millisecond}) }()
			// Each echo answer is larger than a pipe buffer. Writing the
			// second request completes only once the server is reading it,
			// by which time the first answer is filling the unread pipe.
			big := strings.Repeat("x", 200<<10)
			inW.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
			for id := 1; id <= 2; id++ {
				line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`+"\n", id, big)
				if _, err := inW.WriteString(line); err != nil {
					t.Fatal(err)
				}
			}
			want := error(nil)
			if how == "eof" {
				inW.Close()
			} else {
				cancel()
				want = context.Canceled
			}
			select {
			case err := <-done:
				if !errors.Is(err, want) {
					t.Errorf("Run = %v, want %v", err, want)
				}
			case <-time.After(waitFor):
				t.Fatal("Run hung on writes to a client that stopped reading")
			}
		})
	}
}

// TestAnswersWhatWasReadBeforeEOF pipes a whole script and closes stdin at
// once, as `printf … | mcpdeck demo-server` does: every request read before
// EOF is answered, in the order the server finished them, before Run ends.
func TestAnswersWhatWasReadBeforeEOF(t *testing.T) {
	t.Parallel()
	for range 20 {
		s := startSession(t, Options{LogInterval: -1})
		// One write: the server reads the script and EOF back to back.
		script := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"0"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n" +
			`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"demo://greeting/Ada"}}` + "\n"
		if _, err := io.WriteString(s.in, script); err != nil {
			t.Fatal(err)
		}
		answered := map[string]bool{}
		for _, m := range s.rest() {
			if m.isResponse() {
				answered[string(m.ID)] = m.Error == nil
			}
		}
		if !answered["1"] || !answered["2"] || !answered["3"] {
			t.Fatalf("answered before the output ended: %v, want ids 1, 2 and 3 answered with results", answered)
		}
	}
}

// TestModernRequestRefused: the demo server speaks only the session
// revisions, and says so to a client probing for 2026-07-28 with the
// error that revision defines (-32022, naming what it supports), so the
// client knows to use initialize.
func TestModernRequestRefused(t *testing.T) {
	t.Parallel()
	s := startSession(t, Options{LogInterval: -1})
	m := s.call(1, "server/discover", map[string]any{"_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}})
	var data struct{ Supported []string }
	if m.Error == nil || m.Error.Code != -32022 || json.Unmarshal(m.Error.Data, &data) != nil ||
		strings.Join(data.Supported, ",") != strings.Join(SupportedProtocolVersions(), ",") {
		t.Fatalf("server/discover = %s, want -32022 listing %v", m.raw, SupportedProtocolVersions())
	}
	// The session revisions still work on the same connection.
	if r := s.initialize(LatestProtocolVersion); r.ProtocolVersion != LatestProtocolVersion {
		t.Errorf("initialize after the refusal = %+v", r)
	}
}
