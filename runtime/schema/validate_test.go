package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

// Formats are annotations for tool arguments and assertions for an
// elicitation's answer, from the same validator.
func TestValidateAssertsFormatsOnlyWhenAsked(t *testing.T) {
	s := fixture(t, "everything-elicitation.json")
	bad := json.RawMessage(`{"name":"Ada","email":"not-an-email","homepage":"not a uri","birthdate":"yesterday"}`)
	if errs, err := Validate(s, bad, Options{}); err != nil || len(errs) != 0 {
		t.Fatalf("formats asserted for arguments: %v %v", errs, err)
	}
	errs, err := Validate(s, bad, Options{AssertFormats: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range errs {
		got = append(got, e.String())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{"/birthdate: ", "/email: ", "/homepage: "} {
		if !strings.Contains(all, want) {
			t.Errorf("violations lack %q:\n%s", want, all)
		}
	}
	good := json.RawMessage(`{"name":"Ada","email":"ada@example.com","homepage":"https://example.com/","birthdate":"1815-12-10"}`)
	if errs, err := Validate(s, good, Options{AssertFormats: true}); err != nil || len(errs) != 0 {
		t.Errorf("good answer refused: %v %v", errs, err)
	}
}

// The null branch of an Optional says nothing about a value that is not
// null; a union's violations name the branch they belong to.
func TestValidateUnions(t *testing.T) {
	errs, err := Validate(fixture(t, "pydantic-main-model.json"), json.RawMessage(`{"foo_bar":{"count":1},"Gender":"x"}`), Options{})
	if err != nil || len(errs) != 1 || errs[0].Path != "/Gender" || strings.Contains(errs[0].Message, "null") {
		t.Fatalf("an enum outside its values: %v %v", errs, err)
	}
	raw := fixture(t, "pydantic-discriminated-list.json")
	n := parse(t, raw)
	errs, err = Validate(raw, json.RawMessage(`{"n":1,"pet":[{"pet_type":"dog"}]}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	choices := n.Property("pet").Items.ChoiceAt
	byBranch := map[string][]string{}
	for _, e := range errs {
		if len(e.Alternatives) != 1 {
			t.Fatalf("%v belongs to %v, want one branch", e, e.Alternatives)
		}
		byBranch[e.Alternatives[0]] = append(byBranch[e.Alternatives[0]], e.String())
	}
	if got := byBranch[choices[1]]; len(got) != 1 || !strings.Contains(got[0], "barks") {
		t.Errorf("the Dog branch (%s) has %v; all: %v", choices[1], got, byBranch)
	}
	if len(byBranch[choices[0]]) == 0 || len(byBranch[choices[2]]) == 0 {
		t.Errorf("the other branches' violations are not named: %v", byBranch)
	}
}
