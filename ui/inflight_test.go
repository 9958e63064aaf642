package ui

import (
	"slices"
	"strings"
	"testing"

	"mcpdeck/runtime"
)

// A request in flight stays on the Requests tab when a snapshot is read
// while it runs: the runtime's snapshot lists it, and so must the fake's,
// or the UI drops the row it learned from RequestStarted at its next
// snapshot (a clock tick under load: TestGoldenRequestInFlight then
// waited 30 s for "waiting").
func TestRequestInFlightOutlivesASnapshot(t *testing.T) {
	t.Parallel()
	rt, hs := startLongCall(t, 140, 40)
	hs.waitText("1 outstanding", "waiting")

	// A publication makes the UI read the snapshot at once, as its clock
	// tick does a second later.
	rt.Publish(func(s *runtime.Snapshot) { s.Sources = append(slices.Clone(s.Sources), "late.json") })
	v := hs.waitText("late.json")
	if !strings.Contains(v, "1 outstanding") || !strings.Contains(v, "longRunningOpe") {
		t.Fatalf("the request in flight left the Requests tab when a snapshot was read:\n%s", v)
	}
}
