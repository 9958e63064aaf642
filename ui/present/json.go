package present

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
)

// CompactJSON is raw JSON on one line, clean for display. Invalid JSON is
// shown as its (cleaned) text.
func CompactJSON(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return Line(string(raw))
	}
	return Line(b.String())
}

// JSONText is a JSON value for one line: a string as itself (log data is
// most often a message), anything else compact.
func JSONText(raw []byte) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return Line(s)
	}
	return CompactJSON(raw)
}

// PrettyJSON indents raw for a viewer, clean for display; invalid JSON is
// shown as its cleaned text.
func PrettyJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return Block(string(raw))
	}
	return Block(b.String())
}

// WriteJSON writes v as indented JSON and a newline: the machine output of
// every --json flag. Struct fields keep their order and map keys are
// sorted, so the output is stable for scripts and golden files. It stays
// faithful (the same values) and valid, and is safe on a terminal too:
// invalid UTF-8 is replaced and the characters a terminal would act on
// are written as \u escapes (see EscapeJSON).
func WriteJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	if _, err := w.Write(EscapeJSON(b.Bytes())); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// MarshalLine is v as one line of JSON (no newline), escaped as WriteJSON
// does: the form of streamed --json output.
func MarshalLine(v any) ([]byte, error) {
	b, err := mcp.Marshal(v)
	if err != nil {
		return nil, err
	}
	return EscapeJSON(b), nil
}

// EscapeJSON rewrites encoded JSON so that C1 controls, bidi controls and
// line separators, which encoding/json leaves raw in strings, are \u
// escapes: the same JSON value, but nothing a terminal acts on. Such
// characters can only stand inside strings, so a plain rewrite is exact.
func EscapeJSON(data []byte) []byte {
	if safe(string(data), true) {
		return data
	}
	var b bytes.Buffer
	b.Grow(len(data) + 16)
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`) // encoding/json already replaced these; raw messages may not have
		case invisibleControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.Write(data[i : i+size])
		}
		i += size
	}
	return b.Bytes()
}

// Member is one member of a JSON object, ready for one line: its key and
// its value compact, both clean for display.
type Member struct{ Key, Value string }

// Members are the members of a JSON object in the order the sender wrote
// them, for a compact view of a _meta or annotations object; nil when raw
// is not an object (CompactJSON shows that).
func Members(raw []byte) []Member {
	var out []Member
	for _, m := range jsonrpc.Members(raw) {
		out = append(out, Member{Key: Line(m.Key), Value: CompactJSON(m.Value)})
	}
	return out
}
