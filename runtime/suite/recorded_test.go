package suite

import (
	"strings"
	"testing"

	"mcpdeck/config"
	"mcpdeck/runtime/record"
)

// TestRecordedServerInline: an ad-hoc remote server of a recording becomes
// an inline one whose suite parses back to the same URL and transport; a
// configured server stays a name.
func TestRecordedServerInline(t *testing.T) {
	rec := &record.Recording{Header: record.Header{Servers: []config.Server{
		{Name: "adhoc", Source: config.SourceCommandLine, Transport: config.TransportSSE, URL: "http://127.0.0.1:9/sse", Headers: map[string]string{"Authorization": config.RedactedValue}},
		{Name: "weather", Source: "/p/mcp.json", Command: "node"},
	}}}
	ref, secret := RecordedServer(rec, "adhoc")
	if !secret || ref.Inline == nil {
		t.Fatalf("adhoc: %+v, secret %v", ref, secret)
	}
	text, err := NewSuiteFor(ref, "from a recording", []NewStep{{Kind: KindList, Target: "tools"}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse("adhoc.mcptest.yaml", text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if in := s.Server.Inline; in == nil || in.URL != "http://127.0.0.1:9/sse" || in.Transport != "sse" || strings.Contains(string(text), config.RedactedValue) {
		t.Errorf("the suite's server:\n%s", text)
	}
	if ref, _ := RecordedServer(rec, "weather"); ref.Inline != nil || ref.Name != "weather" {
		t.Errorf("a configured server: %+v", ref)
	}
}
