package ui

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/exp/teatest"

	"mcpdeck/config"
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

// TestReadyServerWaitingForItsBatchSaysSo: servers switched on together
// publish their tools together, when the last is ready. Until then a
// server that is ready has none in the snapshot, and the Tools tab said
// "No tools: everything is ready." beside a TOOLS column of 0 for as long
// as the slowest server took to start (seconds for npx).
func TestReadyServerWaitingForItsBatchSaysSo(t *testing.T) {
	t.Parallel()
	fast := everythingServer(t)
	slow := everythingServer(t)
	slow.Name, slow.Command, slow.Args = "slow", "sh", []string{"-c", `sleep 60; exec "$0" "$@"`, fast.Command, fast.Args[0]}
	hs, _ := startReal(t, runtime.Options{Config: &config.Config{Servers: []config.Server{fast, slow}}}, 140, 40)
	hs.keys("m")
	hs.waitView("everything ready while slow starts", func(v string) bool {
		return strings.Contains(v, "servers 1/2 ready") && strings.Contains(v, "everything stdio ready")
	})
	hs.keys("2")
	v := hs.waitText("[2 Tools]")
	if strings.Contains(v, "No tools: everything is ready.") || !strings.Contains(v, "its tools show once slow is ready too") {
		t.Errorf("the Tools tab does not say why a ready server has no tools yet:\n%s", v)
	}
	if !regexp.MustCompile(`everything stdio ready +— +\S+ +… `).MatchString(v) {
		t.Errorf("the TOOLS column counts 0 tools for a server whose tools are held back:\n%s", v)
	}
	// server-everything offers resources: not "does not offer resources".
	hs.keys("8")
	v = hs.waitText("[8 Resources]")
	if !strings.Contains(v, "No resources yet: everything is ready; its resources show once slow is ready too") {
		t.Errorf("the Resources tab does not say why a ready server has no resources yet:\n%s", v)
	}
}
