package runtime

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValidateArguments(t *testing.T) {
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
