package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
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

// SchemaError is returned when a schema itself does not compile.
type SchemaError struct{ Err error }

func (e *SchemaError) Error() string { return "invalid JSON Schema: " + e.Err.Error() }
func (e *SchemaError) Unwrap() error { return e.Err }

// schemaCache keeps compiled schemas by their text; tool schemas are
// validated on every call and compiling is the expensive part.
var schemaCache sync.Map // string → *jsonschema.Schema

// CompileSchema compiles a JSON Schema (2020-12 unless $schema says
// otherwise). It never fetches remote references.
func CompileSchema(schema json.RawMessage) (*jsonschema.Schema, error) {
	key := string(schema)
	if s, ok := schemaCache.Load(key); ok {
		return s.(*jsonschema.Schema), nil
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
