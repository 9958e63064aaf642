package runtime

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --elicitation defaults used to accept server-everything's form with
// whatever had a default, leaving out its required "name": a server got
// "accept" with content its own schema refuses. It now picks what the
// TUI's form starts with and declines, saying why, when a required field
// has nothing to pick.
func TestDefaultsElicitor(t *testing.T) {
	t.Parallel()
	everything, err := os.ReadFile(filepath.Join("schema", "testdata", "everything-elicitation.json"))
	if err != nil {
		t.Fatal(err)
	}
	ask := func(schema string) ElicitResponse {
		t.Helper()
		resp, err := DefaultsElicitor{}.Elicit(context.Background(), ElicitRequest{Server: "s", RequestedSchema: json.RawMessage(schema)})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := ask(string(everything))
	if resp.Action != "decline" || !strings.Contains(resp.Reason, `required field "name" (String) has no default`) {
		t.Errorf("server-everything's form: %+v; want a decline naming the required name", resp)
	}
	// With the name given a default, every field starts as the form's.
	withName := strings.Replace(string(everything), `"description": "Your full, legal name"`, `"description": "Your full, legal name", "default": "Ada"`, 1)
	resp = ask(withName)
	enc, _ := json.Marshal(resp.Content)
	want := `{"firstLine":"It was a dark and stormy night.","integer":42,"legacyTitledEnum":"pet-1","name":"Ada","number":3.14,"titledMultipleSelectEnum":["fish-1"],"titledSingleSelectEnum":"hero-1","untitledMultipleSelectEnum":["Guitar"],"untitledSingleSelectEnum":"Monica"}`
	if resp.Action != "accept" || string(enc) != want {
		t.Errorf("with a default name: %s %s\nwant %s", resp.Action, enc, want)
	}
	for _, tc := range []struct{ schema, action, content, reason string }{
		{`{"type":"object","properties":{"size":{"type":"string","enum":["s","m"]},"ok":{"type":"boolean"},"kind":{"const":"k"}},"required":["size","ok"]}`,
			"accept", `{"kind":"k","ok":false,"size":"s"}`, ""},
		{`{"type":"object","properties":{"email":{"type":"string","format":"email","default":"not-an-email"}}}`,
			"decline", "", "/email"},
		{`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`, "decline", "", `"n" has no default`},
	} {
		resp := ask(tc.schema)
		enc, _ := json.Marshal(resp.Content)
		if resp.Action != tc.action || tc.content != "" && string(enc) != tc.content || !strings.Contains(resp.Reason, tc.reason) {
			t.Errorf("%s: %s %s %q", tc.schema, resp.Action, enc, resp.Reason)
		}
	}
	resp, _ = DefaultsElicitor{}.Elicit(context.Background(), ElicitRequest{Mode: "url", URL: "https://example.com/pay"})
	if resp.Action != "decline" || !strings.Contains(resp.Reason, "https://example.com/pay") {
		t.Errorf("url mode: %+v", resp)
	}
}
