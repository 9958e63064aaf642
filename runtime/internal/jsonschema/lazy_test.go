package jsonschema

import (
	"strings"
	"testing"
)

// The metaschemas are compiled on first use, not at init: until then,
// starting a program that links this package costs nothing.
func TestMetaschemasCompiledOnFirstUse(t *testing.T) {
	if Draft2020.sch != nil {
		t.Fatal("the 2020-12 metaschema was compiled before any use (at init)")
	}
	c := NewCompiler()
	doc, err := UnmarshalJSON(strings.NewReader(`{"type":"strnig"}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("mem:///s.json", doc); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compile("mem:///s.json"); err == nil {
		t.Fatal("a schema with an unknown type passed the metaschema")
	}
	if Draft2020.sch == nil || Draft2020.allVocabs["core"] == nil {
		t.Fatal("the metaschemas were not compiled on first use")
	}
}
