package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	jsonschema "mcpdeck/runtime/internal/jsonschema"
)

func decode(t *testing.T, src string) any {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(src)))
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return doc
}

// The shapes real servers send are vouched for, so compiling them never
// needs the meta-schemas; what the check does not judge is left to them.
func TestVouchTakesTheShapesServersSend(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) < 8 {
		t.Fatalf("testdata: %v %v", files, err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !vouch(decode(t, string(src))) {
			t.Errorf("%s is not vouched for", f)
		}
	}
	for _, src := range []string{
		// server-everything's (zod 3 through zod-to-json-schema, draft-07)
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"message":{"type":"string","description":"Message to echo"}},"required":["message"],"additionalProperties":false}`,
		// the Go SDK's (jsonschema-go, no $schema), and nullable as a type list
		`{"type":"object","properties":{"n":{"type":["integer","null"],"minimum":0,"maximum":10.5},"tags":{"type":"array","items":{"type":"string"},"uniqueItems":true}},"additionalProperties":false}`,
		// the TypeScript SDK v2's (zod 4, 2020-12)
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"email":{"type":"string","format":"email","pattern":"^[^@]+@[^@]+$"}},"required":["email"]}`,
		`true`, `{}`,
	} {
		if !vouch(decode(t, src)) {
			t.Errorf("not vouched for: %s", src)
		}
	}
	for _, src := range []string{
		`{"type":"strin"}`,
		`{"type":"object","properties":{"a":{"minimum":"1"}}}`,
		`{"required":["a","a"]}`,
		`{"minLength":-1}`,
		`{"minLength":1.5}`,
		`{"multipleOf":0}`,
		`{"anyOf":[]}`,
		`{"enum":"a"}`,
		`{"pattern":"(unclosed"}`,
		`{"patternProperties":{"(":{}}}`,
		`{"$ref":"#/nowhere"}`,
		`{"$ref":"#/$defs/missing","$defs":{}}`,
		`{"$ref":"other.json"}`,
		`{"$ref":"#/$defs/a~1b","$defs":{"a/b":{}}}`,
		`{"$id":"https://example.com/s"}`,
		`{"$anchor":"a"}`,
		`{"properties":{"a":{"$schema":"https://json-schema.org/draft/2020-12/schema"}}}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#"}`,
		// draft-07 knows no $defs: its members are not schemas there
		`{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"#/$defs/a","$defs":{"a":{}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b"]}}`,
		// unknown to 2020-12's meta-schema, walked by the compiler
		`{"additionalItems":{"$ref":"#/properties/a"},"properties":{"a":{}}}`,
		`{"x-extension":{"$id":"https://example.com/x"}}`,
		`"a string"`, `5`, `null`,
	} {
		if vouch(decode(t, src)) {
			t.Errorf("vouched for: %s", src)
		}
	}
}

// Every keyword the two drafts' meta-schemas define has a rule (or gives
// up): a keyword missing from the tables would pass as an unknown one,
// whatever its value.
func TestVouchKnowsEveryMetaSchemaKeyword(t *testing.T) {
	meta := filepath.Join("..", "internal", "jsonschema", "metaschemas")
	keywords := func(files ...string) []string {
		var all []string
		for _, f := range files {
			src, err := os.ReadFile(filepath.Join(meta, f))
			if err != nil {
				t.Fatal(err)
			}
			var m struct{ Properties map[string]any }
			if err := json.Unmarshal(src, &m); err != nil {
				t.Fatal(err)
			}
			for k := range m.Properties {
				all = append(all, k)
			}
		}
		return all
	}
	vocabs, _ := filepath.Glob(filepath.Join(meta, "draft", "2020-12", "meta", "*"))
	files2020 := []string{filepath.Join("draft", "2020-12", "schema")}
	for _, v := range vocabs {
		files2020 = append(files2020, filepath.Join("draft", "2020-12", "meta", filepath.Base(v)))
	}
	for _, c := range []struct {
		name  string
		rules map[string]rule
		words []string
	}{
		{"draft-07", vouch07, keywords(filepath.Join("draft-07", "schema"))},
		{"2020-12", vouch2020, keywords(files2020...)},
	} {
		if len(c.words) < 40 {
			t.Fatalf("%s: only %d keywords read", c.name, len(c.words))
		}
		for _, k := range c.words {
			if _, ok := c.rules[k]; !ok && k != "$schema" {
				t.Errorf("%s: no rule for %q", c.name, k)
			}
		}
	}
}

// Whatever vouch vouches for, the meta-schema accepts, and it compiles to
// the same with or without it: thousands of schemas drawn at random from
// every keyword, with values of the right shape and of wrong ones.
func TestVouchedSchemasAreValid(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 21))
	var vouched, refused int
	for i := range 3000 {
		doc := randomSchema(r, 0)
		if i%2 == 0 {
			if m, ok := doc.(map[string]any); ok {
				m["$schema"] = []any{"https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#"}[r.IntN(2)]
			}
		}
		if !vouch(doc) {
			refused++
			continue
		}
		vouched++
		_, full := compileDoc(doc, Options{}, false)
		var sv *jsonschema.SchemaValidationError
		if full != nil && errors.As(full.Err, &sv) {
			src, _ := json.Marshal(doc)
			t.Fatalf("vouched for a schema the meta-schema refuses: %s: %v", src, full)
		}
		// What else the compiler refuses (two anchors of one name, a
		// reference to nowhere) it refuses the same without the meta-schema.
		if _, skipped := compileDoc(doc, Options{}, true); fmt.Sprint(skipped) != fmt.Sprint(full) {
			src, _ := json.Marshal(doc)
			t.Fatalf("%s compiles to %v with the meta-schema, %v without", src, full, skipped)
		}
	}
	if vouched < 300 || refused < 300 {
		t.Fatalf("%d vouched for, %d not: the draw does not test both sides", vouched, refused)
	}
}

// randomSchema draws a schema: mostly objects of a few keywords, each
// with a value of the keyword's shape or, sometimes, of another.
func randomSchema(r *rand.Rand, depth int) any {
	if depth > 3 || r.IntN(8) == 0 {
		return r.IntN(2) == 0
	}
	words := slices.Sorted(func(yield func(string) bool) {
		for k := range vouch2020 {
			if !yield(k) {
				return
			}
		}
		for _, k := range []string{"additionalItems", "x-unknown", "discriminator"} {
			if !yield(k) {
				return
			}
		}
	})
	m := map[string]any{}
	for range r.IntN(4) + 1 {
		k := words[r.IntN(len(words))]
		m[k] = randomValue(r, k, depth, m)
	}
	return m
}

func randomValue(r *rand.Rand, k string, depth int, m map[string]any) any {
	if r.IntN(6) == 0 {
		return randomJSON(r, depth)
	}
	sub := func() any { return randomSchema(r, depth+1) }
	subs := func() any {
		a := make([]any, r.IntN(3))
		for i := range a {
			a[i] = sub()
		}
		return a
	}
	named := func() any {
		o := map[string]any{}
		for range r.IntN(3) {
			o[[]string{"a", "b", "c", "^x+$", "("}[r.IntN(5)]] = sub()
		}
		return o
	}
	switch k {
	case "properties", "$defs", "definitions", "dependentSchemas", "patternProperties":
		return named()
	case "allOf", "anyOf", "oneOf", "prefixItems":
		return subs()
	case "items":
		if r.IntN(4) == 0 {
			return subs()
		}
		return sub()
	case "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "additionalItems":
		return sub()
	case "type":
		names := []any{"string", "object", "array", "null", "integer", "number", "boolean", "strin"}
		if r.IntN(3) == 0 {
			return []any{names[r.IntN(len(names))], names[r.IntN(len(names))]}
		}
		return names[r.IntN(len(names))]
	case "required":
		return []any{"a", []any{"a", "b"}[r.IntN(2)]}
	case "dependentRequired":
		return map[string]any{"a": []any{"b", []any{"b", "c", 1}[r.IntN(3)]}}
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains":
		return json.Number([]string{"0", "1", "2.0", "1.5", "-1", "1e2", "-0.5"}[r.IntN(7)])
	case "pattern":
		return []string{"^a+$", "(", "\\d{2}", "[z-a]"}[r.IntN(4)]
	case "$ref":
		return []string{"#/$defs/a", "#/definitions/b", "#/$defs/zz", "#/properties/a", "#", "other.json"}[r.IntN(6)]
	case "readOnly", "writeOnly", "uniqueItems", "deprecated":
		return r.IntN(2) == 0
	case "enum", "examples":
		return []any{"a", json.Number("1"), nil}
	case "$comment", "title", "description", "format", "contentMediaType", "contentEncoding", "$id", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef":
		return []string{"a", "email", "https://example.com/x", "#a"}[r.IntN(4)]
	}
	return randomJSON(r, depth)
}

func randomJSON(r *rand.Rand, depth int) any {
	switch r.IntN(7) {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return json.Number(fmt.Sprint(r.IntN(5) - 2))
	case 3:
		return "s"
	case 4:
		return []any{"a", json.Number("1")}
	case 5:
		if depth < 3 {
			return map[string]any{"type": "string"}
		}
		return map[string]any{}
	}
	return json.Number("0.5")
}

// envMetaChild makes TestMetaschemasCompiledOnlyForWhatVouchLeaves run its
// body in a fresh process: the meta-schemas are compiled once per process.
const envMetaChild = "MCPDECK_SCHEMA_TEST_META_CHILD"

// A plain schema compiles (and validates) without the meta-schemas; the
// first one vouch leaves compiles them, and a schema the meta-schema
// refuses is still refused with its violations.
func TestMetaschemasCompiledOnlyForWhatVouchLeaves(t *testing.T) {
	if os.Getenv(envMetaChild) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMetaschemasCompiledOnlyForWhatVouchLeaves$", "-test.count=1")
		cmd.Env = append(os.Environ(), envMetaChild+"=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	plain := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	if fields, err := Validate(plain, json.RawMessage(`{"text":5}`), Options{}); err != nil || len(fields) != 1 || fields[0].Path != "/text" {
		t.Fatalf("a number for a string: %v %v, want one violation at /text", fields, err)
	}
	if MetaschemasCompiled() {
		t.Fatal("a plain schema compiled the meta-schemas")
	}
	if _, err := Compile(json.RawMessage(`{"$id":"https://example.com/s","type":"string"}`), Options{}); err != nil {
		t.Fatal(err)
	}
	if !MetaschemasCompiled() {
		t.Fatal("a schema with $id compiled without the meta-schemas")
	}
}
