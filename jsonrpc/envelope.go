package jsonrpc

import "bytes"

// envelope is what a linear scan of a frame's top-level object finds,
// without decoding any value: enough to tell a response from the rest and
// to name its id when the frame cannot be decoded (too deeply nested for
// encoding/json's limit of 10,000 levels, or otherwise broken inside a
// value).
type envelope struct {
	id        []byte // the raw id value; nil when there is no "id" member
	hasMethod bool
	hasResult bool
	hasError  bool
}

// isResponse reports whether the frame is shaped like a response.
func (e envelope) isResponse() bool {
	return e.id != nil && !e.hasMethod && (e.hasResult || e.hasError)
}

// scanEnvelope scans frame's top-level object. It never recurses, so its
// cost is linear however deep the values nest. ok is false when frame is
// not an object at the top.
func scanEnvelope(frame []byte) (env envelope, ok bool) {
	i := skipSpace(frame, 0)
	if i >= len(frame) || frame[i] != '{' {
		return env, false
	}
	i++
	for {
		i = skipSpace(frame, i)
		if i >= len(frame) || frame[i] != '"' {
			return env, frame != nil && i < len(frame) && frame[i] == '}'
		}
		keyEnd := skipString(frame, i)
		key := frame[i+1 : max(i+1, keyEnd-1)]
		i = skipSpace(frame, keyEnd)
		if i >= len(frame) || frame[i] != ':' {
			return env, false
		}
		i = skipSpace(frame, i+1)
		valStart := i
		i = skipValue(frame, i)
		switch string(key) {
		case "id":
			env.id = bytes.TrimSpace(frame[valStart:i])
		case "method":
			env.hasMethod = true
		case "result":
			env.hasResult = true
		case "error":
			env.hasError = true
		}
		i = skipSpace(frame, i)
		if i >= len(frame) {
			return env, false
		}
		switch frame[i] {
		case ',':
			i++
		case '}':
			return env, true
		default:
			return env, false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just after the string starting at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index just after the value starting at b[i],
// counting brackets instead of recursing.
func skipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = skipString(b, i)
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of the enclosing object: a malformed value
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return i
}
