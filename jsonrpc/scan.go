package jsonrpc

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// scanMembers finds the top-level id, method, params, result and error
// members of a JSON object. It checks structure only (strings, nesting),
// not every token: what it returns is decoded, and so validated, by
// whoever uses it. ok is false when b is not an object it can read that
// way (an escape in a key, a duplicate member, broken nesting): the caller
// then takes the slow, strict way (ReadEnvelope does both).
func scanMembers(b []byte) (m Envelope, ok bool) {
	sc := scanObject(b)
	for {
		key, value, depth, more := sc.next()
		if !more {
			return m, sc.done()
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
			*slot = value
		}
	}
}

// Member returns the raw value of key among the top-level members of the
// JSON object b, read in one pass without decoding or allocating, as the
// intake reads a frame's envelope. found is false when b has no such
// member. ok is false when the scan cannot tell (b is not an object, a
// key holds an escape, the nesting breaks before key): decode b instead.
func Member(b []byte, key string) (value []byte, found, ok bool) {
	sc := scanObject(b)
	for {
		k, v, _, more := sc.next()
		if !more {
			return nil, false, sc.done()
		}
		if string(k) == key {
			return v, true, true
		}
	}
}

// EachMember calls f with each top-level member of the JSON object b, in
// order, read in one pass as Member reads one: the intake's way to read a
// hot notification's params without a second decode by reflection. ok is
// false when the scan cannot tell (b is not an object, a key holds an
// escape, a value nests deeper than encoding/json decodes): decode b
// instead. f sees b's own bytes, valid until b changes.
func EachMember(b []byte, f func(key, value []byte)) (ok bool) {
	sc := scanObject(b)
	for {
		k, v, depth, more := sc.next()
		if !more {
			return sc.done()
		}
		if depth > maxDepth {
			return false
		}
		f(k, v)
	}
}

// RawMember is one member of a JSON object: its key, decoded, and its
// value as written.
type RawMember struct {
	Key   string
	Value json.RawMessage
}

// AppendMembers writes members into obj, the bytes of a JSON object,
// after its own, keys encoded and values as they are: how a result keeps
// a server's own members (RawMember values read by Members) when a type
// of ours writes the rest. obj is returned unchanged without members.
func AppendMembers(obj []byte, members []RawMember) ([]byte, error) {
	end := bytes.LastIndexByte(obj, '}')
	if len(members) == 0 || end < 0 {
		return obj, nil
	}
	out := append([]byte(nil), obj[:end]...)
	head := bytes.TrimSpace(out)
	sep := len(head) > 0 && head[len(head)-1] != '{' // a member before ours
	for _, m := range members {
		k, err := json.Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		if sep {
			out = append(out, ',')
		}
		sep = true
		out = append(append(append(out, k...), ':'), m.Value...)
	}
	return append(out, obj[end:]...), nil
}

// Members returns the top-level members of the JSON object b in the order
// they are written (people order them on purpose; a map would shuffle
// them), without decoding the values. It reads b in one pass as
// EachMember does, and as encoding/json's decoder does where that scan
// cannot tell (an escaped key, a key that is not UTF-8, broken
// structure). nil when b is not an object; when b breaks off, the members
// before the break. A value may share b's bytes.
func Members(b []byte) []RawMember {
	var out []RawMember
	utf := true
	if EachMember(b, func(k, v []byte) {
		utf = utf && utf8.Valid(k)
		out = append(out, RawMember{Key: string(k), Value: v})
	}) && utf {
		return out
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	out = nil
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		k, _ := t.(string)
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return out
		}
		out = append(out, RawMember{Key: k, Value: v})
	}
	return out
}

// objectScan reads the members of one JSON object in order.
type objectScan struct {
	b     []byte
	i     int
	state int // scanning, or where it stopped: scanDone, scanBad
}

const (
	scanning = iota
	scanDone // the object closed, and nothing follows it
	scanBad  // the object stopped making sense, or held an escaped key
)

// scanObject starts reading the object b.
func scanObject(b []byte) objectScan {
	sc := objectScan{b: b, i: skipWS(b, 0)}
	switch {
	case sc.i >= len(b) || b[sc.i] != '{':
		sc.state = scanBad
	default:
		sc.i = skipWS(b, sc.i+1)
		if sc.i < len(b) && b[sc.i] == '}' {
			sc.state = scanBad
			if skipWS(b, sc.i+1) == len(b) {
				sc.state = scanDone
			}
		}
	}
	return sc
}

// next returns the next member's key (without its quotes) and raw value,
// and how deep the value nests; more is false once there are no more
// members, or the object stopped making sense (done tells which).
func (sc *objectScan) next() (key, value []byte, depth int, more bool) {
	if sc.state != scanning {
		return nil, nil, 0, false
	}
	b, i := sc.b, sc.i
	sc.state = scanBad
	if i >= len(b) || b[i] != '"' {
		return nil, nil, 0, false
	}
	end, escaped := scanString(b, i)
	if end < 0 || escaped {
		return nil, nil, 0, false
	}
	key = b[i+1 : end]
	i = skipWS(b, end+1)
	if i >= len(b) || b[i] != ':' {
		return nil, nil, 0, false
	}
	i = skipWS(b, i+1)
	vend, depth := valueEnd(b, i)
	if vend < 0 {
		return nil, nil, 0, false
	}
	value = b[i:vend]
	i = skipWS(b, vend)
	if i >= len(b) {
		return nil, nil, 0, false
	}
	switch b[i] {
	case ',':
		sc.i, sc.state = skipWS(b, i+1), scanning
	case '}':
		if skipWS(b, i+1) == len(b) {
			sc.state = scanDone
		}
	default:
		return nil, nil, 0, false
	}
	return key, value, depth, true
}

// done reports whether the object was read to its end.
func (sc *objectScan) done() bool { return sc.state == scanDone }

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
