package jsonschema

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// envLazyChild makes TestMetaschemasCompiledOnFirstUse run its body in a
// fresh process: the metaschemas are compiled once per process, so in the
// test binary's own process any earlier test that compiled a schema (or
// this one, under -count=2) has compiled them already.
const envLazyChild = "MCPDECK_JSONSCHEMA_TEST_LAZY"

// The metaschemas are compiled on first use, not at init: until then,
// starting a program that links this package costs nothing.
func TestMetaschemasCompiledOnFirstUse(t *testing.T) {
	if os.Getenv(envLazyChild) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMetaschemasCompiledOnFirstUse$", "-test.count=1")
		cmd.Env = append(os.Environ(), envLazyChild+"=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
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
	if Draft2020.sch == nil || Draft2020.vocabSch["core"] == nil || !MetaschemasCompiled() {
		t.Fatal("the metaschemas were not compiled on first use")
	}
	// Only the draft a schema is written in pays: the others wait for a
	// schema of theirs, and still reject what their metaschema rejects.
	for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019} {
		if d.sch != nil {
			t.Fatalf("%s's metaschemas were compiled for a 2020-12 schema", d.url)
		}
	}
	doc7, err := UnmarshalJSON(strings.NewReader(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"strnig"}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("mem:///s7.json", doc7); err == nil {
		if _, err := c.Compile("mem:///s7.json"); err == nil {
			t.Fatal("a draft-07 schema with an unknown type passed the metaschema")
		}
	}
	if Draft7.sch == nil || Draft2019.sch != nil {
		t.Fatal("a draft-07 schema did not compile draft-07's metaschema alone")
	}
}
