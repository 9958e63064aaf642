package ui

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/exp/teatest"

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

// TestRequestsShowWholeToolNames: at 140 columns the Requests tab cut
// server-everything's trigger-long-running-operation to
// "trigger-long-running-op…" in flight and in the history, with half the
// row empty; the tool column is as wide as the longest name shown, up to a
// quarter of the row, the same in both tables.
func TestRequestsShowWholeToolNames(t *testing.T) {
	t.Parallel()
	hs := startEverything(t)
	hs.openTool("trigger-long-running-operation")
	hs.keys("backspace", "backspace") // duration: 10 s
	hs.tm.Type("30")
	hs.keys("enter")
	v := hs.waitText("1 outstanding", "tools/call")
	if !strings.Contains(v, " trigger-long-running-operation ") {
		t.Errorf("the request in flight does not name its tool whole:\n%s", v)
	}
	hs.keys("x")
	hs.waitText("Result of everything › trigger-long-running-operation", "cancelled")
	hs.keys("esc")
	v = hs.waitText("history · 1 call")
	if !strings.Contains(v, " trigger-long-running-operation ") {
		t.Errorf("the history does not name the tool whole:\n%s", v)
	}
	// The status line names the method once: the cancellation's own text
	// ("tools/call (id 9) cancelled: …") names it already.
	if strings.Contains(v, "tools/call: tools/call") || !strings.Contains(v, "failed: tools/call (id ") {
		t.Errorf("the status line does not name the cancelled method once:\n%s", v)
	}
}

// TestQuitWithACallInFlightShowsNoResult: q while server-everything runs a
// long operation ends the call as its server stops; the quitting screen
// then showed that call's failure as a result, saying "mcpdeck reconnects
// automatically where configured, or press R", over the status that says
// the servers are stopping and ctrl+c forces. Nothing opens while quitting.
func TestQuitWithACallInFlightShowsNoResult(t *testing.T) {
	t.Parallel()
	hs := startEverything(t)
	var mu sync.Mutex
	var shown []string
	hs.p.mu.Lock()
	hs.p.onFrame = func(v string) {
		if strings.Contains(v, "ctrl+c") && strings.Contains(v, "force") && strings.Contains(v, "Result of") {
			mu.Lock()
			shown = append(shown, v)
			mu.Unlock()
		}
	}
	hs.p.mu.Unlock()
	hs.openTool("trigger-long-running-operation")
	hs.keys("enter")
	hs.waitText("1 outstanding", "tools/call")
	hs.keys("q")
	hs.tm.WaitFinished(t, teatest.WithFinalTimeout(waitWithin))
	hs.done = true
	hs.detach()
	mu.Lock()
	defer mu.Unlock()
	if len(shown) > 0 {
		t.Errorf("while quitting, the call's failure opened as a result:\n%s", shown[0])
	}
}
