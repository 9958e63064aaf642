package check

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"

	"mcpdeck/runtime"
	"mcpdeck/runtime/schema"
)

// maxDepth bounds findID's walk through a notification's params
// (disrupt.go).
const maxDepth = 8

// The checker's arguments come from runtime/schema's model of the tool's
// input schema, the one the TUI's form and the example arguments read:
// references followed, allOf merged, Optional collapsed, unions as
// choices. Whatever it generates is validated against the schema itself
// before it is sent.

// minimal generates the smallest value the node accepts: const, the first
// enum value that does not ask for a failure (see failValue), or default
// where given; else the first choice that works; else required
// properties only, "test" for strings, numbers within their bounds, false,
// and empty arrays. The caller validates the whole against the schema, so
// a guess that misses a pattern is caught there.
func minimal(n *schema.Node) (any, bool) {
	switch {
	case n.Const != nil:
		return n.Const, true
	case len(n.Enum) > 0:
		for _, v := range n.Enum {
			var s string
			if json.Unmarshal(v, &s) != nil || !failValue().MatchString(s) {
				return v, true
			}
		}
		return n.Enum[0], true
	case n.Default != nil:
		return n.Default, true
	}
	if len(n.Choices) > 0 {
		for _, c := range n.Choices {
			if v, ok := minimal(c); ok {
				return v, true
			}
		}
		return nil, false
	}
	switch n.Type {
	case "object":
		return minimalObject(n)
	case "string":
		return minimalString(n), true
	case "number", "integer":
		return minimalNumber(n, n.Type == "integer"), true
	case "boolean":
		return false, true
	case "array":
		out := []any{}
		if n.MinItems != nil && *n.MinItems > 0 {
			items := n.Items
			if items == nil {
				items = &schema.Node{}
			}
			v, ok := minimal(items)
			if !ok {
				return nil, false
			}
			for range *n.MinItems {
				out = append(out, v)
			}
		}
		return out, true
	case "null":
		return nil, true
	}
	return "test", true
}

// failValue matches an enum value that asks a tool for a failure (the
// reference server's get-annotated-message lists messageType "error"
// first): a tool that then answers an error-shaped message did as asked,
// so the checker picks another value when the enum has one.
var failValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)error|fail|exception|crash|panic|abort|invalid|reject|denied|fatal`)
})

// minimalObject is an object with the required properties only.
func minimalObject(n *schema.Node) (map[string]any, bool) {
	out := map[string]any{}
	for _, p := range n.Properties {
		if !p.Required {
			continue
		}
		v, ok := minimal(p.Node)
		if !ok {
			return nil, false
		}
		out[p.Name] = v
	}
	return out, true
}

func minimalString(n *schema.Node) string {
	s := "test"
	switch n.Format {
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
	if n.MinLength != nil && len(s) < *n.MinLength {
		s += strings.Repeat("x", *n.MinLength-len(s))
	}
	if n.MaxLength != nil && len(s) > *n.MaxLength {
		s = s[:*n.MaxLength]
	}
	return s
}

// minimalNumber picks 1 (a harmless count, size or operand; 0 divides
// badly), moved inside the bounds.
func minimalNumber(n *schema.Node, integer bool) float64 {
	v := 1.0
	if n.Minimum != nil && v < *n.Minimum {
		v = *n.Minimum
	}
	if lo := n.ExclusiveMinimum; lo != nil && v <= *lo {
		v = *lo + 1
		if !integer {
			v = *lo + 0.5
		}
	}
	if n.Maximum != nil && v > *n.Maximum {
		v = *n.Maximum
	}
	if hi := n.ExclusiveMaximum; hi != nil && v >= *hi {
		v = *hi - 1
		if !integer {
			v = *hi - 0.5
		}
	}
	if integer {
		v = math.Ceil(v)
	}
	return v
}

// rootObject is the model of a tool's input schema, or why the checker
// cannot read it.
func rootObject(raw json.RawMessage) (*schema.Node, string) {
	n, err := schema.Parse(raw)
	switch {
	case err != nil:
		return nil, "its inputSchema is " + err.Error()
	case n.Opaque != "":
		return nil, "its inputSchema is not a JSON object (" + n.Opaque + ")"
	}
	return n, ""
}

// MinimalArguments generates arguments that satisfy schema: required
// properties only, each its const, first enum value or default, else
// "test", a number within its bounds, false, [] or a nested minimal
// object. It reports false, with the reason, when it cannot produce
// arguments the schema accepts.
func MinimalArguments(raw json.RawMessage) (json.RawMessage, string, bool) {
	root, why := rootObject(raw)
	if root == nil {
		return nil, why, false
	}
	v, ok := minimalObject(root)
	if !ok {
		return nil, "its inputSchema has a required property the checker cannot fill", false
	}
	return validated(raw, v)
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
func InvalidArguments(raw json.RawMessage) (json.RawMessage, string, bool) {
	root, _ := rootObject(raw)
	if root == nil {
		return nil, "", false
	}
	valid, ok := minimalObject(root)
	if !ok {
		return nil, "", false
	}
	try := func(args map[string]any, how string) (json.RawMessage, string, bool) {
		enc, err := json.Marshal(args)
		if err != nil {
			return nil, "", false
		}
		fields, err := runtime.ValidateArguments(raw, enc)
		if err != nil || len(fields) == 0 {
			return nil, "", false
		}
		return enc, how, true
	}
	for _, p := range root.Properties {
		if !p.Required {
			continue
		}
		args := clone(valid)
		delete(args, p.Name)
		if enc, how, ok := try(args, fmt.Sprintf("without the required %q", p.Name)); ok {
			return enc, how, true
		}
	}
	props := slices.Clone(root.Properties)
	slices.SortFunc(props, func(a, b *schema.Property) int { return strings.Compare(a.Name, b.Name) })
	for _, p := range props {
		if p.Type == "" {
			continue
		}
		wrong, label := wrongValue(p.Type)
		args := clone(valid)
		args[p.Name] = wrong
		if enc, how, ok := try(args, fmt.Sprintf("with %q given as %s", p.Name, label)); ok {
			return enc, how, true
		}
	}
	if root.NoAdditional {
		args := clone(valid)
		args["mcpdeck_unexpected"] = "test"
		if enc, how, ok := try(args, `with an unexpected property "mcpdeck_unexpected"`); ok {
			return enc, how, true
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
