package ui

import (
	"bytes"
	"encoding/json"
	"mcpdeck/ui/present"
	"regexp"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
)

// fieldKind is how the form edits one value of the arguments.
type fieldKind int

const (
	kindString fieldKind = iota
	kindNumber
	kindInteger
	kindBool
	kindEnum
	kindArray  // an array of scalars, typed as comma-separated items
	kindObject // a nested object: a heading over its own fields
	kindJSON   // anything the form cannot express: typed as raw JSON
)

func (k fieldKind) String() string {
	return [...]string{"string", "number", "integer", "boolean", "enum", "array", "object", "json"}[k]
}

// maxFormDepth bounds nesting; deeper objects are edited as raw JSON.
const maxFormDepth = 4

// schemaNode is the part of JSON Schema the form understands.
type schemaNode struct {
	Type        json.RawMessage   `json:"type"`
	Properties  json.RawMessage   `json:"properties"`
	Required    []string          `json:"required"`
	Items       *schemaNode       `json:"items"`
	Enum        []json.RawMessage `json:"enum"`
	Default     json.RawMessage   `json:"default"`
	Description string            `json:"description"`
	Title       string            `json:"title"`
	Minimum     *float64          `json:"minimum"`
	Maximum     *float64          `json:"maximum"`
}

// typeName is the node's type, the first non-null one of a type list.
func (n *schemaNode) typeName() string {
	var s string
	if json.Unmarshal(n.Type, &s) == nil {
		return s
	}
	var list []string
	_ = json.Unmarshal(n.Type, &list)
	for _, t := range list {
		if t != "null" {
			return t
		}
	}
	if len(n.Properties) > 0 {
		return "object"
	}
	return ""
}

// property is one named subschema, in the order the schema lists it.
type property struct {
	name string
	node *schemaNode
}

// orderedProperties decodes "properties" keeping the schema's key order:
// authors order fields on purpose, and a map would shuffle them.
func orderedProperties(raw json.RawMessage) []property {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []property
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		name, _ := t.(string)
		var n schemaNode
		if err := dec.Decode(&n); err != nil {
			return out
		}
		out = append(out, property{name: name, node: &n})
	}
	return out
}

// field is one editable value of the form.
type field struct {
	path     []string
	depth    int
	kind     fieldKind
	item     fieldKind // array items
	required bool
	desc     string
	def      json.RawMessage
	enum     []json.RawMessage
	choice   int             // enum: index into enum, -1 when not set
	boolVal  int             // -1 not set, 0 false, 1 true
	in       textinput.Model // text, numbers, lists and JSON
	errs     []string
}

func (f *field) name() string { return f.path[len(f.path)-1] }

func (f *field) pointer() string { return "/" + strings.Join(f.path, "/") }

// focusable: object headings are not edited themselves.
func (f *field) focusable() bool { return f.kind != kindObject }

// schemaFields flattens an object schema into form fields; nested objects
// become a heading followed by their fields, indented.
func schemaFields(schema json.RawMessage) []*field {
	var root schemaNode
	if len(schema) == 0 || json.Unmarshal(schema, &root) != nil {
		return nil
	}
	var out []*field
	var walk func(n *schemaNode, path []string, depth int)
	walk = func(n *schemaNode, path []string, depth int) {
		req := map[string]bool{}
		for _, r := range n.Required {
			req[r] = true
		}
		for _, p := range orderedProperties(n.Properties) {
			f := &field{path: append(append([]string(nil), path...), p.name), depth: depth, required: req[p.name],
				desc: p.node.Description, def: p.node.Default, choice: -1, boolVal: -1}
			if f.desc == "" {
				f.desc = p.node.Title
			}
			f.kind, f.item = kindOf(p.node, depth)
			if f.kind == kindEnum {
				f.enum = p.node.Enum
			}
			out = append(out, f)
			if f.kind == kindObject {
				walk(p.node, f.path, depth+1)
			}
		}
	}
	walk(&root, nil, 0)
	return out
}

func kindOf(n *schemaNode, depth int) (kind, item fieldKind) {
	if len(n.Enum) > 0 {
		return kindEnum, 0
	}
	switch n.typeName() {
	case "string":
		return kindString, 0
	case "number":
		return kindNumber, 0
	case "integer":
		return kindInteger, 0
	case "boolean":
		return kindBool, 0
	case "object":
		if len(n.Properties) > 0 && depth < maxFormDepth {
			return kindObject, 0
		}
	case "array":
		if n.Items != nil {
			if it, _ := kindOf(n.Items, depth+1); it <= kindBool {
				return kindArray, it
			} else if it == kindEnum {
				return kindArray, kindString
			}
		}
	}
	return kindJSON, 0
}

// value is the field's JSON value; set is false when the person left it
// empty, and problem explains text that cannot be converted.
func (f *field) value() (v any, set bool, problem string) {
	switch f.kind {
	case kindBool:
		return f.boolVal == 1, f.boolVal >= 0, ""
	case kindEnum:
		if f.choice < 0 || f.choice >= len(f.enum) {
			return nil, false, ""
		}
		return f.enum[f.choice], true, ""
	case kindObject:
		return nil, false, ""
	}
	text := strings.TrimSpace(f.in.Value())
	if text == "" {
		return nil, false, ""
	}
	switch f.kind {
	case kindArray:
		var items []any
		for _, part := range strings.Split(text, ",") {
			v, p := scalar(f.item, strings.TrimSpace(part))
			if p != "" {
				return nil, false, "item " + strconv.Quote(strings.TrimSpace(part)) + ": " + p
			}
			items = append(items, v)
		}
		return items, true, ""
	case kindJSON:
		if !json.Valid([]byte(text)) {
			return nil, false, "not valid JSON"
		}
		return json.RawMessage(text), true, ""
	}
	v, p := scalar(f.kind, f.in.Value())
	return v, p == "", p
}

func scalar(k fieldKind, text string) (any, string) {
	switch k {
	case kindNumber:
		n, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil {
			return nil, "not a number"
		}
		return n, ""
	case kindInteger:
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return nil, "not an integer"
		}
		return n, ""
	case kindBool:
		b, err := strconv.ParseBool(strings.TrimSpace(text))
		if err != nil {
			return nil, "not true or false"
		}
		return b, ""
	}
	return text, ""
}

// set fills the field from a decoded JSON value (prefill, defaults, or
// the raw editor's text going back to the form).
func (f *field) set(v any) {
	switch f.kind {
	case kindBool:
		f.boolVal = -1
		if b, ok := v.(bool); ok {
			f.boolVal = 0
			if b {
				f.boolVal = 1
			}
		}
	case kindEnum:
		f.choice = -1
		enc, _ := json.Marshal(v)
		for i, e := range f.enum {
			if present.CompactJSON(e) == string(enc) {
				f.choice = i
			}
		}
	case kindObject:
	case kindArray:
		items, _ := v.([]any)
		parts := make([]string, 0, len(items))
		for _, it := range items {
			parts = append(parts, scalarText(it))
		}
		f.in.SetValue(strings.Join(parts, ", "))
	case kindJSON:
		enc, _ := json.Marshal(v)
		f.in.SetValue(string(enc))
	default:
		f.in.SetValue(scalarText(v))
	}
}

func scalarText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	}
	enc, _ := json.Marshal(v)
	return string(enc)
}

// lookup finds the value at path in decoded arguments.
func lookup(args map[string]any, path []string) (any, bool) {
	var cur any = args
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// missingRe pulls property names out of the validator's "missing
// property 'x'" messages, to mark the field itself.
var missingRe = regexp.MustCompile(`'([^']+)'`)
