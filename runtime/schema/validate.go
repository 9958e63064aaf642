package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	jsonschema "mcpdeck/runtime/internal/jsonschema"
	"mcpdeck/runtime/internal/jsonschema/kind"
)

var printer = message.NewPrinter(language.English)

// FieldError is one schema violation: where in the instance, and what.
type FieldError struct {
	Path    string `json:"path"` // JSON pointer into the instance, "" for the root
	Message string `json:"message"`
	// Alternatives are the anyOf/oneOf branches the violation belongs to
	// (JSON pointers into the schema, as Node.ChoiceAt has them): it
	// matters only if the value was meant as each of them. A form that
	// knows which shape the person chose drops the others' violations.
	Alternatives []string `json:"-"`
}

func (f FieldError) String() string {
	if f.Path == "" {
		return f.Message
	}
	return f.Path + ": " + f.Message
}

// Options change how a schema validates.
type Options struct {
	// AssertFormats checks "format" (email, uri, date, date-time, …) as an
	// assertion. JSON Schema 2020-12 makes format an annotation, so tool
	// arguments are validated without it (the server decides); an
	// elicitation form is validated with it, because the client promises
	// the server values of the formats it asked for.
	AssertFormats bool
	// A new option needs its place in cacheIndex: schemas compiled with
	// different options are cached apart.
}

// cache keeps what compiling each schema gave, the schema or its *Error,
// by the schema's text, one map for each choice of Options (index:
// AssertFormats): tool schemas are validated on every call, and a tool's
// schema is asked about each time the tool is listed or shown, so a
// lookup must cost no copy of the text (a built-in map indexed with
// string(bytes) makes none) and compiling, the expensive part, happens
// once, a refusal too.
var cache struct {
	sync.RWMutex
	byOpts [2]map[string]compiled
}

func cacheIndex(opts Options) int {
	if opts.AssertFormats {
		return 1
	}
	return 0
}

type compiled struct {
	s   *jsonschema.Schema
	err *Error
}

// MetaschemasCompiled reports whether the validator's meta-schemas were
// compiled in this process: a run that validates nothing, or only against
// schemas vouch vouches for, never compiles them (a few milliseconds of
// CPU).
func MetaschemasCompiled() bool { return jsonschema.MetaschemasCompiled() }

// Compile compiles a JSON Schema (2020-12 unless $schema says otherwise).
// It never fetches remote references. A schema outside the bounds of
// CheckBounds is refused before compiling. Compiling happens only here,
// when a schema is first used to validate, on the caller's goroutine
// (never on a connection's read loop), and the result is cached, a
// refusal too (but for one over MaxBytes: the cache would keep its text).
// The validator compiles its meta-schemas on the first Compile of a schema
// that vouch does not vouch for, not before (never, in a process whose
// schemas are all plain).
func Compile(schema json.RawMessage, opts Options) (*jsonschema.Schema, error) {
	if len(schema) > MaxBytes {
		return nil, CheckBounds(schema)
	}
	i := cacheIndex(opts)
	cache.RLock()
	c, ok := cache.byOpts[i][string(schema)]
	cache.RUnlock()
	if ok {
		return c.result()
	}
	s, err := compile(schema, opts)
	c = compiled{s: s}
	if err != nil {
		c = compiled{err: err}
	}
	cache.Lock()
	if cache.byOpts[i] == nil {
		cache.byOpts[i] = map[string]compiled{}
	}
	cache.byOpts[i][string(schema)] = c
	cache.Unlock()
	return c.result()
}

func (c compiled) result() (*jsonschema.Schema, error) {
	if c.err != nil {
		return nil, c.err
	}
	return c.s, nil
}

func compile(schema json.RawMessage, opts Options) (*jsonschema.Schema, *Error) {
	if err := CheckBounds(schema); err != nil {
		return nil, err.(*Error)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, &Error{Err: err}
	}
	return compileDoc(doc, opts, vouch(doc))
}

// compileDoc compiles a decoded schema; vouched (vouch's verdict) leaves
// out validating it against the meta-schema.
func compileDoc(doc any, opts Options, vouched bool) (*jsonschema.Schema, *Error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noRemote{})
	if opts.AssertFormats {
		c.AssertFormat()
	}
	if vouched {
		c.SkipMetaValidation()
	}
	const loc = "mcpdeck:///schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, compileError(err)
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil, compileError(err)
	}
	return s, nil
}

// compileError is the *Error of a schema the compiler refused: a schema
// that violates the meta-schema lists its violations (Error.Fields) as
// Validate lists an instance's.
func compileError(err error) *Error {
	e := &Error{Err: err}
	var sv *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if errors.As(err, &sv) && errors.As(sv.Err, &ve) {
		e.Fields = violations(ve)
	}
	return e
}

type noRemote struct{}

func (noRemote) Load(url string) (any, error) {
	return nil, fmt.Errorf("remote schema references are not fetched: %s", url)
}

// Validate checks instance (a JSON value; empty means {}) against schema
// and returns every violation, sorted by path. An empty schema accepts
// anything. A schema that does not compile is an error (an *Error).
func Validate(schema, instance json.RawMessage, opts Options) ([]FieldError, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil, nil
	}
	s, err := Compile(schema, opts)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(instance)) == 0 {
		instance = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(instance))
	if err != nil {
		return []FieldError{{Message: "not valid JSON: " + err.Error()}}, nil
	}
	err = s.Validate(inst)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	return violations(ve), nil
}

// violations are the leaves of the validator's tree of causes, one
// FieldError each, without repeats, sorted by path.
func violations(ve *jsonschema.ValidationError) []FieldError {
	var out []FieldError
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError, alts []string)
	walk = func(e *jsonschema.ValidationError, alts []string) {
		if len(e.Causes) == 0 {
			fe := FieldError{Path: Pointer(e.InstanceLocation...), Message: e.ErrorKind.LocalizedString(printer), Alternatives: alts}
			key := fe.String() + "\x00" + strings.Join(alts, "\x00")
			if !seen[key] {
				seen[key] = true
				out = append(out, fe)
			}
			return
		}
		union := false
		switch e.ErrorKind.(type) {
		case *kind.AnyOf, *kind.OneOf:
			union = true
		}
		for _, c := range e.Causes {
			if !union {
				walk(c, alts)
				continue
			}
			if nullBranch(c) {
				// "want null" from the null branch of an Optional: the
				// value is not null, so it is meant as the other shape.
				continue
			}
			_, at, _ := strings.Cut(c.SchemaURL, "#")
			walk(c, append(slices.Clip(alts), at))
		}
	}
	walk(ve, nil)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// nullBranch: the violation is that of a branch that accepts only null.
func nullBranch(e *jsonschema.ValidationError) bool {
	t, ok := e.ErrorKind.(*kind.Type)
	return ok && len(e.Causes) == 0 && len(t.Want) == 1 && t.Want[0] == "null"
}

// Pointer is the JSON pointer of a path of object keys and array indexes.
func Pointer(tokens ...string) string {
	var b strings.Builder
	for _, tok := range tokens {
		b.WriteByte('/')
		tok = strings.ReplaceAll(tok, "~", "~0")
		b.WriteString(strings.ReplaceAll(tok, "/", "~1"))
	}
	return b.String()
}
