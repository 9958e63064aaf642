package ui

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"mcpdeck/runtime/check"
	"mcpdeck/ui/uitest"
)

// withCheck gives the UI the fake runtime's check.
func withCheck(rt *uitest.Runtime) func(*Options) {
	return func(o *Options) { o.Check = rt.Check }
}

// noAction fails when the runtime reported want among the actions already
// queued.
func noAction(t *testing.T, rt *uitest.Runtime, want string) {
	t.Helper()
	for {
		select {
		case a := <-rt.Actions():
			if a == want {
				t.Fatalf("unexpected action %q", want)
			}
		default:
			return
		}
	}
}

func TestCheckStreamsItemsThenSummary(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	rt.HoldCheck, rt.HoldCheckAt = make(chan struct{}), 4
	hs := start(t, rt, 140, 40, withCheck(rt))
	hs.keys("j", "c") // everything
	hs.action("check everything")
	hs.waitText("checking everything (stdio) on its own copy", "PASS", "Invalid input", "running cancellation…", fmt.Sprintf("4 of %d decided", len(check.IDs())), "x stops the check")

	// A second c while the check runs starts nothing.
	hs.keys("c")
	hs.waitText("the check of everything is still running")
	noAction(t, rt, "check everything")

	close(rt.HoldCheck)
	v := hs.waitText("✗ 1 failed", "11 passed, 1 warning, 1 failed, 1 skipped", "everything failed 1 check")
	for _, want := range []string{"FAIL", "WARN", "SKIP", "Cancellation", "longRunningOperation (request 7) after it", "took 2.4s"} {
		if !strings.Contains(v, want) {
			t.Errorf("the finished check lacks %q:\n%s", want, v)
		}
	}
	hs.action("check everything done")

	// c runs it again; this time everything passes.
	rt.CheckItems = uitest.CheckFixture()[:4]
	hs.keys("c")
	hs.action("check everything")
	hs.waitText("✓ passed", "4 passed, 0 warnings, 0 failed, 0 skipped", "everything passed the check")
}

func TestCheckStoppedByThePerson(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	rt.HoldCheck, rt.HoldCheckAt = make(chan struct{}), 2
	hs := start(t, rt, 140, 40, withCheck(rt))
	hs.keys("j", "c")
	hs.action("check everything")
	hs.waitText(fmt.Sprintf("2 of %d decided", len(check.IDs())))
	hs.keys("tab", "x")
	hs.action("check everything done")
	v := hs.waitText("■ stopped before the end", "the check of everything was stopped")
	if !strings.Contains(v, "skipped: the check was cancelled") {
		t.Errorf("the items after the stop are not shown skipped:\n%s", v)
	}
}

func TestCheckItemDetails(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 80, 24, withCheck(rt))
	hs.keys("j", "c")
	hs.waitText("✗ 1 failed")
	hs.keys("tab", "j", "j", "j", "j", "enter")
	v := hs.waitText("everything › Cancellation", "id cancellation · took 1.5s")
	// The reason is cut in the list at 80 columns, and whole here.
	if !strings.Contains(v, "and send no response") {
		t.Errorf("the item view does not show the whole reason:\n%s", v)
	}
	hs.keys("esc")
	hs.waitView("details closed", func(v string) bool { return !strings.Contains(v, "id cancellation") })
}

func TestCheckShowsTheSelectedServersRun(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 140, 40, withCheck(rt))
	hs.keys("7")
	hs.waitText("No check of broken yet. Press c")
	hs.keys("j", "c")
	hs.waitText("check of everything (stdio)", "✗ 1 failed")
	hs.keys("j") // notes: never checked
	hs.waitText("No check of notes yet")
	hs.keys("k")
	hs.waitText("check of everything (stdio)", "✗ 1 failed")
}

func TestCheckNotAvailable(t *testing.T) {
	t.Parallel()
	hs := start(t, uitest.New(uitest.ReadySnapshot()), 80, 24)
	hs.keys("c")
	hs.waitText("checks are not available in this session")
}

func TestCheckThatCannotRun(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	rt.CheckItems = []check.Item{}
	rt.CheckErr = io.ErrUnexpectedEOF
	hs := start(t, rt, 140, 40, withCheck(rt))
	hs.keys("c")
	hs.waitText("✗ the check could not run: unexpected EOF", "checking broken failed")
}

func TestQuitStopsARunningCheck(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	rt.HoldCheck = make(chan struct{}) // never released: only the stop ends it
	hs := start(t, rt, 80, 24, withCheck(rt))
	hs.keys("c")
	hs.action("check broken")
	hs.keys("q")
	hs.action("check broken done")
	hs.tm.WaitFinished(t, teatest.WithFinalTimeout(waitWithin))
	hs.done = true
	hs.detach()
}

func TestRunWaitsForARunningCheck(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	rt.HoldCheck = make(chan struct{})
	in, typing := io.Pipe()
	defer typing.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		// The check's context is not Run's: only Run's own stop ends it.
		done <- Run(ctx, Options{Runtime: rt, Input: in, Output: io.Discard, Check: rt.Check, Context: context.Background()})
	}()
	if err := rt.WaitAction("elicitor", waitWithin); err != nil {
		t.Fatal(err)
	}
	if _, err := typing.Write([]byte("c")); err != nil {
		t.Fatal(err)
	}
	if err := rt.WaitAction("check broken", waitWithin); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run = %v, want nil when its context ended", err)
		}
	case <-time.After(waitWithin):
		t.Fatal("Run did not return when its context ended")
	}
	// Run stopped the check and waited for it before returning.
	var seen []string
	for {
		select {
		case a := <-rt.Actions():
			if a == "check broken done" {
				return
			}
			seen = append(seen, a)
		default:
			t.Fatalf("Run returned before the running check ended (actions since: %q)", seen)
		}
	}
}

func TestGoldenCheckFinished(t *testing.T) {
	t.Parallel()
	forSizes(t, func(t *testing.T, w, h int) {
		rt := uitest.New(uitest.ReadySnapshot())
		hs := start(t, rt, w, h, withCheck(rt))
		hs.keys("j", "c")
		v := hs.waitText("✗ 1 failed", "everything failed 1 check")
		golden.RequireEqual(t, []byte(v))
	})
}
