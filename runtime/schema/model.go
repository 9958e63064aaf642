package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"mcpdeck/jsonrpc"
)

// Bounds on the model Parse builds, on top of CheckBounds on the text:
// references can multiply a small text ($defs used twice in each of ten
// levels is a thousand copies), and a person cannot fill a form of
// thousands of fields anyway.
const (
	// MaxDepth bounds how many levels of properties, items and choices
	// the model follows; deeper values are Opaque (edited as raw JSON).
	MaxDepth = 32
	// MaxNodes bounds the nodes of a model once references are
	// expanded; past it Parse refuses the whole schema.
	MaxNodes = 5000
)

// Node is one schema resolved for reading: references followed, allOf
// merged, a nullable union collapsed into Nullable, a union of several
// shapes turned into Choices. A Node is never changed after Parse returns,
// and may be shared within one model.
type Node struct {
	// Type is the one JSON type a value has: object, array, string,
	// number, integer, boolean or null; "" when the schema does not say
	// (any value), or when Choices hold the alternatives.
	Type string
	// Nullable: null is accepted besides Type (type: [T, "null"], or
	// anyOf/oneOf with a {"type":"null"} branch, as Pydantic writes every
	// Optional).
	Nullable bool

	Title, Description string
	Format, Pattern    string
	Default, Const     json.RawMessage // raw JSON; nil when absent

	// WriteOnly is writeOnly: true, a value sent but never shown back (a
	// password): a form masks it.
	WriteOnly bool

	// Enum lists the allowed values; EnumTitles, when not nil, names
	// each one (MCP's titled enums: oneOf of {const, title}, or the legacy
	// enumNames).
	Enum       []json.RawMessage
	EnumTitles []string

	Minimum, Maximum                   *float64
	ExclusiveMinimum, ExclusiveMaximum *float64
	MinLength, MaxLength               *int
	MinItems, MaxItems                 *int

	// Properties are an object's properties in the schema's order, then
	// required names the schema does not describe.
	Properties []*Property
	// Additional is additionalProperties given as a schema (a map's
	// values); NoAdditional is additionalProperties: false.
	Additional   *Node
	NoAdditional bool
	// Items is an array's item schema.
	Items *Node

	// Choices are the alternatives of a oneOf/anyOf with more than one
	// shape (null aside): the value is one of them. Discriminator names
	// the property whose const tells object choices apart, when there is
	// one. ChoiceAt is where each choice is in the schema (a JSON
	// pointer, "/properties/pet/oneOf/1"), as FieldError.Alternatives
	// names it; "" for the choices of a list of types.
	Choices       []*Node
	Discriminator string
	ChoiceAt      []string

	// Ref is the last $ref followed to reach this node, "" when none.
	Ref string
	// Opaque says why the model stops here: a $ref to itself, a remote
	// $ref, nesting past MaxDepth, a tuple. Such a value is edited as raw
	// JSON; validation still covers it.
	Opaque string

	typed bool // the schema declared types (for merging nullability)
}

// Property is one named value of an object.
type Property struct {
	Name     string
	Required bool
	*Node
	// undescribed: only "required" names it (a constraint, not a shape).
	undescribed bool
}

// Parse builds the model of a JSON Schema. An empty schema is an object
// without properties. A schema outside the bounds of CheckBounds, or one
// whose model would pass MaxNodes, is refused with an *Error wrapping
// ErrTooComplex: the caller shows "edit as raw JSON". Parse never fails
// on the contents of a schema otherwise: what it cannot model is Opaque.
func Parse(raw json.RawMessage) (*Node, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return &Node{Type: "object"}, nil
	}
	if err := CheckBounds(raw); err != nil {
		return nil, err
	}
	p := &parser{root: raw, stack: []string{"#"}}
	n := p.node(raw, 0, "")
	if p.nodes > MaxNodes {
		return nil, &Error{Err: fmt.Errorf("%w: over %s schema nodes once its references are expanded", ErrTooComplex, thousands(MaxNodes))}
	}
	return n, nil
}

// parser holds one Parse: the document $refs point into, the references
// being expanded (the cycle guard), and the nodes made so far.
type parser struct {
	root   json.RawMessage
	stack  []string
	nodes  int
	target map[string]json.RawMessage // $ref → what it points at, read once
}

// keywords is one schema object's keywords, read in one pass.
type keywords struct {
	types               []string
	typeGiven           bool
	properties          []member
	required            []string
	items, additional   json.RawMessage
	prefixItems         bool
	ref                 string
	allOf, anyOf, oneOf []json.RawMessage
	enumNames           []string
	discriminator       string
	additionalFalse     bool
}

// node reads the schema raw found at loc (a JSON pointer in the document).
func (p *parser) node(raw json.RawMessage, depth int, loc string) *Node {
	p.nodes++
	if p.nodes > MaxNodes {
		return &Node{Opaque: "the schema is too large"}
	}
	if depth > MaxDepth {
		return &Node{Opaque: fmt.Sprintf("nested more than %d levels deep", MaxDepth)}
	}
	switch t := bytes.TrimSpace(raw); {
	case string(t) == "true":
		return &Node{}
	case string(t) == "false":
		return &Node{Opaque: "the schema accepts no value"}
	case len(t) == 0 || t[0] != '{':
		return &Node{Opaque: "not a schema object"}
	}
	n := &Node{}
	var k keywords
	for _, m := range members(raw) {
		n.keyword(&k, m)
	}
	n.typesFrom(k.types, k.typeGiven)
	if len(k.properties) > 0 || len(k.required) > 0 {
		p.properties(n, k, depth, loc)
	}
	if len(k.additional) > 0 {
		n.Additional = p.node(k.additional, depth+1, loc+"/additionalProperties")
	}
	switch {
	case k.prefixItems:
		n.Items = &Node{Opaque: "a tuple (prefixItems)"}
	case len(k.items) > 0 && bytes.TrimSpace(k.items)[0] == '[':
		n.Items = &Node{Opaque: "a tuple (items as a list)"}
	case len(k.items) > 0:
		n.Items = p.node(k.items, depth+1, loc+"/items")
	}
	if k.ref != "" {
		n.absorb(p.ref(k.ref, depth))
	}
	for i, sub := range k.allOf {
		n.absorb(p.node(sub, depth+1, loc+"/allOf/"+strconv.Itoa(i)))
	}
	if len(k.anyOf) > 0 {
		p.union(n, k.anyOf, k.discriminator, depth, loc+"/anyOf/")
	}
	if len(k.oneOf) > 0 {
		p.union(n, k.oneOf, k.discriminator, depth, loc+"/oneOf/")
	}
	if len(k.enumNames) == len(n.Enum) && n.EnumTitles == nil && len(n.Enum) > 0 {
		n.EnumTitles = k.enumNames
	}
	n.infer()
	return n
}

// keyword reads one keyword of a schema object into n or k.
func (n *Node) keyword(k *keywords, m member) {
	str := func() string {
		var s string
		_ = json.Unmarshal(m.Value, &s)
		return s
	}
	num := func() *float64 {
		var f float64
		if json.Unmarshal(m.Value, &f) != nil {
			return nil
		}
		return &f
	}
	count := func() *int {
		var f float64
		if json.Unmarshal(m.Value, &f) != nil || f < 0 {
			return nil
		}
		i := int(f)
		return &i
	}
	list := func() []json.RawMessage {
		var l []json.RawMessage
		_ = json.Unmarshal(m.Value, &l)
		return l
	}
	switch m.Key {
	case "type":
		k.typeGiven = true
		if s := str(); s != "" {
			k.types = []string{s}
		} else {
			_ = json.Unmarshal(m.Value, &k.types)
		}
	case "title":
		n.Title = str()
	case "description":
		n.Description = str()
	case "format":
		n.Format = str()
	case "pattern":
		n.Pattern = str()
	case "writeOnly":
		_ = json.Unmarshal(m.Value, &n.WriteOnly)
	case "default":
		n.Default = m.Value
	case "const":
		n.Const = m.Value
	case "enum":
		n.Enum = list()
	case "enumNames":
		_ = json.Unmarshal(m.Value, &k.enumNames)
	case "minimum":
		n.Minimum = num()
	case "maximum":
		n.Maximum = num()
	case "exclusiveMinimum":
		n.ExclusiveMinimum = num()
	case "exclusiveMaximum":
		n.ExclusiveMaximum = num()
	case "minLength":
		n.MinLength = count()
	case "maxLength":
		n.MaxLength = count()
	case "minItems":
		n.MinItems = count()
	case "maxItems":
		n.MaxItems = count()
	case "properties":
		k.properties = members(m.Value)
	case "required":
		_ = json.Unmarshal(m.Value, &k.required)
	case "additionalProperties":
		switch string(bytes.TrimSpace(m.Value)) {
		case "false":
			k.additionalFalse = true
			n.NoAdditional = true
		case "true":
		default:
			k.additional = m.Value
		}
	case "items":
		k.items = m.Value
	case "prefixItems":
		k.prefixItems = true
	case "$ref":
		k.ref = str()
	case "allOf":
		k.allOf = list()
	case "anyOf":
		k.anyOf = list()
	case "oneOf":
		k.oneOf = list()
	case "discriminator":
		var d struct {
			PropertyName string `json:"propertyName"`
		}
		_ = json.Unmarshal(m.Value, &d)
		k.discriminator = d.PropertyName
	}
}

// typesFrom sets Type and Nullable from the "type" keyword; several
// non-null types become Choices of one node each.
func (n *Node) typesFrom(types []string, given bool) {
	n.typed = given
	var nonNull []string
	for _, t := range types {
		if t == "null" {
			n.Nullable = true
		} else if !slices.Contains(nonNull, t) {
			nonNull = append(nonNull, t)
		}
	}
	switch {
	case len(nonNull) == 1:
		n.Type = nonNull[0]
	case len(nonNull) == 0 && n.Nullable:
		n.Type, n.Nullable = "null", false
	case len(nonNull) > 1:
		for _, t := range nonNull {
			n.Choices = append(n.Choices, &Node{Type: t, typed: true})
			n.ChoiceAt = append(n.ChoiceAt, "")
		}
	}
}

// properties builds an object's properties in the schema's order; a
// required name the schema does not describe gets additionalProperties'
// schema, or any value.
func (p *parser) properties(n *Node, k keywords, depth int, loc string) {
	for _, m := range k.properties {
		n.Properties = append(n.Properties, &Property{Name: m.Key, Required: slices.Contains(k.required, m.Key), Node: p.node(m.Value, depth+1, loc+Pointer("properties", m.Key))})
	}
	for _, r := range k.required {
		if n.Property(r) != nil {
			continue
		}
		var child *Node
		if len(k.additional) > 0 {
			child = p.node(k.additional, depth+1, loc+"/additionalProperties")
		} else {
			child = &Node{}
		}
		n.Properties = append(n.Properties, &Property{Name: r, Required: true, Node: child, undescribed: len(k.additional) == 0})
	}
}

// ref follows a $ref: a JSON pointer into the document ("#",
// "#/$defs/X", "#/definitions/X", "#/properties/a/items"). A reference to
// a schema being expanded (a recursive model) and one outside the
// document are Opaque.
func (p *parser) ref(ref string, depth int) *Node {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return &Node{Ref: ref, Opaque: "refers to " + ref + ", outside the schema (not fetched)"}
	}
	if slices.Contains(p.stack, ref) {
		return &Node{Ref: ref, Opaque: "recursive: " + RefName(ref) + " contains itself"}
	}
	target, found := p.target[ref]
	if !found {
		target, _ = lookup(p.root, frag)
		if p.target == nil {
			p.target = map[string]json.RawMessage{}
		}
		p.target[ref] = target
	}
	if target == nil {
		return &Node{Ref: ref, Opaque: "refers to " + ref + ", which the schema does not have"}
	}
	p.stack = append(p.stack, ref)
	n := p.node(target, depth, frag)
	p.stack = p.stack[:len(p.stack)-1]
	if n.Ref == "" {
		n.Ref = ref
	}
	return n
}

// RefName is the last part of a reference: "FooBar" for "#/$defs/FooBar".
func RefName(ref string) string {
	if i := strings.LastIndexByte(ref, '/'); i >= 0 {
		return unescape(ref[i+1:])
	}
	return strings.TrimPrefix(ref, "#")
}

// lookup finds the value at a JSON pointer ("" is the whole document).
func lookup(doc json.RawMessage, pointer string) (json.RawMessage, bool) {
	if pointer == "" {
		return doc, true
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil, false // an anchor ("#name"): not followed
	}
	cur := doc
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = unescape(tok)
		t := bytes.TrimSpace(cur)
		switch {
		case len(t) > 0 && t[0] == '{':
			next, ok := json.RawMessage(nil), false
			for _, m := range members(cur) {
				if m.Key == tok {
					next, ok = m.Value, true
				}
			}
			if !ok {
				return nil, false
			}
			cur = next
		case len(t) > 0 && t[0] == '[':
			var list []json.RawMessage
			var i int
			if json.Unmarshal(cur, &list) != nil || json.Unmarshal([]byte(tok), &i) != nil || i < 0 || i >= len(list) {
				return nil, false
			}
			cur = list[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func unescape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// union reads an anyOf or oneOf: null branches make n Nullable; branches
// that are each one constant make an enum (MCP's titled enums); one
// branch left is merged into n; several become Choices, each with n's own
// properties.
func (p *parser) union(n *Node, raws []json.RawMessage, discriminator string, depth int, at string) {
	var alts []*Node
	var locs []string
	null := false
	for i, raw := range raws {
		a := p.node(raw, depth+1, at+strconv.Itoa(i))
		if a.isNull() {
			null = true
			continue
		}
		alts, locs = append(alts, a), append(locs, at+strconv.Itoa(i))
	}
	switch {
	case len(alts) == 0, allConstraints(alts):
		// Only null, or branches that add constraints (a required
		// property, a format) without a shape: the validator checks them.
	case allConstants(alts):
		for _, a := range alts {
			n.Enum = append(n.Enum, a.constant())
			n.EnumTitles = append(n.EnumTitles, a.Title)
		}
		if n.Type == "" {
			n.Type = alts[0].Type
		}
		if slices.Equal(n.EnumTitles, make([]string, len(alts))) {
			n.EnumTitles = nil
		}
	case len(alts) == 1:
		n.absorb(alts[0])
	default:
		if len(n.Properties) > 0 {
			for i, a := range alts {
				alts[i] = a.clone()
				alts[i].absorb(&Node{Properties: n.Properties})
			}
			n.Properties = nil
		}
		n.Choices, n.ChoiceAt, n.Type = alts, locs, ""
		n.Discriminator = discriminator
		if n.Discriminator == "" {
			n.Discriminator = findDiscriminator(alts)
		}
	}
	if null {
		n.Nullable = true
		if n.Type == "null" {
			n.Type = ""
		}
	}
}

// isNull: the node accepts only null.
func (n *Node) isNull() bool {
	switch {
	case n.Type == "null" && len(n.Choices) == 0:
		return true
	case string(n.Const) == "null":
		return true
	case len(n.Enum) == 1 && string(n.Enum[0]) == "null":
		return true
	}
	return false
}

// constant is the one value a constant node accepts.
func (n *Node) constant() json.RawMessage {
	if n.Const != nil {
		return n.Const
	}
	return n.Enum[0]
}

// Constant is the one value the node accepts, when it accepts only one
// (const, or an enum of one value): a discriminator's tag in a choice.
func (n *Node) Constant() (json.RawMessage, bool) {
	if n.Const == nil && len(n.Enum) != 1 {
		return nil, false
	}
	return n.constant(), true
}

// allConstraints: no branch says what shape a value has, only what it
// must satisfy (required names, a format).
func allConstraints(alts []*Node) bool {
	for _, a := range alts {
		if a.typed || a.Const != nil || len(a.Enum) > 0 || a.described() || a.Items != nil || len(a.Choices) > 0 || a.Ref != "" || a.Opaque != "" || a.Additional != nil {
			return false
		}
	}
	return true
}

// described: some property is described by a schema, not only required.
func (n *Node) described() bool {
	for _, p := range n.Properties {
		if !p.undescribed {
			return true
		}
	}
	return false
}

func allConstants(alts []*Node) bool {
	for _, a := range alts {
		if a.Const == nil && len(a.Enum) != 1 || len(a.Properties) > 0 || a.Items != nil || len(a.Choices) > 0 {
			return false
		}
	}
	return true
}

// findDiscriminator is a property every choice has with a different
// constant value, as in a tagged union written without "discriminator"
// (zod's discriminatedUnion).
func findDiscriminator(alts []*Node) string {
	if len(alts) < 2 || alts[0].Type != "object" {
		return ""
	}
	for _, p := range alts[0].Properties {
		seen := map[string]bool{}
		ok := true
		for _, a := range alts {
			q := a.Property(p.Name)
			if a.Type != "object" || q == nil || q.Const == nil && len(q.Enum) != 1 || seen[string(q.constant())] {
				ok = false
				break
			}
			seen[string(q.constant())] = true
		}
		if ok {
			return p.Name
		}
	}
	return ""
}

// Property is the property named name, or nil.
func (n *Node) Property(name string) *Property {
	for _, p := range n.Properties {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// clone copies n so that merging into the copy leaves n as it was.
func (n *Node) clone() *Node {
	c := *n
	c.Properties = slices.Clone(n.Properties)
	c.Choices = slices.Clone(n.Choices)
	c.ChoiceAt = slices.Clone(n.ChoiceAt)
	c.Enum = slices.Clone(n.Enum)
	c.EnumTitles = slices.Clone(n.EnumTitles)
	return &c
}

// absorb merges s into n, as allOf does (and a $ref with keywords beside
// it): what n says itself wins (its title, description, default), what
// only s says is added, properties are merged by name, and null stays
// accepted only when both typed sides accept it.
func (n *Node) absorb(s *Node) {
	switch {
	case n.typed && s.typed:
		n.Nullable = n.Nullable && s.Nullable
	case s.typed:
		n.Nullable = s.Nullable
	}
	n.typed = n.typed || s.typed
	if n.Type == "" && len(n.Choices) == 0 {
		n.Type = s.Type
	}
	str := func(dst *string, src string) {
		if *dst == "" {
			*dst = src
		}
	}
	str(&n.Title, s.Title)
	str(&n.Description, s.Description)
	str(&n.Format, s.Format)
	str(&n.Pattern, s.Pattern)
	str(&n.Ref, s.Ref)
	str(&n.Opaque, s.Opaque)
	str(&n.Discriminator, s.Discriminator)
	raw := func(dst *json.RawMessage, src json.RawMessage) {
		if *dst == nil {
			*dst = src
		}
	}
	raw(&n.Default, s.Default)
	raw(&n.Const, s.Const)
	if n.Enum == nil {
		n.Enum, n.EnumTitles = s.Enum, s.EnumTitles
	}
	for _, pair := range [][2]**float64{{&n.Minimum, &s.Minimum}, {&n.Maximum, &s.Maximum}, {&n.ExclusiveMinimum, &s.ExclusiveMinimum}, {&n.ExclusiveMaximum, &s.ExclusiveMaximum}} {
		if *pair[0] == nil {
			*pair[0] = *pair[1]
		}
	}
	for _, pair := range [][2]**int{{&n.MinLength, &s.MinLength}, {&n.MaxLength, &s.MaxLength}, {&n.MinItems, &s.MinItems}, {&n.MaxItems, &s.MaxItems}} {
		if *pair[0] == nil {
			*pair[0] = *pair[1]
		}
	}
	n.Properties = slices.Clone(n.Properties)
	for _, sp := range s.Properties {
		i := slices.IndexFunc(n.Properties, func(p *Property) bool { return p.Name == sp.Name })
		if i < 0 {
			n.Properties = append(n.Properties, sp)
			continue
		}
		merged := n.Properties[i].Node.clone()
		merged.absorb(sp.Node)
		n.Properties[i] = &Property{Name: sp.Name, Required: n.Properties[i].Required || sp.Required, Node: merged}
	}
	if n.Additional == nil {
		n.Additional = s.Additional
	}
	n.NoAdditional = n.NoAdditional || s.NoAdditional
	n.WriteOnly = n.WriteOnly || s.WriteOnly
	switch {
	case n.Items == nil:
		n.Items = s.Items
	case s.Items != nil:
		merged := n.Items.clone()
		merged.absorb(s.Items)
		n.Items = merged
	}
	if len(n.Choices) == 0 && len(s.Choices) > 0 {
		n.Choices, n.ChoiceAt, n.Type = s.Choices, s.ChoiceAt, ""
	}
}

// infer gives an untyped node the type its keywords imply.
func (n *Node) infer() {
	if n.Type != "" || len(n.Choices) > 0 || n.Opaque != "" {
		return
	}
	switch {
	case n.described() || n.Additional != nil || n.NoAdditional:
		n.Type = "object"
	case n.Items != nil:
		n.Type = "array"
	case n.Const != nil:
		n.Type = jsonType(n.Const)
	case len(n.Enum) > 0:
		t := jsonType(n.Enum[0])
		for _, e := range n.Enum {
			if jsonType(e) != t {
				return
			}
		}
		n.Type = t
	}
}

// jsonType is the JSON type of a value ("number" for every number).
func jsonType(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return ""
	}
	switch t[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// member is one member of a schema object: its key and raw value.
type member = jsonrpc.RawMember

// members splits a JSON object into its members in their order (authors
// order properties on purpose, and a map would shuffle them), without
// decoding the values: each is read only if the model needs it.
func members(raw json.RawMessage) []member { return jsonrpc.Members(raw) }
