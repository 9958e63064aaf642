package ui

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/charmbracelet/bubbles/textinput"

	"mcpdeck/runtime/schema"
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
	kindObjArray // an array of objects or choices: a heading over one sub-form per item
	kindItem     // one object of an array of objects: a heading over its fields
	kindChoice   // one of several shapes (oneOf/anyOf): a selector over the chosen shape
	kindConst    // a constant (a union's tag): shown, not edited
	kindNull     // a value that can only be null: shown, not edited
)

func (k fieldKind) String() string {
	return [...]string{"string", "number", "integer", "boolean", "enum", "array", "object", "json", "objects", "item", "choice", "const", "null"}[k]
}

// maxFormDepth bounds nesting; deeper objects are edited as raw JSON.
const maxFormDepth = 5

// maxItems bounds the items of one array the form holds.
const maxItems = 200

// field is one editable value of the form, a node of its tree: objects,
// arrays, array items and choices have children; the form draws the tree
// flattened, one row per field. Its schema is runtime/schema's model, the
// one the tool detail, the example arguments and the checker read.
type field struct {
	key      string // property name; "" for array items (their index is their place) and choice branches
	parent   *field
	children []*field
	node     *schema.Node // the field's schema (array fields: the array's)
	depth    int
	kind     fieldKind
	item     fieldKind // arrays of scalars: the items' kind
	required bool
	// branch marks the chosen shape of a choice, its only child: it
	// stands in the choice's place in the arguments, and an object
	// branch has no row of its own, only its fields.
	branch  bool
	desc    string
	enum    []json.RawMessage
	choice  int             // enum: index into enum; choice: index into node.Choices; -1 when not set
	boolVal int             // -1 not set, 0 false, 1 true
	in      textinput.Model // text, numbers and JSON
	// hasInput: in was made (form.giveInput); a field's zero input is not
	// usable.
	hasInput bool
	errs     []string
}

// name is the property name, the item's index in brackets, or a branch's
// choice label.
func (f *field) name() string {
	switch {
	case f.branch:
		return f.parent.node.ChoiceLabels()[f.parent.choice]
	case f.parent != nil && f.key == "":
		return "[" + strconv.Itoa(f.index()) + "]"
	}
	return f.key
}

// label is what the form shows for the field: its name, or with titles
// (an elicitation form, written for people) its schema's title.
func (f *field) label(titles bool) string {
	if titles && f.node.Title != "" && !f.branch {
		return f.node.Title
	}
	return f.name()
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
		switch {
		case n.branch: // the choice's own place
		case n.key != "":
			parts = append(parts, n.key)
		default:
			parts = append(parts, strconv.Itoa(n.index()))
		}
	}
	slices.Reverse(parts)
	return schema.Pointer(parts...)
}

// focusable: object headings, constants and nulls are not edited
// themselves; an array's heading takes + and -, an item's heading takes -,
// a choice's heading picks the shape.
func (f *field) focusable() bool {
	return f.kind != kindObject && f.kind != kindConst && f.kind != kindNull
}

// container reports a field whose value comes from its children.
func (f *field) container() bool {
	switch f.kind {
	case kindObject, kindArray, kindObjArray, kindItem, kindChoice:
		return true
	}
	return false
}

// hidden: an object branch has no row; its fields stand under the choice.
func (f *field) hidden() bool { return f.branch && (f.kind == kindObject || f.kind == kindItem) }

// schemaFields flattens an object schema into form fields; nested objects
// become a heading followed by their fields, indented.
func schemaFields(raw json.RawMessage) []*field {
	root, err := schema.Parse(raw)
	if err != nil {
		return nil
	}
	return flatten(objectChildren(root, nil, 0))
}

// objectChildren are the fields of an object schema's properties.
func objectChildren(n *schema.Node, parent *field, depth int) []*field {
	var out []*field
	for _, p := range n.Properties {
		out = append(out, newField(p.Node, parent, p.Name, depth, p.Required))
	}
	return out
}

// newField builds the field for a schema node; an object gets its
// children now, an array as items are added, a choice as a shape is
// chosen.
func newField(n *schema.Node, parent *field, key string, depth int, required bool) *field {
	f := &field{key: key, parent: parent, node: n, depth: depth, required: required,
		desc: n.Description, choice: -1, boolVal: -1}
	if f.desc == "" && !sameWords(n.Title, key) {
		f.desc = n.Title
	}
	f.kind, f.item = kindOf(n, depth)
	switch f.kind {
	case kindBool:
		f.boolVal = f.unsetBool()
	case kindEnum:
		f.enum = n.Enum
	case kindObject, kindItem:
		f.children = objectChildren(n, f, depth+1)
	}
	return f
}

// secretWords name a field that holds a secret: its key or title says
// password, passphrase, secret, token or API key.
var secretWords = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)pass(word|wd|phrase)|secret|token|api[ _-]?key`) })

// secret reports a text field whose value the elicitation form masks:
// writeOnly (JSON Schema's word for a value sent, never shown back),
// format "password", or a key or title in secretWords. The value still
// reaches the server as typed, and the Traffic tab and recordings keep
// the wire as it was.
func secret(fl *field) bool {
	if fl.kind != kindString {
		return false
	}
	n := fl.node
	return n.WriteOnly || n.Format == "password" || secretWords().MatchString(fl.key) || secretWords().MatchString(n.Title)
}

// sameWords: a title that only spells the key out ("How Many Shrimp" for
// how_many_shrimp, as Pydantic titles every field) says nothing more.
func sameWords(title, key string) bool {
	norm := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '_' || r == '-' || r == ' ' {
				return -1
			}
			return unicode.ToLower(r)
		}, s)
	}
	return norm(title) == norm(key)
}

// addItem appends an empty item to an array field.
func (f *field) addItem() *field {
	if len(f.children) >= maxItems || f.node.Items == nil {
		return nil
	}
	it := newField(f.node.Items, f, "", f.depth+1, f.kind == kindObjArray)
	switch {
	case f.kind == kindObjArray && it.kind == kindObject:
		it.kind = kindItem
	case f.kind == kindArray:
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

// choose makes shape i (-1: none) the choice's branch, a fresh one whose
// fields start from their initial values.
func (f *field) choose(i int, give func(*field)) {
	f.choice, f.children = i, nil
	if i < 0 || i >= len(f.node.Choices) {
		f.choice = -1
		return
	}
	b := newField(f.node.Choices[i], f, "", f.depth, true)
	b.branch = true
	if !b.hidden() {
		b.depth = f.depth + 1
	}
	f.children = []*field{b}
	for _, d := range flatten(f.children) {
		give(d)
	}
	initial(f.children, give)
}

// initial sets fields to their initial values (schema.Node.Initial: the
// default, the constant, a required enum's first value, false for a
// required boolean, null where null is accepted); a required choice
// without one starts at its first shape, a required object typed as JSON
// at {}.
func initial(fs []*field, give func(*field)) {
	for _, fl := range fs {
		if fl.kind == kindObject || fl.kind == kindItem {
			// Each field its own initial value, then what the object's
			// default says of it.
			initial(fl.children, give)
			def, _ := decodeAny(fl.node.Default).(map[string]any)
			for _, c := range fl.children {
				if v, ok := def[c.key]; ok {
					c.set(v, give)
				}
			}
			continue
		}
		if v, ok := fl.node.Initial(fl.required); ok && fl.kind != kindConst && fl.kind != kindNull {
			fl.set(decodeAny(v), give)
			continue
		}
		switch {
		case fl.kind == kindChoice && fl.required:
			fl.choose(0, give)
		case fl.kind == kindJSON && fl.required && fl.node.Type == "object":
			// An object the form cannot break into fields (a model
			// without properties, a map): {} is where typing starts.
			fl.set(map[string]any{}, give)
		}
	}
}

// flatten lists fields in tree order, each followed by its descendants;
// object branches are left out, their fields are not.
func flatten(fs []*field) []*field {
	var out []*field
	for _, f := range fs {
		if !f.hidden() {
			out = append(out, f)
		}
		out = append(out, flatten(f.children)...)
	}
	return out
}

func kindOf(n *schema.Node, depth int) (kind, item fieldKind) {
	switch {
	case n.Opaque != "":
		return kindJSON, 0
	case n.Const != nil:
		return kindConst, 0
	case len(n.Enum) > 0:
		return kindEnum, 0
	case len(n.Choices) > 0:
		if depth < maxFormDepth {
			return kindChoice, 0
		}
		return kindJSON, 0
	}
	switch n.Type {
	case "string":
		return kindString, 0
	case "number":
		return kindNumber, 0
	case "integer":
		return kindInteger, 0
	case "boolean":
		return kindBool, 0
	case "null":
		return kindNull, 0
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
			case it == kindObject || it == kindChoice:
				return kindObjArray, 0
			}
		}
	}
	return kindJSON, 0
}

// value is the field's JSON value; set is false when the person left it
// out, and problem explains text that cannot be converted. A required
// field that accepts null and was left empty is null.
func (f *field) value() (v any, set bool, problem string) {
	switch f.kind {
	case kindNull:
		return nil, f.required, ""
	case kindConst:
		// A union's tag is sent with its shape, required or not: that
		// is how the server tells the shapes apart.
		return json.RawMessage(f.node.Const), f.required || f.parent != nil && f.parent.branch, ""
	case kindBool:
		if f.boolVal < 0 {
			return f.unset()
		}
		return f.boolVal == 1, true, ""
	case kindEnum:
		if f.choice < 0 || f.choice >= len(f.enum) {
			return f.unset()
		}
		return f.enum[f.choice], true, ""
	case kindChoice:
		if len(f.children) == 0 {
			return f.unset()
		}
		return f.children[0].value()
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
		if len(obj) == 0 && f.kind == kindObject && !f.branch {
			if v, set, _ := f.unset(); !f.required || set {
				return v, set, problem
			}
		}
		return obj, true, problem
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
		if len(items) == 0 {
			if v, set, _ := f.unset(); !f.required || set {
				return v, set, problem
			}
		}
		return items, true, problem
	}
	text := strings.TrimSpace(f.in.Value())
	if text == "" {
		return f.unset()
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

// unset is the value of a field left empty: left out, or null when it is
// required and accepts null (Pydantic's `x: int | None` without a default).
func (f *field) unset() (any, bool, string) {
	return nil, f.required && f.node.Nullable, ""
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

// set fills the field from a decoded JSON value (prefill, initial values,
// or the raw editor's text going back to the form); arrays get one item
// per element, a choice the shape the value has. give gives new fields
// their text inputs.
func (f *field) set(v any, give func(*field)) {
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
	case kindChoice:
		f.choose(f.pick(v), give)
		if len(f.children) > 0 {
			f.children[0].set(v, give)
		}
	case kindObject, kindItem:
		obj, _ := v.(map[string]any)
		for _, c := range f.children {
			c.set(obj[c.key], give)
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
				give(d)
			}
			c.set(it, give)
		}
	case kindConst, kindNull:
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

// pick is the shape of a choice that value v has: the one its
// discriminator names, else the first of v's JSON type (for objects, the
// one that knows most of v's keys); -1 for null or no match.
func (f *field) pick(v any) int {
	if v == nil {
		return -1
	}
	cs := f.node.Choices
	if obj, ok := v.(map[string]any); ok && f.node.Discriminator != "" {
		tag, _ := json.Marshal(obj[f.node.Discriminator])
		for i, c := range cs {
			if p := c.Property(f.node.Discriminator); p != nil {
				if want, ok := p.Constant(); ok && present.CompactJSON(want) == string(tag) {
					return i
				}
			}
		}
	}
	best, bestScore := -1, -1
	for i, c := range cs {
		if !hasType(c, v) {
			continue
		}
		score := 0
		if obj, ok := v.(map[string]any); ok {
			for k := range obj {
				if c.Property(k) != nil {
					score++
				}
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// hasType: v is of n's JSON type (any type for a node without one).
func hasType(n *schema.Node, v any) bool {
	switch v := v.(type) {
	case map[string]any:
		return n.Type == "object" || n.Type == ""
	case []any:
		return n.Type == "array" || n.Type == ""
	case string:
		return n.Type == "string" || n.Type == "" || len(n.Enum) > 0
	case bool:
		return n.Type == "boolean" || n.Type == ""
	case float64:
		return n.Type == "number" || n.Type == "" || n.Type == "integer" && v == float64(int64(v))
	}
	return false
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
var missingRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`'([^']+)'`) })

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

// cycle moves an enum or a choice to its next option (dir 1) or the
// previous one (dir -1); "not set" is an option unless the field is
// required and cannot be null.
func (f *field) cycle(n, dir int) int {
	lo := -1
	if f.required && !f.node.Nullable {
		lo = 0
	}
	span := n - lo
	if span <= 0 {
		return f.choice
	}
	return lo + ((f.choice-lo+dir)%span+span)%span
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
