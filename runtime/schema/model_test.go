package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fixture(t testing.TB, name string) json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parse(t testing.TB, raw json.RawMessage) *Node {
	t.Helper()
	n, err := Parse(raw)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return n
}

// outline writes a model one line per property, indented, for tests to
// compare: name, * when required, type, ? when nullable, and what else
// the node says.
func outline(n *Node) string {
	var b strings.Builder
	var walk func(n *Node, indent string)
	line := func(indent, name string, required bool, n *Node) {
		b.WriteString(indent + name)
		if required {
			b.WriteString("*")
		}
		b.WriteString(" " + n.TypeName())
		if n.Nullable {
			b.WriteString("?")
		}
		if n.Ref != "" {
			b.WriteString(" ref=" + RefName(n.Ref))
		}
		if n.Const != nil {
			b.WriteString(" const=" + Text(n.Const))
		}
		if len(n.Enum) > 0 {
			var vals []string
			for i, e := range n.Enum {
				v := Text(e)
				if n.EnumTitles != nil {
					v += "(" + n.EnumTitles[i] + ")"
				}
				vals = append(vals, v)
			}
			b.WriteString(" enum=" + strings.Join(vals, ","))
		}
		if n.Default != nil {
			b.WriteString(" default=" + Text(n.Default))
		}
		if n.Format != "" {
			b.WriteString(" format=" + n.Format)
		}
		if n.Discriminator != "" {
			b.WriteString(" by=" + n.Discriminator)
		}
		if n.Opaque != "" {
			b.WriteString(" opaque=" + n.Opaque)
		}
		b.WriteString("\n")
	}
	walk = func(n *Node, indent string) {
		for _, p := range n.Properties {
			line(indent, p.Name, p.Required, p.Node)
			walk(p.Node, indent+"  ")
		}
		if n.Items != nil && (len(n.Items.Properties) > 0 || len(n.Items.Choices) > 0) {
			line(indent, "[]", false, n.Items)
			walk(n.Items, indent+"  ")
		}
		labels := n.ChoiceLabels()
		for i, c := range n.Choices {
			line(indent, "|"+labels[i], false, c)
			walk(c, indent+"  ")
		}
	}
	walk(n, "")
	return b.String()
}

func TestParseRealSchemas(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"pydantic-main-model.json", `
foo_bar* object ref=FooBar
  count* integer
  size number? default=null
Gender string? ref=Gender enum=male,female,other,not_given default=null
snap integer default=42
`},
		{"fastmcp-complex-arguments.json", `
an_int* integer
must_be_none* null
must_be_none_dumb_annotation* null
list_of_ints* array of integer
list_str_or_str* one of 2
  |array of string array of string
  |string string
an_int_annotated_with_field* integer
an_int_annotated_with_field_and_others* integer
an_int_annotated_with_junk* integer
field_with_default_via_field_annotation_before_nondefault_arg integer default=1
unannotated* string
my_model_a* object ref=SomeModelA
my_model_a_forward_ref* object ref=SomeModelA
my_model_b* object ref=SomeModelB
  how_many_shrimp* integer
  ok* object ref=InnerModel
    x* integer
  y* null
an_int_annotated_with_field_default integer default=1
unannotated_with_default string default=5
my_model_a_with_default object ref=SomeModelA default={}
an_int_with_default integer default=1
must_be_none_with_default null default=null
an_int_with_equals_field integer default=1
int_annotated_with_default integer default=5
`},
		{"pydantic-discriminated-list.json", `
pet* array
  [] one of 3 by=pet_type
    |Cat object ref=Cat
      pet_type* string const=cat enum=cat
      meows* integer
    |Dog object ref=Dog
      pet_type* string const=dog enum=dog
      barks* number
    |Lizard object ref=Lizard
      pet_type* string enum=reptile,lizard
      scales* boolean
n* integer
`},
		{"fastmcp-nested-anyof.json", `
config_secret_name string? default=null
`},
		{"zod-shapes.json", `
title* string
note* string?
count integer
ratio number default=0.5
when string format=date-time
email string format=email
color* string enum=red,green,blue
address object
  street* string
  city* string
  zip string
tags array of string
target* one of 2
  |string string
  |array of string array of string
shape* one of 2 by=kind
  |circle object
    kind* string const=circle
    radius* number
  |square object
    kind* string const=square
    side* number
flag boolean
`},
		{"zod-tree.json", `
root* object ref=__schema0
  name* string
  children array
`},
		{"everything-elicitation.json", `
name* string
check boolean
firstLine string default=It was a dark and stormy night.
email string format=email
homepage string format=uri
birthdate string format=date
integer integer default=42
number number default=3.14
untitledSingleSelectEnum string enum=Monica,Rachel,Joey,Chandler,Ross,Phoebe default=Monica
untitledMultipleSelectEnum array of string default=["Guitar"]
titledSingleSelectEnum string enum=hero-1(Superman),hero-2(Green Lantern),hero-3(Wonder Woman) default=hero-1
titledMultipleSelectEnum array of string default=["fish-1"]
legacyTitledEnum string enum=pet-1(Cats),pet-2(Dogs),pet-3(Birds),pet-4(Fish),pet-5(Reptiles) default=pet-1
`},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got := outline(parse(t, fixture(t, tc.file)))
			if want := strings.TrimPrefix(tc.want, "\n"); got != want {
				t.Errorf("model of %s:\n%s\nwant:\n%s", tc.file, got, want)
			}
		})
	}
}

// The recursive zod schema's children refer back to the model being
// expanded: that is where the model stops, not a stack overflow.
func TestRecursiveReferenceStops(t *testing.T) {
	n := parse(t, fixture(t, "zod-tree.json"))
	items := n.Property("root").Property("children").Items
	if items == nil || !strings.Contains(items.Opaque, "recursive") {
		t.Fatalf("children items = %+v, want an opaque recursive reference", items)
	}
	self := parse(t, json.RawMessage(`{"type":"object","properties":{"next":{"$ref":"#"}}}`))
	if !strings.Contains(self.Property("next").Opaque, "recursive") {
		t.Fatalf(`"$ref": "#" inside the root: %+v`, self.Property("next").Node)
	}
}

func TestParseKeywords(t *testing.T) {
	for _, tc := range []struct{ name, schema, want string }{
		{"type list with null", `{"properties":{"a":{"type":["integer","null"]}}}`, "a integer?\n"},
		{"several types", `{"properties":{"a":{"type":["string","number"]}}}`, "a one of 2\n  |string string\n  |number number\n"},
		{"definitions and pointers", `{"definitions":{"A":{"type":"string","title":"An A"}},"properties":{"a":{"$ref":"#/definitions/A"},"b":{"$ref":"#/properties/a"}}}`,
			"a string ref=A\nb string ref=A\n"},
		{"allOf merged", `{"allOf":[{"properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"integer"},"a":{"minLength":2}}}]}`,
			"a* string\nb integer\n"},
		{"pydantic before 2.9", `{"$defs":{"M":{"type":"object","properties":{"x":{"type":"integer"}}}},"properties":{"m":{"allOf":[{"$ref":"#/$defs/M"}],"default":{}}}}`,
			"m object ref=M default={}\n  x integer\n"},
		{"required but not described", `{"type":"object","required":["k"],"additionalProperties":{"type":"integer"}}`, "k* integer\n"},
		{"const only branches are an enum", `{"properties":{"a":{"anyOf":[{"const":1,"title":"one"},{"const":2,"title":"two"},{"type":"null"}]}}}`,
			"a number? enum=1(one),2(two)\n"},
		{"constraint-only branches", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"anyOf":[{"required":["a"]},{"required":["b"]}]}`,
			"a string\nb string\n"},
		{"branches with shapes", `{"type":"object","properties":{"a":{"type":"string"}},"oneOf":[{"properties":{"b":{"type":"integer"}},"required":["a","b"]},{"properties":{"c":{"type":"boolean"}}}]}`,
			"|object 1 object\n  b* integer\n  a* string\n|object 2 object\n  c boolean\n  a string\n"},
		{"format-only branches are not a choice", `{"properties":{"a":{"type":"string","anyOf":[{"format":"email"},{"format":"uri"}]}}}`, "a string\n"},
		{"remote ref", `{"properties":{"a":{"$ref":"https://example.com/s.json"}}}`, "a any ref=s.json opaque=refers to https://example.com/s.json, outside the schema (not fetched)\n"},
		{"missing ref", `{"properties":{"a":{"$ref":"#/$defs/Nope"}}}`, "a any ref=Nope opaque=refers to #/$defs/Nope, which the schema does not have\n"},
		{"escaped names and spacing", "{ \"properties\" : {\n \"a\\\"b\" : { \"type\" : \"string\" } ,\"c/d\":{\"type\":[ \"integer\" , \"null\" ]} } }", "a\"b string\nc/d integer?\n"},
		{"tuple", `{"properties":{"a":{"type":"array","prefixItems":[{"type":"string"}]}}}`, "a array\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := outline(parse(t, json.RawMessage(tc.schema))); got != tc.want {
				t.Errorf("model:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// Hostile schemas cost a bounded model, or a refusal that says why.
func TestParseBounds(t *testing.T) {
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 4900) + `{"type":"string"}` + strings.Repeat(`}}`, 4900)
	if _, err := Parse(json.RawMessage(deep)); !errors.Is(err, ErrTooComplex) || !strings.Contains(err.Error(), "levels deep") {
		t.Errorf("a schema nested 9,800 levels: %v", err)
	}
	// Within the text's bounds but deeper than the model follows.
	within := strings.Repeat(`{"type":"object","properties":{"a":`, 60) + `{"type":"string"}` + strings.Repeat(`}}`, 60)
	n := parse(t, json.RawMessage(within))
	depth := 0
	for n.Opaque == "" {
		n = n.Property("a").Node
		depth++
	}
	if depth != MaxDepth+1 || !strings.Contains(n.Opaque, "nested more than") {
		t.Errorf("the model stopped at depth %d (%q), want %d", depth, n.Opaque, MaxDepth+1)
	}
	// A small text whose references multiply: each level uses the next
	// twice, so 30 levels would be a billion nodes.
	var defs []string
	for i := 0; i < 30; i++ {
		defs = append(defs, `"L`+itoa(i)+`":{"type":"object","properties":{"x":{"$ref":"#/$defs/L`+itoa(i+1)+`"},"y":{"$ref":"#/$defs/L`+itoa(i+1)+`"}}}`)
	}
	defs = append(defs, `"L30":{"type":"string"}`)
	bomb := `{"$defs":{` + strings.Join(defs, ",") + `},"$ref":"#/$defs/L0"}`
	if _, err := Parse(json.RawMessage(bomb)); !errors.Is(err, ErrTooComplex) || !strings.Contains(err.Error(), "schema nodes") {
		t.Errorf("a reference bomb: %v", err)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestInitial(t *testing.T) {
	n := parse(t, json.RawMessage(`{"properties":{
		"d":{"type":"string","default":"x"},
		"c":{"const":"k"},
		"e":{"enum":["a","b"]},
		"b":{"type":"boolean"},
		"n":{"type":["integer","null"]},
		"s":{"type":"string"}}}`))
	for _, tc := range []struct {
		name     string
		required bool
		want     string
	}{
		{"d", false, `"x"`}, {"c", false, `"k"`}, {"e", false, ""}, {"e", true, `"a"`},
		{"b", false, ""}, {"b", true, "false"}, {"n", true, "null"}, {"s", true, ""},
	} {
		v, ok := n.Property(tc.name).Initial(tc.required)
		if string(v) != tc.want || ok != (tc.want != "") {
			t.Errorf("Initial(%s, required=%v) = %s, %v; want %q", tc.name, tc.required, v, ok, tc.want)
		}
	}
}

func TestExample(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"pydantic-main-model.json", `{"foo_bar":{"count":0,"size":null},"Gender":null,"snap":42}`},
		{"zod-shapes.json", `{"title":"","note":"","ratio":0.5,"color":"red","target":"","shape":{"kind":"circle","radius":0}}`},
	} {
		var b bytes.Buffer
		_ = json.Compact(&b, Example(fixture(t, tc.file)))
		if b.String() != tc.want {
			t.Errorf("Example(%s) = %s\nwant %s", tc.file, b.String(), tc.want)
		}
	}
	if got := string(Example(json.RawMessage(strings.Repeat("[", 200) + strings.Repeat("]", 200)))); got != "{}" {
		t.Errorf("Example of a refused schema = %s", got)
	}
}

func TestChoiceLabels(t *testing.T) {
	n := parse(t, fixture(t, "pydantic-discriminated-list.json"))
	if got := strings.Join(n.Property("pet").Items.ChoiceLabels(), ","); got != "Cat,Dog,Lizard" {
		t.Errorf("labels = %s", got)
	}
}
