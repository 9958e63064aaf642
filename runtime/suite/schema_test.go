package suite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/goccy/go-yaml"

	"mcpdeck/runtime"
)

// validateSchema checks a suite's YAML against mcptest.schema.json, the
// schema editors are given.
func validateSchema(t *testing.T, text []byte) []runtime.FieldError {
	t.Helper()
	schema, err := os.ReadFile("mcptest.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := yaml.YAMLToJSON(text)
	if err != nil {
		t.Fatal(err)
	}
	fields, err := runtime.ValidateArguments(schema, doc)
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	return fields
}

// The editor's schema accepts what the parser accepts: the interop
// suites and a suite written from a recording or the T key.
func TestSchemaAcceptsSuites(t *testing.T) {
	for _, name := range []string{"peer", "everything"} {
		text, err := os.ReadFile(filepath.Join("testdata", name+Ext))
		if err != nil {
			t.Fatal(err)
		}
		if errs := validateSchema(t, text); len(errs) > 0 {
			t.Errorf("%s: %v", name, errs)
		}
	}
	text, err := NewSuite("demo", "written", []NewStep{
		{ID: "a", Kind: KindCall, Target: "echo", Args: map[string]any{"text": "x"}, Snapshot: map[string]any{}},
		{ID: "b", Kind: KindComplete, Complete: &CompleteSpec{Prompt: "p", Argument: "a", Value: ""}, Equals: []PathValue{{Path: "$.completion.values", Value: []any{}}}},
		{ID: "c", Kind: KindRead, Target: "x://y", Error: &RecordedError{Code: -32002, Message: "not found (x)"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse("new.mcptest.yaml", text); err != nil {
		t.Errorf("parser: %v\n%s", err, text)
	}
	if errs := validateSchema(t, text); len(errs) > 0 {
		t.Errorf("written suite: %v\n%s", errs, text)
	}
}

// ... and rejects what it rejects.
func TestSchemaRejects(t *testing.T) {
	for _, text := range []string{
		"server: x\nsteps:\n  - list: tools\n    call: echo\n",
		"server: x\nsteps:\n  - call: a\n    expect: {isErr: true}\n",
		"server: x\nsteps:\n  - list: tool\n",
		"server: x\nsteps: []\n",
		"steps:\n  - list: tools\n",
		"server: x\nprotocol: new\nsteps:\n  - list: tools\n",
		"server: x\nsteps:\n  - call: a\n    timeout: 5\n",
		"server: x\nsteps:\n  - call: a\n    expect: {equals: {content: 1}}\n",
	} {
		if _, err := Parse("s.mcptest.yaml", []byte(text)); err == nil {
			t.Errorf("the parser accepted:\n%s", text)
		}
		if errs := validateSchema(t, []byte(text)); len(errs) == 0 {
			t.Errorf("the schema accepted:\n%s", text)
		}
	}
}
