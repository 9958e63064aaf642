package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	jsonschema "mcpdeck/runtime/internal/jsonschema"
)

var printer = message.NewPrinter(language.English)

// FieldError is one schema violation: where in the arguments, and what.
type FieldError struct {
	Path    string `json:"path"` // JSON pointer into the arguments, "" for the root
	Message string `json:"message"`
}

func (f FieldError) String() string {
	if f.Path == "" {
		return f.Message
	}
	return f.Path + ": " + f.Message
}

// Bounds on a schema from a server, checked before it is compiled.
// Compiling costs about the cube of the nesting depth (64 levels of
// object-in-property take about 7 ms, 256 levels 0.4 s, 2,000 levels 29 s),
// so a hostile schema could hold a call, and the ctrl+c that would cancel
// it, for minutes. Real tool schemas nest a handful of levels and weigh
// kilobytes.
const (
	// MaxSchemaNesting bounds the JSON nesting of a schema (an object
	// property is two levels: its "properties" object and its schema).
	MaxSchemaNesting = 128
	// MaxSchemaBytes bounds a schema's size.
	MaxSchemaBytes = 1 << 20
)

// ErrSchemaTooComplex: a schema is nested deeper than MaxSchemaNesting or
// larger than MaxSchemaBytes, so it is not compiled. For the compatibility
// check it is an authoring failure of the server.
var ErrSchemaTooComplex = errors.New("schema too large or too deeply nested")

// SchemaError is returned when a schema itself does not compile, or is
// refused before compiling (errors.Is(err, ErrSchemaTooComplex)).
type SchemaError struct{ Err error }

func (e *SchemaError) Error() string { return "invalid JSON Schema: " + e.Err.Error() }
func (e *SchemaError) Unwrap() error { return e.Err }

// schemaCache keeps compiled schemas by their text; tool schemas are
// validated on every call and compiling is the expensive part.
var schemaCache sync.Map // string → *jsonschema.Schema

// CheckSchemaBounds refuses a schema over MaxSchemaBytes or nested deeper
// than MaxSchemaNesting, with an error wrapping ErrSchemaTooComplex. It
// costs one linear scan, so it is cheap to run before anything else looks
// at a schema (the compatibility check reports it as an authoring failure).
func CheckSchemaBounds(schema json.RawMessage) error {
	if len(schema) > MaxSchemaBytes {
		return &SchemaError{Err: fmt.Errorf("%w: %d bytes, over the %d-byte limit", ErrSchemaTooComplex, len(schema), MaxSchemaBytes)}
	}
	if d := jsonNesting(schema); d > MaxSchemaNesting {
		return &SchemaError{Err: fmt.Errorf("%w: nested %d levels deep, over the limit of %d", ErrSchemaTooComplex, d, MaxSchemaNesting)}
	}
	return nil
}

// jsonNesting returns the deepest nesting of objects and arrays in b,
// without recursing.
func jsonNesting(b []byte) int {
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

// CompileSchema compiles a JSON Schema (2020-12 unless $schema says
// otherwise). It never fetches remote references. A schema outside the
// bounds of CheckSchemaBounds is refused before compiling. Compiling
// happens only here, when a schema is first used to validate, on the
// caller's goroutine (never on a connection's read loop), and the result
// is cached by the schema's text.
func CompileSchema(schema json.RawMessage) (*jsonschema.Schema, error) {
	key := string(schema)
	if s, ok := schemaCache.Load(key); ok {
		return s.(*jsonschema.Schema), nil
	}
	if err := CheckSchemaBounds(schema); err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, &SchemaError{Err: err}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noRemote{})
	const loc = "mcpdeck:///schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, &SchemaError{Err: err}
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil, &SchemaError{Err: err}
	}
	schemaCache.Store(key, s)
	return s, nil
}

// warmOnce compiles a trivial schema once, in the background, as soon as
// mcpdeck connects to its first server: the validator compiles its
// meta-schemas on first use (several milliseconds), which would otherwise
// land on the first call a person (or a one-shot mcpdeck call) makes.
var warmOnce sync.Once

func warmSchemas() {
	warmOnce.Do(func() {
		go func() { _, _ = CompileSchema(json.RawMessage(`{"type":"object"}`)) }()
	})
}

type noRemote struct{}

func (noRemote) Load(url string) (any, error) {
	return nil, fmt.Errorf("remote schema references are not fetched: %s", url)
}

// ValidateArguments checks args (a JSON object; nil means {}) against a
// tool's input schema and returns every violation, most specific first.
// A schema that does not compile is an error.
func ValidateArguments(schema, args json.RawMessage) ([]FieldError, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil, nil
	}
	s, err := CompileSchema(schema)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return []FieldError{{Message: "arguments are not valid JSON: " + err.Error()}}, nil
	}
	err = s.Validate(inst)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	var out []FieldError
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			fe := FieldError{Path: pointer(e.InstanceLocation), Message: e.ErrorKind.LocalizedString(printer)}
			if !seen[fe.String()] {
				seen[fe.String()] = true
				out = append(out, fe)
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func pointer(loc []string) string {
	if len(loc) == 0 {
		return ""
	}
	var b strings.Builder
	for _, tok := range loc {
		b.WriteByte('/')
		tok = strings.ReplaceAll(tok, "~", "~0")
		b.WriteString(strings.ReplaceAll(tok, "/", "~1"))
	}
	return b.String()
}
