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

// TestResultKeepsTheServersOwnMembers: a server's top-level result members
// outside the specification are kept as sent, in order, and written back
// by Result's JSON (call --json is promised faithful), the way _meta is;
// the specification's members, and one named as mcpdeck's own members
// are (requestId, duration, …), are not repeated.
func TestResultKeepsTheServersOwnMembers(t *testing.T) {
	t.Parallel()
	raw := json.RawMessage(`{"content":[{"type":"text","text":"hi"}],"cost":{"usd":0.25,"tokens":[1,2]},"_meta":{"k":1},"trace":"abc","requestId":77,"resultType":"complete"}`)
	r, err := decodeResult(raw, DefaultResultLimit, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.RequestID = 3
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"content":[{"type":"text","text":"hi"}],"_meta":{"k":1},"requestId":3,"duration":0,"cost":{"usd":0.25,"tokens":[1,2]},"trace":"abc"}`
	if string(b) != want {
		t.Fatalf("Result's JSON is\n%s\nwant\n%s", b, want)
	}
}
