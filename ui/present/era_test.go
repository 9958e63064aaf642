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

// A legacy server's decision says what happened and what follows: it
// refused the 2026-07-28 probe, so mcpdeck speaks the session protocol.
// "probed: legacy error" left a reader to guess whose error, and why it
// matters. It fits the overview's protocol row at 80 columns.
func TestEraDecisionOfALegacyErrorSaysWhatItMeans(t *testing.T) {
	w := EraDecision(runtime.EraLegacyError)
	if w != "probed: 2026-07-28 refused, session protocol" {
		t.Errorf("EraLegacyError reads %q", w)
	}
	if row := "protocol     legacy 2025-11-25 · " + w; len([]rune(row)) > 78 {
		t.Errorf("the overview's row is %d wide, more than 80 columns hold: %q", len([]rune(row)), row)
	}
}
