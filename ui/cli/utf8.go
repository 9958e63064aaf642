package cli

import (
	"encoding/json"
	"unicode/utf8"
)

// replacement is U+FFFD as UTF-8: what every byte sequence that is not
// UTF-8 becomes in output.
const replacement = "\uFFFD"

// fixUTF8 returns b with each invalid UTF-8 sequence replaced by U+FFFD,
// and how many it replaced. Servers send raw JSON (log data, params,
// results) that encoding/json passes through byte for byte, so invalid
// bytes would otherwise make mcpdeck's --json output invalid JSON for
// every strict reader (jq among them). Inside a JSON string the
// replacement is valid; outside one the bytes could not have been valid
// JSON anyway. b is changed in place only when nothing needs replacing.
func fixUTF8(b []byte) ([]byte, int) {
	if utf8.Valid(b) {
		return b, 0
	}
	out := make([]byte, 0, len(b)+8)
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			out = append(out, replacement...)
			n++
			b = b[1:]
			// A run of invalid bytes is one replacement, as in
			// strings.ToValidUTF8.
			for len(b) > 0 {
				if r, size := utf8.DecodeRune(b); r != utf8.RuneError || size > 1 {
					break
				}
				b = b[1:]
			}
			continue
		}
		out = append(out, b[:size]...)
		b = b[size:]
	}
	return out, n
}

// fixString is fixUTF8 for a string.
func fixString(s string) (string, int) {
	if utf8.ValidString(s) {
		return s, 0
	}
	b, n := fixUTF8([]byte(s))
	return string(b), n
}

// fixRaw is fixUTF8 for raw JSON, keeping nil nil.
func fixRaw(raw json.RawMessage) (json.RawMessage, int) {
	if raw == nil {
		return nil, 0
	}
	b, n := fixUTF8(raw)
	return json.RawMessage(b), n
}
