package schema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// A schema that violates the meta-schema is said as mcpdeck says the
// violations of arguments: one line a violation, path first, indented
// evenly; the validator's own text nests each cause a level deeper
// (an 'allOf' failed at the root, and eight more levels here).
func TestCompileErrorListsViolationsPathFirst(t *testing.T) {
	bad := json.RawMessage(`{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"qty":{"type":"integr","minimum":"1"}}}}}}`)
	_, err := Compile(bad, Options{})
	var serr *Error
	if !errors.As(err, &serr) {
		t.Fatalf("Compile: %v, want an *Error", err)
	}
	want := "invalid JSON Schema:\n" +
		"  /properties/items/items/properties/qty/minimum: got string, want number\n" +
		"  /properties/items/items/properties/qty/type: value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'\n" +
		"  /properties/items/items/properties/qty/type: got string, want array"
	if got := serr.Error(); got != want {
		t.Errorf("the error reads\n%s\nwant\n%s", got, want)
	}
	// Asked again (a listing, then a call), the refusal is the cached one.
	_, again := Compile(bad, Options{})
	if again != err {
		t.Errorf("a refused schema was compiled again: %p then %p", err, again)
	}
	// A refusal that is not a violation of the meta-schema is its one line.
	_, err = Compile(json.RawMessage(`{"$ref":"#/nowhere"}`), Options{})
	if !errors.As(err, &serr) || len(serr.Fields) != 0 || strings.Count(serr.Error(), "\n") != 0 {
		t.Errorf("an unresolvable $ref: %q", err)
	}
}
