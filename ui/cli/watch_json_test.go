package cli

import (
	"encoding/json"
	"testing"

	"mcpdeck/ui/present"
)

// watch --json writes its lines by hand; each is the line present.MarshalLine
// (encoding/json, then the terminal escapes) writes for the same values,
// byte for byte, with the shapes servers send: raw JSON with and without
// white space (in strings too), escapes, controls, bidi and line
// separators, invalid UTF-8 (replaced first), numbers small and large.
func TestWatchJSONLineMatchesGeneric(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	lines := []watchLine{
		{Time: "2026-12-01T19:00:00.123456789Z", Server: "a", Kind: "log", Level: "info", Logger: "flood", Data: json.RawMessage(`{"seq":1}`)},
		{Time: "t", Server: "a", Kind: "log", Level: "info", Data: json.RawMessage("{ \"k\" : [1, 2],\n\t\"s\": \"two  spaces \\\" and \\\\ a quote\" }")},
		{Time: "t", Server: "a", Kind: "log", Data: json.RawMessage(`"a string with <html> & \u2028 and \u00e9"`)},
		{Time: "t", Server: "a", Kind: "log", Data: json.RawMessage("\"raw \u2028 line separator and \u202e bidi and \u0085 C1\"")},
		{Time: "t", Server: "s p\"ace\\", Kind: "state", From: "ready", To: "failed", Reason: "exited\nstatus 3\t\b\f\x01\x1f"},
		{Time: "t", Server: "a", Kind: "progress", RequestID: 7, Token: "mcpdeck-1", Progress: f(1.5), Total: 3, Message: "half"},
		{Time: "t", Server: "a", Kind: "progress", Token: "foreign", Progress: f(0)},
		{Time: "t", Server: "a", Kind: "progress", Token: "mcpdeck-2", Progress: f(2), Total: 4, Tool: "long\u202eRun \xff", Late: "cancelled"},
		{Time: "t", Server: "a", Kind: "progress", Progress: f(1e-7), Total: 1e21},
		{Time: "t", Server: "a", Kind: "progress", Progress: f(123456789.125), Total: 0.000001},
		{Time: "t", Server: "a", Kind: "notification", Method: "notifications/custom", Params: json.RawMessage(`{ "x" : 1 }`)},
		{Time: "t", Server: "a", Kind: "notification", Method: "m", Params: json.RawMessage(`[true,null,-0.5e3,{"":[]}]`)},
		{Time: "t", Server: "a", Kind: "noise", Line: "bidi \u202e here \u2029", Detail: "noise"},
		{Time: "t", Server: "", Kind: "anomaly", Detail: "unknown-id 99"},
		{Time: "t", Server: "a", Kind: "log", Logger: "bad \xff\xfe utf-8", Data: json.RawMessage("\"\xff\"")},
	}
	for i, l := range lines {
		l.fixUTF8()
		want, err := present.MarshalLine(l)
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if got := l.appendJSON([]byte("prefix")); string(got) != "prefix"+string(want) {
			t.Errorf("line %d:\n got %s\nwant prefix%s", i, got, want)
		}
	}
}
