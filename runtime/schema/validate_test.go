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
