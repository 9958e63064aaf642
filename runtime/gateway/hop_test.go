package gateway

import (
	"encoding/json"
	"testing"
)

// A server's result goes on with its own _meta keys as sent; the keys the
// protocol reserves for the hop (its serverInfo, a related task) do not.
func TestHopKeepsTheServersMeta(t *testing.T) {
	plain := json.RawMessage(`{"contents":[{"uri":"ui://a","text":"<p>","_meta":{"ui":{"prefersBorder":true}}}],"_meta":{"viewUUID":"v","ui":{"x":"<"}}}`)
	if got := hopResult(plain); string(got) != string(plain) {
		t.Fatalf("a result without reserved keys changed:\n%s\n%s", plain, got)
	}
	modern := json.RawMessage(`{"contents":[],"resultType":"complete","_meta":{"viewUUID":"v","io.modelcontextprotocol/serverInfo":{"name":"up","version":"1"},"io.modelcontextprotocol/related-task":{"taskId":"t"}}}`)
	var got struct {
		Contents   []any
		ResultType string
		Meta       map[string]any `json:"_meta"`
	}
	if err := json.Unmarshal(hopResult(modern), &got); err != nil || got.ResultType != "complete" || len(got.Meta) != 1 || got.Meta["viewUUID"] != "v" {
		t.Fatalf("hopResult: %+v %v", got, err)
	}
	if m := hopMeta(json.RawMessage(`{"io.modelcontextprotocol/serverInfo":{}}`)); m != nil {
		t.Fatalf("only reserved keys: %s", m)
	}
	if m := hopMeta(nil); m != nil {
		t.Fatalf("no _meta: %s", m)
	}
}
