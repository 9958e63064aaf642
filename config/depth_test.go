package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// A project file of a million "[" used to overflow the parser's stack (a
// fatal error no recover can catch) before any approval was asked. It must
// fail as a plain configuration error that points at the first level too
// many.
func TestLoadRejectsDeepNesting(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	deep := "{\n  \"mcpServers\": " + strings.Repeat("[", 1_000_000) + "\n}"
	layout(t, w.project, map[string]string{".mcp.json": deep})
	_, err := Load(w.opts())
	var errs Errors
	if !errors.As(err, &errs) || len(errs) != 1 {
		t.Fatalf("Load = %v, want one configuration error", err)
	}
	d := errs[0]
	want := Position{File: filepath.Join(w.project, ".mcp.json"), Line: 2, Column: 17 + maxNesting - 1}
	if d.Pos != want {
		t.Errorf("position = %s, want %s", d.Pos, want)
	}
	if !strings.Contains(d.Message, "nest deeper than") {
		t.Errorf("message = %q, want it to say the nesting is too deep", d.Message)
	}
}

func TestNestingTooDeep(t *testing.T) {
	t.Parallel()
	ok := strings.Repeat("[", maxNesting) + strings.Repeat("]", maxNesting)
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"at the limit", ok, -1},
		{"one over", "[" + ok + "]", maxNesting},
		{"brackets in strings do not count", `["` + strings.Repeat("[", 200) + `\"` + `"]`, -1},
		{"brackets in comments do not count", "// " + strings.Repeat("{", 200) + "\n/* " + strings.Repeat("[", 200) + " */ {}", -1},
		{"siblings do not add up", strings.Repeat("[]", 500), -1},
		{"unterminated string", `"` + strings.Repeat("[", 200), -1},
	}
	for _, tt := range tests {
		if got := nestingTooDeep([]byte(tt.in)); got != tt.want {
			t.Errorf("%s: nestingTooDeep = %d, want %d", tt.name, got, tt.want)
		}
	}
}
