package ui

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"

	"mcpdeck/ui/present"
)

// fieldKind is how the form edits one value of the arguments.
type fieldKind int

const (
	kindString fieldKind = iota
	kindNumber
	kindInteger
	kindBool
	kindEnum
	kindArray    // an array of scalars: a heading over one row per item
	kindObject   // a nested object: a heading over its own fields
	kindJSON     // anything the form cannot express: typed as raw JSON
	kindObjArray // an array of objects: a heading over one sub-form per item
	kindItem     // one object of an array of objects: a heading over its fields
)

func (k fieldKind) String() string {
	return [...]string{"string", "number", "integer", "boolean", "enum", "array", "object", "json", "objects", "item"}[k]
}

// maxFormDepth bounds nesting; deeper objects are edited as raw JSON.
const maxFormDepth = 4

// maxItems bounds the items of one array the form holds.
const maxItems = 200

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
func (n *schemaNode) typeName() string { return present.SchemaType(n.Type, len(n.Properties) > 0) }

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

// field is one editable value of the form, a node of its tree: objects,
// arrays and array items have children; the form draws the tree
// flattened, one row per field.
type field struct {
	key      string // property name; "" for array items (their index is their place)
	parent   *field
	children []*field
	node     *schemaNode // the field's schema (array fields: the array's)
	depth    int
	kind     fieldKind
	item     fieldKind // arrays of scalars: the items' kind
	required bool
	desc     string
	def      json.RawMessage
	enum     []json.RawMessage
	choice   int             // enum: index into enum, -1 when not set
	boolVal  int             // -1 not set, 0 false, 1 true
	in       textinput.Model // text, numbers and JSON
	hasInput bool            // in was made (newLineInput); a field's zero input is not usable
	errs     []string
}

// name is the property name, or the item's index in brackets.
func (f *field) name() string {
	if f.parent != nil && f.key == "" {
		return "[" + strconv.Itoa(f.index()) + "]"
	}
	return f.key
}

// index is an array item's place among its siblings.
func (f *field) index() int {
	for i, c := range f.parent.children {
		if c == f {
			return i
		}
	}
	return -1
}

// pointer is the field's JSON pointer in the arguments.
func (f *field) pointer() string {
	var parts []string
	for n := f; n != nil; n = n.parent {
		if n.key != "" {
			parts = append(parts, n.key)
		} else {
			parts = append(parts, strconv.Itoa(n.index()))
		}
	}
	var b strings.Builder
	for i := len(parts) - 1; i >= 0; i-- {
		b.WriteString("/" + parts[i])
	}
	return b.String()
}

// focusable: object headings are not edited themselves; an array's
// heading takes + and -, an item's heading takes -.
func (f *field) focusable() bool { return f.kind != kindObject }

// container reports a field whose value comes from its children.
func (f *field) container() bool {
	return f.kind == kindObject || f.kind == kindArray || f.kind == kindObjArray || f.kind == kindItem
}

// schemaFields flattens an object schema into form fields; nested objects
// become a heading followed by their fields, indented.
func schemaFields(schema json.RawMessage) []*field {
	var root schemaNode
	if len(schema) == 0 || json.Unmarshal(schema, &root) != nil {
		return nil
	}
	return flatten(objectChildren(&root, nil, 0))
}

// objectChildren are the fields of an object schema's properties.
func objectChildren(n *schemaNode, parent *field, depth int) []*field {
	req := map[string]bool{}
	for _, r := range n.Required {
		req[r] = true
	}
	var out []*field
	for _, p := range orderedProperties(n.Properties) {
		out = append(out, newField(p.node, parent, p.name, depth, req[p.name]))
	}
	return out
}

// newField builds the field for a schema node; an object gets its
// children now, an array gets them as items are added.
func newField(n *schemaNode, parent *field, key string, depth int, required bool) *field {
	f := &field{key: key, parent: parent, node: n, depth: depth, required: required,
		desc: n.Description, def: n.Default, choice: -1, boolVal: -1}
	if f.desc == "" {
		f.desc = n.Title
	}
	f.kind, f.item = kindOf(n, depth)
	if f.kind == kindBool {
		f.boolVal = f.unsetBool()
	}
	switch f.kind {
	case kindEnum:
		f.enum = n.Enum
	case kindObject, kindItem:
		f.children = objectChildren(n, f, depth+1)
	}
	return f
}

// addItem appends an empty item to an array field.
func (f *field) addItem() *field {
	if len(f.children) >= maxItems || f.node.Items == nil {
		return nil
	}
	var it *field
	if f.kind == kindObjArray {
		it = newField(f.node.Items, f, "", f.depth+1, false)
		it.kind = kindItem
		it.children = objectChildren(f.node.Items, it, f.depth+2)
	} else {
		it = newField(f.node.Items, f, "", f.depth+1, false)
		it.kind = f.item
		if it.kind == kindEnum {
			it.enum = f.node.Items.Enum
		}
	}
	f.children = append(f.children, it)
	return it
}

// removeItem removes item it from its array.
func (f *field) removeItem(it *field) {
	for i, c := range f.children {
		if c == it {
			f.children = append(f.children[:i:i], f.children[i+1:]...)
			return
		}
	}
}

// flatten lists fields in tree order, each followed by its descendants.
func flatten(fs []*field) []*field {
	var out []*field
	for _, f := range fs {
		out = append(out, f)
		out = append(out, flatten(f.children)...)
	}
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
			it, _ := kindOf(n.Items, depth+1)
			switch {
			case it <= kindEnum:
				return kindArray, it
			case it == kindObject:
				return kindObjArray, 0
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
	case kindObject, kindItem:
		obj := map[string]any{}
		for _, c := range f.children {
			v, set, p := c.value()
			if p != "" {
				problem = p
			}
			if set {
				obj[c.key] = v
			}
		}
		return obj, len(obj) > 0 || f.required || f.kind == kindItem, problem
	case kindArray, kindObjArray:
		items := []any{}
		for _, c := range f.children {
			v, set, p := c.value()
			if p != "" {
				problem = p
			}
			if set {
				items = append(items, v)
			}
		}
		return items, len(items) > 0 || f.required, problem
	}
	text := strings.TrimSpace(f.in.Value())
	if text == "" {
		return nil, false, ""
	}
	if f.kind == kindJSON {
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
// the raw editor's text going back to the form); arrays get one item per
// element. newInput makes the text inputs of new items.
func (f *field) set(v any, newInput func() textinput.Model) {
	switch f.kind {
	case kindBool:
		f.boolVal = f.unsetBool()
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
	case kindObject, kindItem:
		obj, _ := v.(map[string]any)
		for _, c := range f.children {
			c.set(obj[c.key], newInput)
		}
	case kindArray, kindObjArray:
		items, _ := v.([]any)
		f.children = nil
		for _, it := range items {
			c := f.addItem()
			if c == nil {
				break
			}
			for _, d := range flatten([]*field{c}) {
				d.in, d.hasInput = newInput(), true
			}
			c.set(it, newInput)
		}
	case kindJSON:
		if v == nil {
			f.in.SetValue("")
			return
		}
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

// missingRe pulls property names out of the validator's "missing
// property 'x'" messages, to mark the field itself.
var missingRe = regexp.MustCompile(`'([^']+)'`)

// A boolean field has three states when it is optional: unset (the
// property is left out of the arguments), true and false; a required one
// has two, false and true, and starts at false, as a checkbox does. The
// toggle key goes unset → true → false → unset, the previous-choice key
// the other way.
var (
	optionalBoolCycle = []int{-1, 1, 0}
	requiredBoolCycle = []int{0, 1}
)

// unsetBool is the value of a boolean field nothing set: unset, or false
// for a required one, which cannot be left out.
func (f *field) unsetBool() int {
	if f.required {
		return 0
	}
	return -1
}

// cycleBool moves a boolean field to the next state (dir 1) or the
// previous one (dir -1).
func (f *field) cycleBool(dir int) {
	states := optionalBoolCycle
	if f.required {
		states = requiredBoolCycle
	}
	i := slices.Index(states, f.boolVal)
	if i < 0 {
		f.boolVal = states[0]
		return
	}
	f.boolVal = states[(i+dir+len(states))%len(states)]
}

// boolWidget draws a boolean field's state: unset is drawn as such, so it
// does not pass for false.
func boolWidget(v int) string {
	switch v {
	case 1:
		return "[x] true"
	case 0:
		return "[ ] false"
	}
	return "[-] unset (left out)"
}
