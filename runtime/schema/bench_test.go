package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkParse is the model of a real FastMCP tool's schema: what the
// form, the detail and the checker pay per read.
func BenchmarkParse(b *testing.B) {
	raw := fixture(b, "fastmcp-complex-arguments.json")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHostileSchema is what a 186 KB schema nested 9,800 levels
// costs the model and machine output: a refusal after a linear scan.
func BenchmarkHostileSchema(b *testing.B) {
	deep := json.RawMessage(strings.Repeat(`{"type":"object","properties":{"a":`, 4900) + `{"type":"string"}` + strings.Repeat(`}}`, 4900))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(deep); err == nil {
			b.Fatal("parsed")
		}
		_ = ForOutput(deep)
	}
}

// BenchmarkCompileAgain is what asking again whether a schema compiles
// costs once it was compiled (a listing's marker, each call): a cache
// lookup, for a schema that compiles and for one refused.
func BenchmarkCompileAgain(b *testing.B) {
	for name, raw := range map[string]json.RawMessage{
		"valid":   fixture(b, "fastmcp-complex-arguments.json"),
		"refused": json.RawMessage(`{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"qty":{"type":"integr","minimum":"1"}}}}}}`),
	} {
		b.Run(name, func(b *testing.B) {
			_, first := Compile(raw, Options{})
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Compile(raw, Options{}); (err == nil) != (first == nil) {
					b.Fatal(err)
				}
			}
		})
	}
}
