package record

import (
	stdjson "encoding/json"
	"reflect"
)

// A tool with structured output is asked by the specification to send the
// JSON of its structuredContent in a text block too, for clients that read
// only content; FastMCP and the Go SDK write that block themselves. The
// block says nothing structuredContent does not, so where answers are
// compared it is compared through structuredContent: a value that differs
// (a timestamp) is one difference, not two, and a path that leaves it out
// of structuredContent leaves it out of the block too.

// MirrorMarker stands, where answers are compared, for a text block that
// holds the JSON of its result's structuredContent.
const MirrorMarker = "<structuredContent as JSON>"

// StructuredMirrors returns the indexes in result's "content" of the text
// blocks whose text is the JSON of result's "structuredContent" (equal as
// JSON values, whatever the spacing or the order of members). result is a
// tool call's result as decoded JSON (numbers as float64 or json.Number).
func StructuredMirrors(result any) []int {
	res, _ := result.(map[string]any)
	sc, ok := res["structuredContent"]
	content, _ := res["content"].([]any)
	if !ok || sc == nil || len(content) == 0 {
		return nil
	}
	want, ok := plainJSON(sc)
	if !ok {
		return nil
	}
	var out []int
	for i, b := range content {
		block, _ := b.(map[string]any)
		text, isText := block["text"].(string)
		if block["type"] != "text" || !isText {
			continue
		}
		var got any
		if stdjson.Unmarshal([]byte(text), &got) == nil && reflect.DeepEqual(got, want) {
			out = append(out, i)
		}
	}
	return out
}

// plainJSON is v as encoding/json decodes it by default (numbers as
// float64), so that values decoded either way compare equal.
func plainJSON(v any) (any, bool) {
	b, err := stdjson.Marshal(v)
	if err != nil {
		return nil, false
	}
	var out any
	return out, stdjson.Unmarshal(b, &out) == nil
}

// markMirrors replaces, in both answers ({"result": …}), the text blocks
// that hold their own result's structuredContent in both, with
// MirrorMarker: they are then compared through structuredContent. A block
// that mirrors on one side only is left as it is: that is a difference.
func markMirrors(recorded, live any) {
	ra, _ := recorded.(map[string]any)
	la, _ := live.(map[string]any)
	rm, lm := StructuredMirrors(ra["result"]), StructuredMirrors(la["result"])
	for _, i := range rm {
		for _, j := range lm {
			if i == j {
				setText(ra["result"], i, MirrorMarker)
				setText(la["result"], i, MirrorMarker)
			}
		}
	}
}

// setText sets the text of content block i of result.
func setText(result any, i int, text string) {
	res, _ := result.(map[string]any)
	content, _ := res["content"].([]any)
	if i < len(content) {
		if block, ok := content[i].(map[string]any); ok {
			block["text"] = text
		}
	}
}
