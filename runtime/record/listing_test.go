package record

import (
	stdjson "encoding/json"
	"slices"
	"strings"
	"testing"
)

func listing(field string, items ...string) Listing {
	l := Listing{Lists: map[string][]stdjson.RawMessage{}}
	for _, it := range items {
		l.Lists[field] = append(l.Lists[field], stdjson.RawMessage(it))
	}
	return l
}

// Items are paired by name (resources by URI): another order is no
// difference; one added, removed and changed item is one change each,
// with the members that changed; --ignore paths address items by name.
func TestCompareListingsByName(t *testing.T) {
	a := listing("tools", `{"name":"a","description":"A"}`, `{"name":"b"}`, `{"name":"c","annotations":{"readOnlyHint":true}}`)
	b := listing("tools", `{"name":"c","annotations":{"readOnlyHint":true}}`, `{"name":"b"}`, `{"name":"a","description":"A"}`)
	d, err := CompareListings(a, b, nil)
	if err != nil || len(d.Changes) != 0 || d.Same["tools"] != 3 {
		t.Fatalf("reordered: %+v %v", d, err)
	}
	b = listing("tools", `{"name":"d"}`, `{"name":"c","annotations":{"readOnlyHint":false}}`, `{"name":"a","description":"A!"}`)
	d, err = CompareListings(a, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range d.Changes {
		line := c.String()
		for _, f := range c.Fields {
			for _, x := range f.Differences {
				line += " " + f.Field + x.Path + "=" + x.Recorded + "→" + x.Live
			}
		}
		got = append(got, line)
	}
	want := []string{`~ tool a description/="A"→"A!"`, `- tool b`, `~ tool c annotations/readOnlyHint=true→false`, `+ tool d`}
	if !slices.Equal(got, want) {
		t.Fatalf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if d.Same["tools"] != 0 || d.Count("tool", "changed") != 2 {
		t.Errorf("same %v, changed %d", d.Same, d.Count("tool", "changed"))
	}
	d, _ = CompareListings(a, b, []string{"tools.*.description", "/tools/c/annotations"})
	if len(d.Changes) != 2 {
		t.Errorf("with ignores: %+v", d.Changes)
	}
	// Resources pair by URI, and a name given twice is kept twice.
	r1 := listing("resources", `{"uri":"x://1","name":"one"}`, `{"uri":"x://1","name":"again"}`)
	r2 := listing("resources", `{"uri":"x://1","name":"one"}`)
	d, _ = CompareListings(r1, r2, nil)
	if len(d.Changes) != 1 || d.Changes[0].Name != "x://1#2" || d.Changes[0].Change != "removed" || d.Changes[0].Kind != "resource" {
		t.Errorf("a URI listed twice: %+v", d.Changes)
	}
}

// A schema change is told in the schema's own terms; a definition moved
// behind a $ref is none; a keyword the model does not read is left to the
// raw differences.
func TestSchemaChanges(t *testing.T) {
	for _, c := range []struct {
		name, a, b string
		want       []string
	}{
		{"type and required", `{"type":"object","properties":{"a":{"type":"number"}},"required":["a"]}`,
			`{"type":"object","properties":{"a":{"type":"string"}}}`, []string{"~ a: no longer required", "~ a: type number → string"}},
		{"added and removed", `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}`,
			`{"type":"object","properties":{"a":{"type":"number"},"c":{"type":"integer","description":"Third"}},"required":["c"]}`,
			[]string{`+ property c (integer, required): "Third"`, "- property b"}},
		{"enum and description", `{"type":"object","properties":{"m":{"type":"string","enum":["fast","slow"]}}}`,
			`{"type":"object","properties":{"m":{"type":"string","enum":["fast","safe"],"description":"How"}}}`,
			[]string{`~ m: description (none) → "How"`, `~ m: enum + "safe", - "slow"`}},
		{"nested", `{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"number","minimum":0}}}}}`,
			`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"number","minimum":1}},"additionalProperties":false}}}`,
			[]string{"~ o: no longer accepts properties it does not name (additionalProperties: false)", "~ o.x: minimum 0 → 1"}},
		{"items", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"}}}}`,
			`{"type":"object","properties":{"l":{"type":"array","items":{"type":"integer"}}}}`,
			[]string{"~ l: type array of string → array of integer", "~ l[]: type string → integer"}},
		{"moved behind a $ref", `{"type":"object","properties":{"p":{"type":"object","properties":{"x":{"type":"string"}}}}}`,
			`{"type":"object","properties":{"p":{"$ref":"#/$defs/P"}},"$defs":{"P":{"type":"object","properties":{"x":{"type":"string"}}}}}`, nil},
		{"only $schema", `{"type":"object"}`, `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := SchemaChanges(stdjson.RawMessage(c.a), stdjson.RawMessage(c.b))
			if !slices.Equal(got, c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// The schema account rides along with a changed inputSchema; the raw
// differences are there too, for what it does not read.
func TestCompareListingsSchemaField(t *testing.T) {
	a := listing("tools", `{"name":"sum","inputSchema":{"type":"object","properties":{"a":{"type":"number"}}}}`)
	b := listing("tools", `{"name":"sum","inputSchema":{"$schema":"x","type":"object","properties":{"a":{"type":"string"}}}}`)
	d, err := CompareListings(a, b, nil)
	if err != nil || len(d.Changes) != 1 || len(d.Changes[0].Fields) != 1 {
		t.Fatalf("%+v %v", d, err)
	}
	f := d.Changes[0].Fields[0]
	if f.Field != "inputSchema" || !slices.Equal(f.Schema, []string{"~ a: type number → string"}) || len(f.Differences) != 2 {
		t.Errorf("field: %+v", f)
	}
}
