package mcp

//lint:file-ignore SA1019 the go-sdk values decoded here include logging, current in the session revisions (deprecated only in 2026-07-28)

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The wire samples in testdata/wire are results exactly as real servers
// sent them: server-everything (2026.8.31, 2025-11-25), and the TypeScript
// SDK v2 peer (jsonrpc/jsonrpctest/peers/ts-server.mjs) in both eras.
// Long text was cut and an image's base64 shortened; nothing else changed.
var samples = map[string]func() any{
	"everything-initialize-result.json":              func() any { return new(InitializeResult) },
	"everything-tools-list-result.json":              func() any { return new(ListToolsResult) },
	"everything-call-annotated-result.json":          func() any { return new(CallToolResult) },
	"everything-call-resource-links-result.json":     func() any { return new(CallToolResult) },
	"everything-call-resource-reference-result.json": func() any { return new(CallToolResult) },
	"ts2-legacy-initialize-result.json":              func() any { return new(InitializeResult) },
	"ts2-legacy-tools-list-result.json":              func() any { return new(ListToolsResult) },
	"ts2-legacy-call-app-result.json":                func() any { return new(CallToolResult) },
	"ts2-legacy-resources-list-result.json":          func() any { return new(ListResourcesResult) },
	"ts2-legacy-resources-read-result.json":          func() any { return new(ReadResourceResult) },
	"ts2-legacy-prompts-list-result.json":            func() any { return new(ListPromptsResult) },
	"ts2-legacy-prompts-get-result.json":             func() any { return new(GetPromptResult) },
	"ts2-modern-discover-result.json":                func() any { return new(DiscoverResult) },
	"ts2-modern-tools-list-result.json":              func() any { return new(ListToolsResult) },
	"ts2-modern-call-app-result.json":                func() any { return new(CallToolResult) },
	"ts2-modern-resources-list-result.json":          func() any { return new(ListResourcesResult) },
	"ts2-modern-resources-read-result.json":          func() any { return new(ReadResourceResult) },
	"ts2-modern-prompts-list-result.json":            func() any { return new(ListPromptsResult) },
	"ts2-modern-prompts-get-result.json":             func() any { return new(GetPromptResult) },
}

// sameJSON reports whether a and b hold the same JSON value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

// Every sample decodes into its type and encodes back to the same JSON:
// nothing a real server sent is lost on the way through the vocabulary,
// _meta, annotations, icons and unknown capabilities included.
func TestWireSamplesRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/wire/*.json")
	if len(files) != len(samples) {
		t.Fatalf("%d sample files, %d in the table: keep them together", len(files), len(samples))
	}
	for name, newV := range samples {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata/wire", name))
			if err != nil {
				t.Fatal(err)
			}
			v := newV()
			if err := json.Unmarshal(raw, v); err != nil {
				t.Fatalf("decoding: %v", err)
			}
			out, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("encoding: %v", err)
			}
			if !sameJSON(t, raw, out) {
				t.Fatalf("the round trip changed the result:\nsent %s\ngot  %s", raw, out)
			}
		})
	}
}

func readSample[T any](t *testing.T, name string) T {
	t.Helper()
	var v T
	raw, err := os.ReadFile(filepath.Join("testdata/wire", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// What an MCP App host needs is where it belongs once decoded, in both
// eras: the tool's _meta.ui, the result's _meta, a block's annotations
// and _meta.
func TestAppMetaDecoded(t *testing.T) {
	for _, era := range []string{"legacy", "modern"} {
		tools := readSample[ListToolsResult](t, "ts2-"+era+"-tools-list-result.json")
		var app *Tool
		for i := range tools.Tools {
			if tools.Tools[i].Name == "app" {
				app = &tools.Tools[i]
			}
		}
		if app == nil {
			t.Fatalf("%s: no app tool in %+v", era, tools.Tools)
		}
		var meta struct {
			UI struct {
				ResourceURI string   `json:"resourceUri"`
				Visibility  []string `json:"visibility"`
			} `json:"ui"`
		}
		if err := json.Unmarshal(app.Meta, &meta); err != nil || meta.UI.ResourceURI != "ui://peer/app.html" || len(meta.UI.Visibility) != 2 {
			t.Errorf("%s: tool _meta %s", era, app.Meta)
		}
		res := readSample[CallToolResult](t, "ts2-"+era+"-call-app-result.json")
		if v := MetaValue(res.Meta, "viewUUID"); string(v) != `"view-0001"` {
			t.Errorf("%s: result _meta %s", era, res.Meta)
		}
		if len(res.Content) != 1 || !strings.Contains(string(res.Content[0].Annotations), `"priority":0.5`) || string(res.Content[0].Meta) != `{"com.example/block":1}` {
			t.Errorf("%s: content %+v", era, res.Content)
		}
	}
	modern := readSample[CallToolResult](t, "ts2-modern-call-app-result.json")
	if modern.ResultType != Complete || MetaValue(modern.Meta, MetaServerInfo) == nil {
		t.Errorf("modern result: %+v", modern)
	}
	ev := readSample[CallToolResult](t, "everything-call-annotated-result.json")
	if len(ev.Content) < 2 || !strings.Contains(string(ev.Content[0].Annotations), `"audience":["user","assistant"]`) {
		t.Errorf("server-everything's annotated message: %+v", ev.Content)
	}
	links := readSample[CallToolResult](t, "everything-call-resource-links-result.json")
	if l := links.Content[1]; l.Type != ContentResourceLink || l.URI == "" || l.Name == "" || l.Description == "" {
		t.Errorf("resource link %+v", l)
	}
}

// The capabilities a server declares marshal back as it sent them, those
// mcpdeck does not model among them (server-everything's 2025-11-25 tasks).
func TestServerCapabilitiesKeepWhatWasSent(t *testing.T) {
	init := readSample[InitializeResult](t, "everything-initialize-result.json")
	if !init.Capabilities.LegacyTasks.ToolCalls() || init.Capabilities.Resources == nil || !init.Capabilities.Resources.Subscribe {
		t.Fatalf("capabilities %+v", init.Capabilities)
	}
	raw := json.RawMessage(`{"tools":{},"experimental":{"x":{"y":1}},"io.example/unknown":{"z":[1]}}`)
	var c ServerCapabilities
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(c)
	if !sameJSON(t, raw, out) || !sameJSON(t, raw, c.JSON()) {
		t.Fatalf("capabilities changed: %s", out)
	}
	// A shape the schema does not give fails neither the capabilities nor
	// the initialize result around them: a client is lenient.
	var init2 InitializeResult
	if err := json.Unmarshal([]byte(`{"protocolVersion":"2025-06-18","capabilities":{"tools":true,"logging":{}},"serverInfo":{"name":"s","version":"1"}}`), &init2); err != nil {
		t.Fatalf("a boolean capability failed the result: %v", err)
	}
	if string(init2.Capabilities.Raw) != `{"tools":true,"logging":{}}` || init2.ServerInfo.Name != "s" {
		t.Fatalf("lenient capabilities: %+v", init2)
	}
	// Members mcpdeck only passes on are kept raw: a malformed one (icons
	// of the wrong shape, a size that is not an integer) fails nothing.
	var page ListToolsResult
	if err := json.Unmarshal([]byte(`{"tools":[{"name":"t","inputSchema":{"type":"object"},"icons":"not-an-array","_meta":[1]}]}`), &page); err != nil ||
		string(page.Tools[0].Icons) != `"not-an-array"` || string(page.Tools[0].Meta) != `[1]` {
		t.Fatalf("a tool with odd icons: %v %+v", err, page)
	}
	var res ListResourcesResult
	if err := json.Unmarshal([]byte(`{"resources":[{"uri":"a:b","name":"b","size":12.5}]}`), &res); err != nil || string(res.Resources[0].Size) != `12.5` {
		t.Fatalf("a resource with a fractional size: %v %+v", err, res)
	}
	built, _ := json.Marshal(ServerCapabilities{Tools: &ListChangedCapability{ListChanged: true}, Logging: &Empty{}})
	if string(built) != `{"tools":{"listChanged":true},"logging":{}}` {
		t.Fatalf("built capabilities: %s", built)
	}
}

// The go-sdk (v1.8.0) writes its protocol types with encoding/json; what
// it writes decodes into the vocabulary and encodes back the same.
func TestGoSDKShapesRoundTrip(t *testing.T) {
	for name, v := range map[string]any{
		"tool": &sdk.Tool{Name: "app", Title: "App", Description: "d", InputSchema: map[string]any{"type": "object"},
			Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, Title: "hint"},
			Meta:        sdk.Meta{"ui": map[string]any{"resourceUri": "ui://go/app.html", "visibility": []string{"app"}}},
			Icons:       []sdk.Icon{{Source: "https://example.com/i.png", MIMEType: "image/png", Sizes: []string{"48x48"}}}},
		"result": &sdk.CallToolResult{Meta: sdk.Meta{"viewUUID": "v-1"}, Content: []sdk.Content{
			&sdk.TextContent{Text: "", Meta: sdk.Meta{"k": 1}, Annotations: &sdk.Annotations{Audience: []sdk.Role{"user"}, Priority: 0.25}},
			&sdk.ImageContent{Data: []byte{1, 2, 3}, MIMEType: "image/png"},
			&sdk.ResourceLink{URI: "file:///a", Name: "a", Title: "A", Size: new(int64(3))},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///b", MIMEType: "text/plain", Text: "b", Meta: sdk.Meta{"m": true}}},
		}, StructuredContent: map[string]any{"n": 1}, IsError: true},
		"resource": &sdk.Resource{URI: "ui://go/app.html", Name: "view", MIMEType: "text/html;profile=mcp-app", Size: 10,
			Annotations: &sdk.Annotations{Priority: 1}, Meta: sdk.Meta{"ui": map[string]any{"prefersBorder": true}}},
		"prompt": &sdk.Prompt{Name: "review", Title: "Review", Arguments: []*sdk.PromptArgument{{Name: "code", Title: "Code", Required: true}},
			Meta: sdk.Meta{"com.example/owner": "go"}},
		"initialize": &sdk.InitializeResult{ProtocolVersion: "2025-11-25", ServerInfo: &sdk.Implementation{Name: "go", Version: "1", WebsiteURL: "https://example.com"},
			Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}, Logging: &sdk.LoggingCapabilities{}}, Instructions: "hi"},
	} {
		t.Run(name, func(t *testing.T) {
			raw, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			var ours any
			switch name {
			case "tool":
				ours = new(Tool)
			case "result":
				ours = new(CallToolResult)
			case "resource":
				ours = new(Resource)
			case "prompt":
				ours = new(Prompt)
			case "initialize":
				ours = new(InitializeResult)
			}
			if err := json.Unmarshal(raw, ours); err != nil {
				t.Fatalf("decoding %s: %v", raw, err)
			}
			out, _ := json.Marshal(ours)
			if !sameJSON(t, raw, out) {
				t.Fatalf("go-sdk wrote %s\nthe vocabulary gives back %s", raw, out)
			}
		})
	}
}

// A block marshals with the members its type requires even when empty,
// as clients validate them.
func TestContentRequiredMembers(t *testing.T) {
	for _, tc := range []struct {
		c    Content
		want string
	}{
		{Content{Type: ContentText}, `{"type":"text","text":""}`},
		{Content{Type: ContentText, Text: "a", Meta: json.RawMessage(`{"k":1}`)}, `{"type":"text","text":"a","_meta":{"k":1}}`},
		{Content{Type: ContentImage, MIMEType: "image/png"}, `{"type":"image","mimeType":"image/png","data":""}`},
		{Content{Type: ContentResourceLink, URI: "file:///a"}, `{"type":"resource_link","uri":"file:///a","name":""}`},
		{Content{Type: ContentResource, Resource: &ResourceContents{URI: "file:///a"}}, `{"type":"resource","resource":{"uri":"file:///a","text":""}}`},
	} {
		got, err := json.Marshal(tc.c)
		if err != nil || !sameJSON(t, got, []byte(tc.want)) {
			t.Errorf("%+v: %s %v, want %s", tc.c, got, err, tc.want)
		}
	}
}

func TestReservedMetaKeys(t *testing.T) {
	for key, reserved := range map[string]bool{
		"progressToken": true, "traceparent": true, "tracestate": true, "baggage": true,
		MetaProtocolVersion: true, MetaServerInfo: true, "io.modelcontextprotocol/related-task": true,
		"dev.mcp/x": true, "org.modelcontextprotocol.api/y": true, "com.mcp.tools/z": true,
		"com.example.mcp/a": false, "com.example/note": false, "ui": false, "viewUUID": false, "mcp/x": false, "": false,
	} {
		if got := ReservedMetaKey(key); got != reserved {
			t.Errorf("ReservedMetaKey(%q) = %v, want %v", key, got, reserved)
		}
	}
	got := ForeignMeta(json.RawMessage(`{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28","traceparent":"00-x","com.example/note":"hi","ui":{"a":1}}`))
	if len(got) != 2 || string(got["com.example/note"]) != `"hi"` || string(got["ui"]) != `{"a":1}` {
		t.Fatalf("ForeignMeta kept %v", got)
	}
	if ForeignMeta(json.RawMessage(`{"progressToken":1}`)) != nil || ForeignMeta(json.RawMessage(`[1]`)) != nil {
		t.Fatal("ForeignMeta of nothing foreign is not nil")
	}
	set := SetMeta(json.RawMessage(`{"viewUUID":"v","x":{"y":"<"}}`), MetaServerInfo, json.RawMessage(`{"name":"g","version":"1"}`))
	if !sameJSON(t, set, []byte(`{"viewUUID":"v","x":{"y":"<"},"io.modelcontextprotocol/serverInfo":{"name":"g","version":"1"}}`)) || strings.Contains(string(set), `\u003c`) {
		t.Fatalf("SetMeta: %s", set)
	}
	if m := MetaOf(json.RawMessage(`{"name":"t","_meta":{"progressToken":"p"}}`)); string(MetaValue(m, MetaProgressToken)) != `"p"` {
		t.Fatalf("MetaOf/MetaValue: %s", m)
	}
	if HasMeta(json.RawMessage(`{ }`)) || !HasMeta(json.RawMessage(`{"a":1}`)) || HasMeta(nil) {
		t.Fatal("HasMeta")
	}
}

func TestLogLevelOrder(t *testing.T) {
	if LevelRank("debug") != 0 || LevelRank("emergency") != 7 || LevelRank("verbose") != len(LogLevels) {
		t.Fatal("ranks")
	}
	if LogLevel("warn").Known() || !LogLevel("notice").Known() {
		t.Fatal("known")
	}
	if _, err := ParseLogLevel("loud"); err == nil || !strings.Contains(err.Error(), "debug, info, notice") {
		t.Fatalf("ParseLogLevel: %v", err)
	}
	if got := LevelNames(); len(got) != 8 || got[3] != "warning" {
		t.Fatalf("LevelNames %v", got)
	}
}
