package schema

import (
	"encoding/json"
	"fmt"
)

// MaxOutputBytes bounds the indented text of one schema that mcpdeck
// prints (`tools --json`, the tool detail). Indenting multiplies a deep
// schema: 186 KB nested 9,800 levels indents to 240 MB. Within CheckBounds
// a real schema indents to a little more than its size.
const MaxOutputBytes = 4 << 20

// OmittedKey is the one member of the object that stands in for a schema
// too large to print: {"x-mcpdeck-omitted": {"bytes": N, "nesting": D,
// "reason": "…"}}.
const OmittedKey = "x-mcpdeck-omitted"

// Omitted reports why raw is too large to print, or "" when it may be
// printed whole: over the bounds of CheckBounds, or over MaxOutputBytes
// once indented. It costs two linear scans.
func Omitted(raw json.RawMessage) string {
	if err := CheckBounds(raw); err != nil {
		return err.(*Error).Err.Error()
	}
	if n := IndentedSize(raw); n > MaxOutputBytes {
		return fmt.Sprintf("%s bytes once indented, over the %s-byte limit", thousands(n), thousands(MaxOutputBytes))
	}
	return ""
}

// ForOutput is raw as machine output prints it: raw itself, or, when
// Omitted says it is too large, a small object in its place that names its
// size, nesting and why. Scripts find the marker under OmittedKey.
func ForOutput(raw json.RawMessage) json.RawMessage {
	reason := Omitted(raw)
	if reason == "" {
		return raw
	}
	out, _ := json.Marshal(map[string]any{OmittedKey: map[string]any{
		"bytes": len(raw), "nesting": Nesting(raw), "reason": reason,
	}})
	return out
}

// IndentedSize is about how many bytes raw takes indented by two spaces a
// level, as json.Indent writes it (a little more for empty objects and
// arrays), without indenting it.
func IndentedSize(raw []byte) int {
	size, depth := 0, 0
	newline := func(d int) int { return 1 + 2*max(d, 0) }
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case ' ', '\t', '\n', '\r':
		case '"':
			start := i
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
			size += i - start + 1
		case '{', '[':
			depth++
			size += 1 + newline(depth)
		case '}', ']':
			depth--
			size += 1 + newline(depth)
		case ',':
			size += 1 + newline(depth)
		case ':':
			size += 2
		default:
			size++
		}
	}
	return size
}
