package check

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"mcpdeck/runtime"
)

// maxDepth bounds schema recursion: a self-referencing schema must not
// send the generator round in circles.
const maxDepth = 8

// schemaDoc is a parsed input schema with its root, for local $refs.
type schemaDoc struct{ root map[string]any }

func parseSchema(raw json.RawMessage) (schemaDoc, bool) {
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil || root == nil {
		return schemaDoc{}, false
	}
	return schemaDoc{root: root}, true
}

// resolve follows local "#/..." references.
func (d schemaDoc) resolve(n map[string]any) map[string]any {
	for i := 0; i < maxDepth; i++ {
		ref, ok := n["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#") {
			return n
		}
		var cur any = d.root
		for _, tok := range strings.Split(strings.TrimPrefix(ref, "#"), "/") {
			if tok == "" {
				continue
			}
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			m, ok := cur.(map[string]any)
			if !ok {
				return n
			}
			cur = m[tok]
		}
		next, ok := cur.(map[string]any)
		if !ok {
			return n
		}
		n = next
	}
	return n
}

// types lists the node's JSON types; an untyped node is inferred from its
// keywords.
func types(n map[string]any) []string {
	switch t := n["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, v := range t {
			if s, ok := v.(string); ok && s != "null" {
				out = append(out, s)
			}
		}
		return out
	}
	switch {
	case n["properties"] != nil || n["required"] != nil:
		return []string{"object"}
	case n["items"] != nil:
		return []string{"array"}
	}
	return nil
}

// minimal generates the smallest value the node accepts: const, enum[0] or
// default where given; else required properties only, "test" for strings,
// numbers within their bounds, false, and empty arrays. The caller
// validates the whole against the schema, so a guess that misses a pattern
// is caught there.
func (d schemaDoc) minimal(n map[string]any, depth int) (any, bool) {
	if depth > maxDepth {
		return nil, false
	}
	n = d.resolve(n)
	if v, ok := n["const"]; ok {
		return v, true
	}
	if e, ok := n["enum"].([]any); ok && len(e) > 0 {
		return e[0], true
	}
	if v, ok := n["default"]; ok {
		return v, true
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts, ok := n[key].([]any); ok {
			for _, a := range alts {
				if m, ok := a.(map[string]any); ok {
					if v, ok := d.minimal(m, depth+1); ok {
						return v, true
					}
				}
			}
			return nil, false
		}
	}
	if all, ok := n["allOf"].([]any); ok {
		merged := map[string]any{}
		for k, v := range n {
			if k != "allOf" {
				merged[k] = v
			}
		}
		for _, a := range all {
			if m, ok := a.(map[string]any); ok {
				mergeSchema(merged, d.resolve(m))
			}
		}
		return d.minimal(merged, depth+1)
	}
	ts := types(n)
	if len(ts) == 0 {
		return "test", true
	}
	switch ts[0] {
	case "object":
		return d.minimalObject(n, depth)
	case "string":
		return minimalString(n), true
	case "number", "integer":
		return minimalNumber(n, ts[0] == "integer"), true
	case "boolean":
		return false, true
	case "array":
		min := number(n["minItems"])
		out := []any{}
		if min > 0 {
			items, _ := n["items"].(map[string]any)
			if items == nil {
				items = map[string]any{}
			}
			v, ok := d.minimal(items, depth+1)
			if !ok {
				return nil, false
			}
			for i := 0; i < int(min); i++ {
				out = append(out, v)
			}
		}
		return out, true
	case "null":
		return nil, true
	}
	return nil, false
}

func (d schemaDoc) minimalObject(n map[string]any, depth int) (any, bool) {
	props, _ := n["properties"].(map[string]any)
	out := map[string]any{}
	for _, r := range required(n) {
		p, _ := props[r].(map[string]any)
		if p == nil {
			p, _ = n["additionalProperties"].(map[string]any)
		}
		if p == nil {
			p = map[string]any{}
		}
		v, ok := d.minimal(p, depth+1)
		if !ok {
			return nil, false
		}
		out[r] = v
	}
	return out, true
}

func mergeSchema(into, from map[string]any) {
	for k, v := range from {
		switch k {
		case "properties":
			props, _ := into["properties"].(map[string]any)
			if props == nil {
				props = map[string]any{}
			}
			if m, ok := v.(map[string]any); ok {
				for pk, pv := range m {
					props[pk] = pv
				}
			}
			into["properties"] = props
		case "required":
			have, _ := into["required"].([]any)
			if r, ok := v.([]any); ok {
				into["required"] = append(have, r...)
			}
		default:
			if _, exists := into[k]; !exists {
				into[k] = v
			}
		}
	}
}

func required(n map[string]any) []string {
	var out []string
	if r, ok := n["required"].([]any); ok {
		for _, v := range r {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func minimalString(n map[string]any) string {
	s := "test"
	switch n["format"] {
	case "uri", "url", "iri":
		s = "https://example.com/"
	case "email":
		s = "test@example.com"
	case "date-time":
		s = "2025-01-01T00:00:00Z"
	case "date":
		s = "2025-01-01"
	case "time":
		s = "00:00:00Z"
	case "uuid":
		s = "00000000-0000-4000-8000-000000000000"
	}
	if min := int(number(n["minLength"])); len(s) < min {
		s += strings.Repeat("x", min-len(s))
	}
	if max, ok := n["maxLength"].(float64); ok && len(s) > int(max) {
		s = s[:int(max)]
	}
	return s
}

// minimalNumber picks 1 (a harmless count, size or operand; 0 divides
// badly), moved inside the bounds.
func minimalNumber(n map[string]any, integer bool) float64 {
	v := 1.0
	if lo, ok := n["minimum"].(float64); ok && v < lo {
		v = lo
	}
	if lo, ok := n["exclusiveMinimum"].(float64); ok && v <= lo {
		v = lo + 1
		if !integer {
			v = lo + 0.5
		}
	}
	if hi, ok := n["maximum"].(float64); ok && v > hi {
		v = hi
	}
	if hi, ok := n["exclusiveMaximum"].(float64); ok && v >= hi {
		v = hi - 1
		if !integer {
			v = hi - 0.5
		}
	}
	if integer {
		v = math.Ceil(v)
	}
	return v
}

func number(v any) float64 {
	f, _ := v.(float64)
	return f
}

// MinimalArguments generates arguments that satisfy schema: required
// properties only, each its const, first enum value or default, else
// "test", a number within its bounds, false, [] or a nested minimal
// object. It reports false, with the reason, when it cannot produce
// arguments the schema accepts.
func MinimalArguments(schema json.RawMessage) (json.RawMessage, string, bool) {
	d, ok := parseSchema(schema)
	if !ok {
		return nil, "its inputSchema is not a JSON object", false
	}
	v, ok := d.minimalObject(d.resolve(d.root), 0)
	if !ok {
		return nil, "its inputSchema has a required property the checker cannot fill", false
	}
	return validated(schema, v)
}

func validated(schema json.RawMessage, v any) (json.RawMessage, string, bool) {
	args, err := json.Marshal(v)
	if err != nil {
		return nil, "generated arguments do not encode: " + err.Error(), false
	}
	fields, err := runtime.ValidateArguments(schema, args)
	if err != nil {
		return nil, "its inputSchema does not compile: " + err.Error(), false
	}
	if len(fields) > 0 {
		return nil, "generated arguments " + string(args) + " do not satisfy its inputSchema (" + fields[0].String() + ")", false
	}
	return args, "", true
}

// InvalidArguments generates arguments that break schema and says how:
// minimal valid arguments without a required property, else with a
// property of the wrong type, else with an unexpected property where
// additionalProperties is false. It reports false when the schema accepts
// anything.
func InvalidArguments(schema json.RawMessage) (json.RawMessage, string, bool) {
	d, ok := parseSchema(schema)
	if !ok {
		return nil, "", false
	}
	root := d.resolve(d.root)
	base, ok := d.minimalObject(root, 0)
	if !ok {
		return nil, "", false
	}
	valid := base.(map[string]any)
	try := func(args map[string]any, how string) (json.RawMessage, string, bool) {
		raw, err := json.Marshal(args)
		if err != nil {
			return nil, "", false
		}
		fields, err := runtime.ValidateArguments(schema, raw)
		if err != nil || len(fields) == 0 {
			return nil, "", false
		}
		return raw, how, true
	}
	for _, r := range required(root) {
		args := clone(valid)
		delete(args, r)
		if raw, how, ok := try(args, fmt.Sprintf("without the required %q", r)); ok {
			return raw, how, true
		}
	}
	props, _ := root["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		p, _ := props[name].(map[string]any)
		if p == nil {
			continue
		}
		ts := types(d.resolve(p))
		if len(ts) == 0 {
			continue
		}
		wrong, label := wrongValue(ts[0])
		args := clone(valid)
		args[name] = wrong
		if raw, how, ok := try(args, fmt.Sprintf("with %q given as %s", name, label)); ok {
			return raw, how, true
		}
	}
	if ap, ok := root["additionalProperties"].(bool); ok && !ap {
		args := clone(valid)
		args["mcpdeck_unexpected"] = "test"
		if raw, how, ok := try(args, `with an unexpected property "mcpdeck_unexpected"`); ok {
			return raw, how, true
		}
	}
	return nil, "", false
}

func wrongValue(typ string) (any, string) {
	switch typ {
	case "string":
		return 12345, "a number"
	case "boolean":
		return "not-a-boolean", "a string"
	case "object":
		return "not-an-object", "a string"
	case "array":
		return "not-an-array", "a string"
	}
	return "not-a-number", "a string"
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
