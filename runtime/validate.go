package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	jsonschema "mcpdeck/runtime/internal/jsonschema"
	"mcpdeck/runtime/schema"
)

// The runtime validates with runtime/schema, the one home of JSON Schema
// in mcpdeck; these names keep the runtime's API for its callers.

// FieldError is one schema violation: where in the arguments, and what.
type FieldError = schema.FieldError

// SchemaError is returned when a schema itself does not compile, or is
// refused before compiling (errors.Is(err, ErrSchemaTooComplex)).
type SchemaError = schema.Error

// Bounds on a schema from a server: see schema.MaxNesting and
// schema.MaxBytes.
const (
	MaxSchemaNesting = schema.MaxNesting
	MaxSchemaBytes   = schema.MaxBytes
)

// ErrSchemaTooComplex: a schema is nested deeper than MaxSchemaNesting or
// larger than MaxSchemaBytes, so it is not compiled. For the compatibility
// check it is an authoring failure of the server.
var ErrSchemaTooComplex = schema.ErrTooComplex

// CheckSchemaBounds refuses a schema over MaxSchemaBytes or nested deeper
// than MaxSchemaNesting (schema.CheckBounds).
func CheckSchemaBounds(s json.RawMessage) error { return schema.CheckBounds(s) }

// CompileSchema compiles a tool's schema as arguments are validated
// (schema.Compile, formats not asserted).
func CompileSchema(s json.RawMessage) (*jsonschema.Schema, error) {
	return schema.Compile(s, schema.Options{})
}

// InputSchemaError says why the tool's input schema is not valid JSON
// Schema, so calls cannot validate their arguments against it; nil when
// it compiles, or the tool has none. It compiles the schema when first
// asked, once per schema text (schema.Compile caches a refusal too), and
// the call path validates with that same compile: listing tools costs
// nothing until a face asks.
func (t Tool) InputSchemaError() *SchemaError {
	if len(bytes.TrimSpace(t.InputSchema)) == 0 {
		return nil
	}
	if _, err := CompileSchema(t.InputSchema); err != nil {
		var serr *SchemaError
		if errors.As(err, &serr) {
			return serr
		}
		return &SchemaError{Err: err}
	}
	return nil
}

// inputSchemaRefused is the error of a call of a tool whose input schema
// InputSchemaError refuses: the server's schema is at fault, not the
// arguments.
func inputSchemaRefused(server string, tool *Tool, serr *SchemaError) *CallError {
	return callError(server, "tools/call", &kindError{ErrSchema, fmt.Sprintf(
		"the input schema of tool %q is not valid JSON Schema, so its arguments cannot be checked against it:%s", tool.ServerTool, serr.Problems())})
}

// ValidateArguments checks args (a JSON object; nil means {}) against a
// tool's input schema and returns every violation, sorted by path. A
// schema that does not compile is an error. Formats are annotations here,
// as JSON Schema 2020-12 has them: the server decides.
func ValidateArguments(s, args json.RawMessage) ([]FieldError, error) {
	return schema.Validate(s, args, schema.Options{})
}

// maxExampleArguments bounds the example an ArgumentsError carries: a
// skeleton longer than a few lines helps no one on a terminal (the tool's
// detail, mcpdeck tools SERVER TOOL, prints every one whole).
const maxExampleArguments = 400

// ExampleArguments is the skeleton of a tool's arguments that the TUI's
// raw JSON editor and the tool detail start from (schema.Example),
// compact; nil when it is {} or longer than maxExampleArguments.
func ExampleArguments(inputSchema json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, schema.Example(inputSchema)) != nil || b.Len() > maxExampleArguments || b.String() == "{}" {
		return nil
	}
	return b.Bytes()
}
