package present

import (
	"bytes"
	"encoding/json"
)

// maxSkeletonDepth bounds how deep a skeleton follows nested objects: a
// hostile schema may nest thousands of levels.
const maxSkeletonDepth = 8

// Skeleton is an example arguments object for a JSON Schema, for a person
// to start typing from instead of {}: every required property (and every
// property with a default), each with its default, else its first enum
// value, else an empty value of its type; nested objects get their own
// skeleton. Properties keep the schema's order. A schema that is not an
// object schema gives {}.
func Skeleton(schema json.RawMessage) json.RawMessage {
	v := skeleton(schema, 0)
	if _, ok := v.(orderedObject); !ok {
		v = orderedObject{}
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return json.RawMessage("{}")
	}
	return out
}

type schemaShape struct {
	Type       json.RawMessage   `json:"type"`
	Properties json.RawMessage   `json:"properties"`
	Required   []string          `json:"required"`
	Enum       []json.RawMessage `json:"enum"`
	Const      json.RawMessage   `json:"const"`
	Default    json.RawMessage   `json:"default"`
	Items      json.RawMessage   `json:"items"`
}

func (s *schemaShape) typeName() string { return SchemaType(s.Type, len(s.Properties) > 0) }

// SchemaType is a schema's type from its "type" member: the name, or the
// first non-null one of a list; "object" when it has none but properties.
func SchemaType(typ json.RawMessage, hasProperties bool) string {
	var t string
	if json.Unmarshal(typ, &t) == nil {
		return t
	}
	var list []string
	_ = json.Unmarshal(typ, &list)
	for _, t := range list {
		if t != "null" {
			return t
		}
	}
	if hasProperties {
		return "object"
	}
	return ""
}

// orderedObject is a JSON object whose keys keep their order.
type orderedObject []member

type member struct {
	key   string
	value any
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func skeleton(raw json.RawMessage, depth int) any {
	var s schemaShape
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	switch {
	case len(s.Default) > 0:
		return json.RawMessage(s.Default)
	case len(s.Const) > 0:
		return json.RawMessage(s.Const)
	case len(s.Enum) > 0:
		return json.RawMessage(s.Enum[0])
	}
	switch s.typeName() {
	case "object":
		obj := orderedObject{}
		if depth >= maxSkeletonDepth {
			return obj
		}
		required := map[string]bool{}
		for _, r := range s.Required {
			required[r] = true
		}
		for _, p := range properties(s.Properties) {
			var ps schemaShape
			_ = json.Unmarshal(p.raw, &ps)
			if required[p.name] || len(ps.Default) > 0 {
				obj = append(obj, member{key: p.name, value: skeleton(p.raw, depth+1)})
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

type property struct {
	name string
	raw  json.RawMessage
}

// properties decodes "properties" in the schema's key order.
func properties(raw json.RawMessage) []property {
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
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out
		}
		out = append(out, property{name: name, raw: v})
	}
	return out
}
