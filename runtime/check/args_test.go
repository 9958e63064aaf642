package check

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mcpdeck/runtime"
)

func realSchema(t *testing.T, name string) json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "schema", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The checker's one successful call and its invalid input are built from
// the schema model, so they hold for the schemas Python and TypeScript
// servers send: $defs, Optional, null-only fields, unions of models. The
// checker's own reading found no invalid input for a tool whose
// parameters are all Optional (anyOf with null, no "type" of its own).
func TestArgumentsForRealSchemas(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]string{
		"fastmcp-complex-arguments.json":   `{"an_int":1,"an_int_annotated_with_field":1,"an_int_annotated_with_field_and_others":2,"an_int_annotated_with_junk":1,"list_of_ints":[],"list_str_or_str":[],"must_be_none":null,"must_be_none_dumb_annotation":null,"my_model_a":{},"my_model_a_forward_ref":{},"my_model_b":{"how_many_shrimp":1,"ok":{"x":1},"y":null},"unannotated":"test"}`,
		"pydantic-main-model.json":         `{"foo_bar":{"count":1}}`,
		"pydantic-discriminated-list.json": `{"n":1,"pet":[]}`,
		"zod-shapes.json":                  `{"color":"red","note":"test","shape":{"kind":"circle","radius":1},"target":"test","title":"test"}`,
		"zod-tree.json":                    `{"root":{"name":"test"}}`,
		"everything-elicitation.json":      `{"name":"test"}`,
		// Every parameter Optional, as FastMCP writes it: the invalid
		// input is a wrong type for one of them.
		"fastmcp-nested-anyof.json": `{}`,
	} {
		raw := realSchema(t, file)
		args, reason, ok := MinimalArguments(raw)
		if !ok || string(args) != want {
			t.Errorf("%s: minimal arguments %s (%s), want %s", file, args, reason, want)
		}
		bad, how, ok := InvalidArguments(raw)
		if !ok {
			t.Errorf("%s: no invalid arguments found", file)
			continue
		}
		if errs, err := runtime.ValidateArguments(raw, bad); err != nil || len(errs) == 0 {
			t.Errorf("%s: the invalid arguments %s (%s) pass", file, bad, how)
		}
	}
}

func TestArgumentsForUnreadableSchemas(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ schema, want string }{
		{`[1,2]`, "not a JSON object"},
		{strings.Repeat(`{"type":"object","properties":{"a":`, 100) + `{}` + strings.Repeat(`}}`, 100), "too large or too deeply nested"},
		{`{"type":"object","properties":{"a":{"type":"string","pattern":"^x$"}},"required":["a"]}`, "do not satisfy"},
	} {
		if _, reason, ok := MinimalArguments(json.RawMessage(tc.schema)); ok || !strings.Contains(reason, tc.want) {
			t.Errorf("%.40s: ok=%v reason %q, want it to say %q", tc.schema, ok, reason, tc.want)
		}
	}
}

// JSON Schema 2020-12 applies the keywords beside a $ref too: the
// checker's own reading replaced the node by its target and lost them.
func TestArgumentsKeepKeywordsBesideARef(t *testing.T) {
	t.Parallel()
	raw := json.RawMessage(`{"$defs":{"Base":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}},
		"$ref":"#/$defs/Base","properties":{"b":{"type":"integer","minimum":5}},"required":["b"]}`)
	if args, reason, ok := MinimalArguments(raw); !ok || string(args) != `{"a":"test","b":5}` {
		t.Errorf("minimal arguments %s (%s)", args, reason)
	}
}

// An enum whose first value asks for a failure gets another value; one
// with nothing else keeps its first.
func TestMinimalArgumentsAvoidFailureEnumValues(t *testing.T) {
	for schema, want := range map[string]string{
		`{"type":"object","properties":{"messageType":{"type":"string","enum":["error","success","debug"]}},"required":["messageType"]}`: `{"messageType":"success"}`,
		`{"type":"object","properties":{"mode":{"enum":["fail"]}},"required":["mode"]}`:                                                  `{"mode":"fail"}`,
		`{"type":"object","properties":{"n":{"enum":[3,4]}},"required":["n"]}`:                                                           `{"n":3}`,
	} {
		got, why, ok := MinimalArguments(json.RawMessage(schema))
		if !ok || string(got) != want {
			t.Errorf("MinimalArguments(%s) = %s %q, want %s", schema, got, why, want)
		}
	}
}
