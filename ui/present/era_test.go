package present

import (
	"testing"

	"mcpdeck/runtime"
)

// Every decision the runtime can report has its own words.
func TestEraDecisionWords(t *testing.T) {
	seen := map[string]runtime.EraDecision{}
	for _, d := range runtime.EraDecisions() {
		w := EraDecision(d)
		if w == "" {
			t.Errorf("%s has no words", d)
		}
		if other, ok := seen[w]; ok {
			t.Errorf("%s and %s are both %q", d, other, w)
		}
		seen[w] = d
	}
	if EraDecision(runtime.EraUndecided) != "" {
		t.Error("an undecided era has words")
	}
}
