package runtime

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestValidateArguments(t *testing.T) {
	t.Parallel()
	schema := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer","minimum":1}},"required":["text"]}`)
	cases := []struct {
		args string
		want []string // substrings of the FieldError strings, in order
	}{
		{`{"text":"hi"}`, nil},
		{`{}`, []string{"missing property 'text'"}},
		{`{"text":5}`, []string{"/text: "}},
		{`{"text":"x","n":0}`, []string{"/n: "}},
		{`not json`, []string{"not valid JSON"}},
	}
	for _, tc := range cases {
		errs, err := ValidateArguments(schema, json.RawMessage(tc.args))
		if err != nil {
			t.Fatalf("%s: %v", tc.args, err)
		}
		if len(errs) != len(tc.want) {
			t.Fatalf("%s: got %v, want %d errors", tc.args, errs, len(tc.want))
		}
		for i, w := range tc.want {
			if !strings.Contains(errs[i].String(), w) {
				t.Errorf("%s: error %d = %q, want it to contain %q", tc.args, i, errs[i], w)
			}
		}
	}
	if _, err := ValidateArguments(json.RawMessage(`{"type":"strnig"}`), nil); err == nil {
		t.Fatal("an invalid schema compiled")
	}
}

// nestedSchema is an object schema whose property "a" is an object schema
// whose property "a" is ..., levels deep: 2 JSON levels per schema level.
func nestedSchema(levels int) json.RawMessage {
	return json.RawMessage(strings.Repeat(`{"type":"object","properties":{"a":`, levels) + `{"type":"string"}` + strings.Repeat(`}}`, levels))
}

// A server's schema nested 2,000 levels took 29 s to compile (and held a
// call and its ctrl+c that long); it is refused before compiling.
func TestDeepSchemaIsRefusedBeforeCompiling(t *testing.T) {
	t.Parallel()
	for name, schema := range map[string]json.RawMessage{
		"deep":  nestedSchema(2000),
		"large": json.RawMessage(`{"type":"object","description":"` + strings.Repeat("x", MaxSchemaBytes) + `"}`),
	} {
		_, err := ValidateArguments(schema, json.RawMessage(`{}`))
		var se *SchemaError
		if !errors.Is(err, ErrSchemaTooComplex) || !errors.As(err, &se) {
			t.Errorf("%s: ValidateArguments = %v, want a *SchemaError wrapping ErrSchemaTooComplex", name, err)
		}
		if err := CheckSchemaBounds(schema); !errors.Is(err, ErrSchemaTooComplex) {
			t.Errorf("%s: CheckSchemaBounds = %v", name, err)
		}
	}
	// Brackets inside strings are text, not nesting.
	if err := CheckSchemaBounds(json.RawMessage(`{"description":"` + strings.Repeat("[{", 500) + `"}`)); err != nil {
		t.Errorf("brackets in a string counted as nesting: %v", err)
	}
}

// Schemas within the bounds still validate as before.
func TestSchemaAtTheBoundValidates(t *testing.T) {
	t.Parallel()
	schema := nestedSchema(MaxSchemaNesting/2 - 1)
	errs, err := ValidateArguments(schema, json.RawMessage(`{"a":{"a":5}}`))
	if err != nil || len(errs) != 1 || !strings.HasPrefix(errs[0].Path, "/a/a") {
		t.Fatalf("ValidateArguments = %v, %v; want one violation at /a/a", errs, err)
	}
}

// BenchmarkCompileSchemaAtTheBound measures the worst compile a server can
// cause per distinct schema: nested to the limit.
func BenchmarkCompileSchemaAtTheBound(b *testing.B) {
	for i := range b.N {
		// A distinct description per iteration defeats the cache.
		schema := append(json.RawMessage(`{"description":"`+strconv.Itoa(i)+`","allOf":[`), nestedSchema(MaxSchemaNesting/2-2)...)
		schema = append(schema, "]}"...)
		if _, err := CompileSchema(schema); err != nil {
			b.Fatal(err)
		}
	}
}

// ExampleArguments of a FastMCP (Pydantic) tool's schema: $defs, a $ref'd
// enum with a default, Optional as anyOf with null, allOf around a $ref'd
// model. The skeleton follows them all; {} and oversized ones are nil.
func TestExampleArgumentsOfAPydanticSchema(t *testing.T) {
	s := json.RawMessage(`{"$defs":{"Priority":{"enum":["low","medium","high"],"type":"string"},
		"Address":{"properties":{"street":{"type":"string"},"zip":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null}},"required":["street"],"type":"object"}},
		"properties":{"title":{"type":"string"},"priority":{"$ref":"#/$defs/Priority","default":"medium"},
		"address":{"allOf":[{"$ref":"#/$defs/Address"}]},"count":{"type":"integer","default":1}},
		"required":["title","address"],"type":"object"}`)
	want := `{"title":"","priority":"medium","address":{"street":"","zip":null},"count":1}`
	if got := string(ExampleArguments(s)); got != want {
		t.Errorf("example %s, want %s", got, want)
	}
	if got := ExampleArguments(json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)); got != nil {
		t.Errorf("nothing required, nothing defaulted: want nil, got %s", got)
	}
	long := `{"type":"object","required":["a"],"properties":{"a":{"type":"string","default":"` + strings.Repeat("x", maxExampleArguments) + `"}}}`
	if got := ExampleArguments(json.RawMessage(long)); got != nil {
		t.Errorf("an example over %d bytes: want nil, got %d bytes", maxExampleArguments, len(got))
	}
}
