// Package schema is mcpdeck's one reading of JSON Schema, the language
// servers describe tool arguments, structured results and elicitation forms
// in. It owns the bounds a schema from a server must keep, a resolved model
// of a schema (Parse: $ref followed with a cycle guard, nullable unions
// collapsed into optional fields, unions of objects turned into choices,
// allOf merged) that the TUI's forms, the example arguments, the
// compatibility check's argument synthesis, the headless elicitation
// answers and the tool detail all read, validation with the vendored
// validator (Validate), and bounded output of hostile schemas (ForOutput).
//
// Nothing here recurses over a schema that has not passed CheckBounds, and
// the model stops at MaxDepth levels and MaxNodes nodes, so a hostile schema
// costs a linear scan and a visible "edit as raw JSON", never a stack or a
// gigabyte.
package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Bounds on a schema from a server, checked before anything else reads it.
// Compiling costs about the cube of the nesting depth (64 levels of
// object-in-property take about 7 ms, 256 levels 0.4 s, 2,000 levels 29 s),
// so a hostile schema could hold a call, and the ctrl+c that would cancel
// it, for minutes. Real tool schemas nest a handful of levels and weigh
// kilobytes.
const (
	// MaxNesting bounds the JSON nesting of a schema (an object property is
	// two levels: its "properties" object and its schema).
	MaxNesting = 128
	// MaxBytes bounds a schema's size.
	MaxBytes = 1 << 20
)

// ErrTooComplex: a schema is nested deeper than MaxNesting or larger than
// MaxBytes, so it is neither compiled nor modelled. For the compatibility
// check it is an authoring failure of the server.
var ErrTooComplex = errors.New("schema too large or too deeply nested")

// Error is returned when a schema itself does not compile, or is refused
// before compiling (errors.Is(err, ErrTooComplex)).
type Error struct {
	Err error
	// Fields are the schema's violations of the JSON Schema meta-schema,
	// path first as Validate has them, the paths JSON pointers into the
	// schema ("/properties/qty/type"). Empty when the schema was refused
	// for another reason (the bounds, a $ref or pattern that does not
	// compile): Err says it in one line.
	Fields []FieldError
}

func (e *Error) Error() string { return "invalid JSON Schema:" + e.Problems() }
func (e *Error) Unwrap() error { return e.Err }

// Lines says what is wrong with the schema, a line each: its violations
// of the meta-schema, path first ("/properties/qty/type: …"), as mcpdeck
// lists the violations of arguments; or the compiler's one reason. The
// validator's own text nests its causes over many unevenly indented lines.
func (e *Error) Lines() []string {
	if len(e.Fields) == 0 {
		return []string{e.Err.Error()}
	}
	lines := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		lines[i] = f.String()
	}
	return lines
}

// Problems is Lines to follow a colon: one reason after a space, or each
// violation on a line of its own, indented by two spaces.
func (e *Error) Problems() string {
	if len(e.Fields) == 0 {
		return " " + e.Err.Error()
	}
	return "\n  " + strings.Join(e.Lines(), "\n  ")
}

// CheckBounds refuses a schema over MaxBytes or nested deeper than
// MaxNesting, with an *Error wrapping ErrTooComplex. It costs one linear
// scan, so it is cheap to run before anything else looks at a schema.
func CheckBounds(schema json.RawMessage) error {
	if len(schema) > MaxBytes {
		return &Error{Err: fmt.Errorf("%w: %s bytes, over the %s-byte limit", ErrTooComplex, thousands(len(schema)), thousands(MaxBytes))}
	}
	if d := Nesting(schema); d > MaxNesting {
		return &Error{Err: fmt.Errorf("%w: nested %s levels deep, over the limit of %d", ErrTooComplex, thousands(d), MaxNesting)}
	}
	return nil
}

// Nesting returns the deepest nesting of objects and arrays in b, without
// recursing; brackets inside strings are text.
func Nesting(b []byte) int {
	depth, deepest := 0, 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		}
	}
	return deepest
}

// thousands writes n with comma separators: sizes in messages are read by
// people.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
