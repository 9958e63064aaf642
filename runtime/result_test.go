package runtime

import (
	"encoding/json"
	"reflect"
	"testing"

	"mcpdeck/runtime/mcp"
)

// The runtime decodes a tools/call result straight into Result (one
// allocation less on every call): its wire members must stay those of the
// vocabulary's CallToolResult, and what a server sends for the runtime's
// own members must not stick.
func TestResultDecodesTheVocabulary(t *testing.T) {
	raw := json.RawMessage(`{"content":[{"type":"text","text":"hi","annotations":{"priority":0.5},"_meta":{"k":1}},{"type":"resource_link","uri":"file:///a","name":"a","size":3}],
		"structuredContent":{"n":1},"isError":true,"_meta":{"viewUUID":"v"},"resultType":"complete",
		"truncated":true,"originalSize":9,"requestId":77,"duration":5,"rounds":3,"taskId":"t","structuredError":"x"}`)
	r, err := decodeResult(raw, DefaultResultLimit, nil)
	if err != nil {
		t.Fatal(err)
	}
	var w mcp.CallToolResult
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatal(err)
	}
	if want := ResultOf(w); !reflect.DeepEqual(*r, want) {
		t.Fatalf("decoded\n%+v\nthe vocabulary's\n%+v", *r, want)
	}
	// Every member of the vocabulary's result is a member of Result.
	fields := map[string]bool{}
	for f := range reflect.TypeFor[Result]().Fields() {
		fields[f.Tag.Get("json")] = true
	}
	for f := range reflect.TypeFor[mcp.CallToolResult]().Fields() {
		name := f.Tag.Get("json")
		if name == "resultType,omitempty" {
			continue // the runtime reads it before (mcp.TypeOf) and answers only complete results
		}
		if !fields[name] {
			t.Errorf("mcp.CallToolResult's %s is not a member of runtime.Result", name)
		}
	}
}
