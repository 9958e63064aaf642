package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"mcpdeck/jsonrpc"
)

// Initial is the value a field starts with: what the TUI's form shows
// before a person types, and what `--elicitation defaults` answers. It
// is the default; else the constant; else, for a required field, the first
// value of an enum, false for a boolean, and null where null is accepted.
// ok is false when there is nothing to pick: a required string or number
// without a default is the person's to give.
func (n *Node) Initial(required bool) (json.RawMessage, bool) {
	switch {
	case n.Default != nil:
		return n.Default, true
	case n.Const != nil:
		return n.Const, true
	case !required:
		return nil, false
	case len(n.Enum) > 0:
		return n.Enum[0], true
	case n.Type == "boolean":
		return json.RawMessage("false"), true
	case n.Type == "null" || n.Nullable:
		return json.RawMessage("null"), true
	}
	return nil, false
}

// Example is arguments for a person to start typing from instead of {}:
// every required property and every property with a default, each with
// its Initial value, else an empty value of its type; nested objects get
// their own example, a choice its first alternative's. Properties keep
// the schema's order. It is bounded by the model (MaxDepth, MaxNodes) and
// is {} for a schema Parse refuses or that is not an object.
func Example(raw json.RawMessage) json.RawMessage {
	n, err := Parse(raw)
	if err != nil {
		return json.RawMessage("{}")
	}
	v := example(n)
	if _, ok := v.(orderedObject); !ok {
		v = orderedObject{}
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return json.RawMessage("{}")
	}
	return out
}

func example(n *Node) any {
	if v, ok := n.Initial(false); ok {
		return v
	}
	if len(n.Enum) > 0 {
		return n.Enum[0]
	}
	if len(n.Choices) > 0 {
		return example(n.Choices[0])
	}
	switch n.Type {
	case "object":
		obj := orderedObject{}
		for _, p := range n.Properties {
			if p.Required || p.Default != nil {
				obj = append(obj, member{Key: p.Name, Value: mustJSON(example(p.Node))})
			}
		}
		return obj
	case "array":
		return []any{}
	case "string":
		return ""
	case "number", "integer":
		return 0
	case "boolean":
		return false
	}
	return nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// orderedObject is a JSON object whose keys keep their order.
type orderedObject []member

// MarshalJSON writes the members in order, keys encoded and values as
// they are (jsonrpc.AppendMembers, how results keep a server's members).
func (o orderedObject) MarshalJSON() ([]byte, error) {
	return jsonrpc.AppendMembers([]byte("{}"), o)
}

// ChoiceLabels names each of n's Choices for a selector: its title, else
// its discriminator's value, else the name of the definition it refers
// to, else its type; labels that would repeat are numbered.
func (n *Node) ChoiceLabels() []string {
	labels := make([]string, len(n.Choices))
	count := map[string]int{}
	for i, c := range n.Choices {
		var l string
		if n.Discriminator != "" {
			if p := c.Property(n.Discriminator); p != nil {
				l = Text(p.constant())
			}
		}
		switch {
		case c.Title != "":
			l = c.Title
		case l != "":
		case c.Ref != "":
			l = RefName(c.Ref)
		default:
			l = c.TypeName()
		}
		labels[i] = l
		count[l]++
	}
	for i, l := range labels {
		if count[l] > 1 {
			labels[i] = l + " " + strconv.Itoa(i+1)
		}
	}
	return labels
}

// TypeName is the node's type for people: "string", "array of integer",
// "any" when the schema does not say.
func (n *Node) TypeName() string {
	switch {
	case n.Type == "array" && n.Items != nil && n.Items.Type != "":
		return "array of " + n.Items.TypeName()
	case n.Type != "":
		return n.Type
	case len(n.Choices) > 0:
		return "one of " + strconv.Itoa(len(n.Choices))
	}
	return "any"
}

// Text is a JSON value as a person reads it: a string as itself, anything
// else as JSON.
func Text(raw json.RawMessage) string {
	var s string
	if jsonType(raw) == "string" && json.Unmarshal(raw, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// Describe is a one-line summary of the node's constraints for people:
// bounds, lengths, pattern and format, in that order.
func (n *Node) Describe() string {
	var parts []string
	num := func(f *float64) string { return strconv.FormatFloat(*f, 'f', -1, 64) }
	switch {
	case n.Minimum != nil && n.Maximum != nil:
		parts = append(parts, fmt.Sprintf("%s to %s", num(n.Minimum), num(n.Maximum)))
	case n.Minimum != nil:
		parts = append(parts, "at least "+num(n.Minimum))
	case n.Maximum != nil:
		parts = append(parts, "at most "+num(n.Maximum))
	}
	if n.ExclusiveMinimum != nil {
		parts = append(parts, "over "+num(n.ExclusiveMinimum))
	}
	if n.ExclusiveMaximum != nil {
		parts = append(parts, "under "+num(n.ExclusiveMaximum))
	}
	count := func(n int, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return strconv.Itoa(n) + " " + one + "s"
	}
	if n.MinLength != nil && *n.MinLength > 0 {
		parts = append(parts, "at least "+count(*n.MinLength, "character"))
	}
	if n.MaxLength != nil {
		parts = append(parts, "at most "+count(*n.MaxLength, "character"))
	}
	if n.MinItems != nil && *n.MinItems > 0 {
		parts = append(parts, "at least "+count(*n.MinItems, "item"))
	}
	if n.MaxItems != nil {
		parts = append(parts, "at most "+count(*n.MaxItems, "item"))
	}
	if n.Format != "" {
		parts = append(parts, "format "+n.Format)
	}
	if n.Pattern != "" {
		parts = append(parts, "matching "+n.Pattern)
	}
	return strings.Join(parts, ", ")
}
