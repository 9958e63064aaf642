package jsonrpc

import "encoding/json"

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// scanMembers finds the top-level id, method, params, result and error
// members of a JSON object. It checks structure only (strings, nesting),
// not every token: what it returns is decoded, and so validated, by
// whoever uses it. ok is false when b is not an object it can read that
// way (an escape in a key, a duplicate member, broken nesting): the caller
// then takes the slow, strict way (ReadEnvelope does both).
func scanMembers(b []byte) (m Envelope, ok bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return m, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return m, skipWS(b, i+1) == len(b)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return m, false
		}
		end, escaped := scanString(b, i)
		if end < 0 || escaped {
			return m, false
		}
		key := b[i+1 : end]
		i = skipWS(b, end+1)
		if i >= len(b) || b[i] != ':' {
			return m, false
		}
		i = skipWS(b, i+1)
		vend, depth := valueEnd(b, i)
		if vend < 0 {
			return m, false
		}
		m.Deep = m.Deep || depth > maxDepth
		var slot *json.RawMessage
		switch string(key) {
		case "id":
			slot = &m.ID
		case "method":
			slot = &m.Method
		case "params":
			slot = &m.Params
		case "result":
			slot = &m.Result
		case "error":
			slot = &m.Error
		}
		if slot != nil {
			if *slot != nil {
				return m, false // a duplicate: let the strict decoder judge
			}
			*slot = b[i:vend]
		}
		i = skipWS(b, vend)
		if i >= len(b) {
			return m, false
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return m, skipWS(b, i+1) == len(b)
		default:
			return m, false
		}
	}
}

// valueEnd returns the index just past the value starting at b[i] (or -1)
// and how deep it nests. It counts brackets instead of recursing, so its
// cost is linear however deep the value goes.
func valueEnd(b []byte, i int) (int, int) {
	if i >= len(b) {
		return -1, 0
	}
	switch b[i] {
	case '"':
		end, _ := scanString(b, i)
		if end < 0 {
			return -1, 0
		}
		return end + 1, 0
	case '{', '[':
		depth, deepest := 0, 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '{', '[':
				depth++
				deepest = max(deepest, depth)
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, deepest
				}
			case '"':
				end, _ := scanString(b, i)
				if end < 0 {
					return -1, 0
				}
				i = end
			}
		}
		return -1, 0
	}
	// A number or a literal: up to the next delimiter.
	start := i
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\r' && b[i] != '\n' {
		i++
	}
	if i == start {
		return -1, 0
	}
	return i, 0
}

// scanString returns the index of the quote closing the string opening at
// b[start], and whether it held an escape; -1 when unterminated.
func scanString(b []byte, start int) (int, bool) {
	escaped := false
	for i := start + 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			return i, escaped
		}
	}
	return -1, escaped
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// isNull reports a literal null member value.
func isNull(v []byte) bool { return string(v) == "null" }
