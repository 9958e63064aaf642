package mcphttp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrBadParamHeader: a tool's x-mcp-header annotations break the
// specification's constraints; an HTTP client must drop such a tool from
// its list.
var ErrBadParamHeader = errors.New("invalid x-mcp-header annotation")

// ParamHeader is one x-mcp-header annotation of a tool's input schema: the
// header Mcp-Param-<Name> carries the argument at Path (a chain of
// properties keys).
type ParamHeader struct {
	Name string
	Path []string
}

// ToolHeaders returns the x-mcp-header annotations of a tool's inputSchema
// and checks every constraint the 2026-07-28 Streamable HTTP transport
// puts on them: a non-empty RFC 9110 token, case-insensitively unique, on a
// string, integer or boolean property reachable from the root through
// properties keys only (never under items, composition, conditionals or
// $ref). An error wraps ErrBadParamHeader and says which property and why:
// the caller drops the tool and shows the reason.
func ToolHeaders(inputSchema json.RawMessage) ([]ParamHeader, error) {
	if !bytes.Contains(inputSchema, []byte("x-mcp-header")) {
		return nil, nil // the common case, without a walk
	}
	var root any
	if err := json.Unmarshal(inputSchema, &root); err != nil {
		return nil, fmt.Errorf("%w: the input schema is not JSON: %v", ErrBadParamHeader, err)
	}
	w := headerWalk{seen: map[string]string{}}
	w.walk(root, true, nil)
	return w.out, w.err
}

type headerWalk struct {
	out  []ParamHeader
	seen map[string]string // lower-case name → property path
	err  error
}

// dataKeys hold instances, not schemas: an "x-mcp-header" key inside them
// is data.
var dataKeys = map[string]bool{"default": true, "const": true, "enum": true, "examples": true, "x-mcp-header": true}

func (w *headerWalk) walk(node any, reachable bool, path []string) {
	if w.err != nil {
		return
	}
	switch n := node.(type) {
	case []any:
		for _, v := range n {
			w.walk(v, false, path)
		}
	case map[string]any:
		if v, ok := n["x-mcp-header"]; ok {
			w.annotation(n, v, reachable && len(path) > 0, path)
		}
		for k, v := range n {
			switch {
			case dataKeys[k]:
			case k == "properties":
				props, ok := v.(map[string]any)
				if !ok {
					continue
				}
				for name, sub := range props {
					w.walk(sub, reachable, append(append([]string(nil), path...), name))
				}
			default:
				w.walk(v, false, path)
			}
		}
	}
}

func (w *headerWalk) annotation(schema map[string]any, v any, reachable bool, path []string) {
	where := "property " + strings.Join(path, ".")
	if len(path) == 0 {
		where = "the schema root"
	}
	name, _ := v.(string)
	switch {
	case !reachable:
		w.err = fmt.Errorf("%w: %s: x-mcp-header is only allowed on properties reached through \"properties\" alone (not under items, anyOf/oneOf/allOf/not, if/then/else or $ref)", ErrBadParamHeader, where)
	case name == "":
		w.err = fmt.Errorf("%w: %s: x-mcp-header must be a non-empty string", ErrBadParamHeader, where)
	case !isToken(name):
		w.err = fmt.Errorf("%w: %s: x-mcp-header %q is not an HTTP header token", ErrBadParamHeader, where, name)
	case !primitive(schema["type"]):
		w.err = fmt.Errorf("%w: %s: x-mcp-header is only allowed on string, integer or boolean properties, not %v", ErrBadParamHeader, where, schema["type"])
	case w.seen[strings.ToLower(name)] != "":
		w.err = fmt.Errorf("%w: %s: x-mcp-header %q is also used by property %s (names are case-insensitive)", ErrBadParamHeader, where, name, w.seen[strings.ToLower(name)])
	default:
		w.seen[strings.ToLower(name)] = strings.Join(path, ".")
		w.out = append(w.out, ParamHeader{Name: name, Path: path})
	}
}

func primitive(t any) bool {
	s, _ := t.(string)
	return s == "string" || s == "integer" || s == "boolean"
}

// isToken reports whether s is an RFC 9110 token (1*tchar).
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return s != ""
}

// EncodeHeaderValue makes a header value of s: s itself when it is plain
// ASCII a header can carry as is, otherwise =?base64?…?= around the Base64
// of its UTF-8 (non-ASCII, control characters, leading or trailing
// whitespace, or a value that already looks like the sentinel).
func EncodeHeaderValue(s string) string {
	if headerSafe(s) {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

func headerSafe(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t' {
		return false
	}
	if strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?=") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 || c > 0x7e) && c != '\t' {
			return false
		}
	}
	return true
}

// maxSafeInteger is the largest integer JavaScript represents exactly; the
// specification bounds header integers by it.
const maxSafeInteger = 1<<53 - 1

// paramHeaderValue renders the argument at path for its header, and
// reports false when the header must be omitted: no value there, null, or
// a value that is not a string, a safe integer or a boolean.
func paramHeaderValue(args json.RawMessage, path []string) (string, bool) {
	raw := args
	for _, key := range path {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return "", false
		}
		var ok bool
		if raw, ok = obj[key]; !ok {
			return "", false
		}
	}
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		return "", false
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return EncodeHeaderValue(s), true
	case bytes.Equal(raw, []byte("true")), bytes.Equal(raw, []byte("false")):
		return string(raw), true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > maxSafeInteger {
		return "", false
	}
	return strconv.FormatInt(int64(f), 10), true
}
