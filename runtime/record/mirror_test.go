package record

import (
	"strings"
	"testing"
)

// A tool's text block that holds its structuredContent as JSON (as the
// specification asks, and FastMCP and the Go SDK write) is compared
// through structuredContent: a timestamp that differs is one difference,
// an ignore of it in structuredContent covers the block, and a block that
// stops holding structuredContent is still a difference.
func TestMirroredTextIsComparedThroughStructuredContent(t *testing.T) {
	recorded := []byte(`{"result":{"content":[{"type":"text","text":"{\"city\":\"Oslo\",\"temps\":[20],\"issued\":\"t1\"}"}],"structuredContent":{"city":"Oslo","temps":[20],"issued":"t1"}}}`)
	// Another spacing and order of members, and 20.0 for 20: the same JSON.
	live := []byte(`{"result":{"content":[{"type":"text","text":"{\n  \"issued\": \"t2\",\n  \"city\": \"Oslo\",\n  \"temps\": [20.0]\n}"}],"structuredContent":{"city":"Oslo","temps":[20],"issued":"t2"}}}`)
	diffs, err := CompareAnswers("tools/call", recorded, live, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(diffs) != 1 || diffs[0].Path != "/result/structuredContent/issued" {
		t.Errorf("differences = %v, want the one in structuredContent", diffs)
	}
	if diffs, _ := CompareAnswers("tools/call", recorded, live, []string{"result.structuredContent.issued"}); len(diffs) != 0 {
		t.Errorf("with structuredContent.issued ignored: %v, want none", diffs)
	}
	// The block no longer holds structuredContent: that is a difference.
	prose := []byte(`{"result":{"content":[{"type":"text","text":"Oslo: 20°"}],"structuredContent":{"city":"Oslo","temps":[20],"issued":"t1"}}}`)
	diffs, _ = CompareAnswers("tools/call", recorded, prose, nil)
	if len(diffs) != 1 || diffs[0].Path != "/result/content/0/text" || !strings.Contains(diffs[0].Live, "Oslo: 20°") {
		t.Errorf("a block that stopped mirroring: %v", diffs)
	}
	if got := StructuredMirrors(map[string]any{"content": []any{map[string]any{"type": "text", "text": "{}"}}}); got != nil {
		t.Errorf("no structuredContent: mirrors %v", got)
	}
}
