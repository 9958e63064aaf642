package mcphttp

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// The encoding examples of the specification (streamable-http.mdx, Value
// Encoding).
func TestEncodeHeaderValue(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"us-west1":           "us-west1",
		"Hello, 世界":          "=?base64?SGVsbG8sIOS4lueVjA==?=",
		" padded ":           "=?base64?IHBhZGRlZCA=?=",
		"line1\nline2":       "=?base64?bGluZTEKbGluZTI=?=",
		"=?base64?literal?=": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
		"a\tb":               "a\tb",
		"":                   "",
		"tab at end\t":       "=?base64?dGFiIGF0IGVuZAk=?=",
		"del\x7f":            "=?base64?ZGVsfw==?=",
	} {
		if got := EncodeHeaderValue(in); got != want {
			t.Errorf("EncodeHeaderValue(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestToolHeaders(t *testing.T) {
	t.Parallel()
	got, err := ToolHeaders(json.RawMessage(`{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"opts":{"type":"object","properties":{"dry":{"type":"boolean","x-mcp-header":"Dry-Run"}}},
		"query":{"type":"string","default":{"x-mcp-header":"not a schema"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string][]string{}
	for _, h := range got {
		byName[h.Name] = h.Path
	}
	if want := map[string][]string{"Region": {"region"}, "Dry-Run": {"opts", "dry"}}; !reflect.DeepEqual(byName, want) {
		t.Errorf("ToolHeaders = %v, want %v", byName, want)
	}
	if h, err := ToolHeaders(json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)); h != nil || err != nil {
		t.Errorf("no annotation: %v %v", h, err)
	}
	for name, schema := range map[string]string{
		"number type":  `{"properties":{"n":{"type":"number","x-mcp-header":"N"}}}`,
		"no type":      `{"properties":{"n":{"x-mcp-header":"N"}}}`,
		"empty name":   `{"properties":{"n":{"type":"string","x-mcp-header":""}}}`,
		"not a token":  `{"properties":{"n":{"type":"string","x-mcp-header":"Bad Name"}}}`,
		"not a string": `{"properties":{"n":{"type":"string","x-mcp-header":7}}}`,
		"duplicate":    `{"properties":{"a":{"type":"string","x-mcp-header":"Tenant"},"b":{"type":"string","x-mcp-header":"tenant"}}}`,
		"under items":  `{"properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"L"}}}}`,
		"under anyOf":  `{"anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`,
		"under $defs":  `{"$defs":{"x":{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}}}`,
		"on the root":  `{"type":"string","x-mcp-header":"Root"}`,
		"not json":     `{"x-mcp-header"`,
	} {
		if _, err := ToolHeaders(json.RawMessage(schema)); !errors.Is(err, ErrBadParamHeader) {
			t.Errorf("%s: error = %v, want ErrBadParamHeader", name, err)
		}
	}
	_, err = ToolHeaders(json.RawMessage(`{"properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"L"}}}}`))
	if !strings.Contains(err.Error(), "property l") {
		t.Errorf("the reason %q does not name the property", err)
	}
}

func TestParamHeaderValue(t *testing.T) {
	t.Parallel()
	args := json.RawMessage(`{"s":"Zürich","i":42,"f":42.0,"big":9007199254740993,"frac":1.5,"b":false,"n":null,"o":{"x":"y","deep":{"t":true}}}`)
	cases := []struct {
		path []string
		want string
		ok   bool
	}{
		{[]string{"s"}, "=?base64?WsO8cmljaA==?=", true},
		{[]string{"i"}, "42", true},
		{[]string{"f"}, "42", true},
		{[]string{"b"}, "false", true},
		{[]string{"o", "deep", "t"}, "true", true},
		{[]string{"o", "x"}, "y", true},
		{[]string{"n"}, "", false},
		{[]string{"missing"}, "", false},
		{[]string{"frac"}, "", false},
		{[]string{"big"}, "", false},
		{[]string{"o"}, "", false},
	}
	for _, c := range cases {
		got, ok := paramHeaderValue(args, c.path)
		if got != c.want || ok != c.ok {
			t.Errorf("paramHeaderValue(%v) = %q %v, want %q %v", c.path, got, ok, c.want, c.ok)
		}
	}
}
