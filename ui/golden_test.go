package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"mcpdeck/runtime"
	"mcpdeck/ui/uitest"
)

// sizes every golden is rendered at: the smallest supported terminal and
// a roomy split.
var sizes = []struct{ w, h int }{{80, 24}, {140, 40}}

func forSizes(t *testing.T, run func(t *testing.T, w, h int)) {
	for _, s := range sizes {
		t.Run(fmt.Sprintf("%dx%d", s.w, s.h), func(t *testing.T) { run(t, s.w, s.h) })
	}
}

func TestGoldenMCPOff(t *testing.T) {
	t.Parallel()
	forSizes(t, func(t *testing.T, w, h int) {
		hs := start(t, uitest.New(uitest.OffSnapshot()), w, h)
		v := hs.waitText("MCP OFF", "broken")
		golden.RequireEqual(t, []byte(v))
	})
}

func TestGoldenServersReady(t *testing.T) {
	t.Parallel()
	forSizes(t, func(t *testing.T, w, h int) {
		rt := uitest.New(uitest.OffSnapshot())
		hs := start(t, rt, w, h)
		hs.keys("m")
		hs.action("enable")
		hs.waitText("MCP ON")
		// The servers report their details once connected.
		rt.Publish(func(s *runtime.Snapshot) { *s = *uitest.ReadySnapshot() })
		hs.keys("j") // select everything
		v := hs.waitText("› ●", "example-servers/everything")
		golden.RequireEqual(t, []byte(v))
	})
}

func TestGoldenFailedServer(t *testing.T) {
	t.Parallel()
	forSizes(t, func(t *testing.T, w, h int) {
		hs := start(t, uitest.New(uitest.ReadySnapshot()), w, h)
		v := hs.waitText("✗ process exited", "hint")
		golden.RequireEqual(t, []byte(v))
	})
}

func TestGoldenToolForm(t *testing.T) {
	t.Parallel()
	forSizes(t, func(t *testing.T, w, h int) {
		hs := start(t, uitest.New(uitest.ReadySnapshot()), w, h)
		hs.keys("j", "2", "tab", "j") // everything, Tools, focus, configure
		hs.waitText("› configure")
		hs.keys("enter")
		hs.waitText("Call everything › configure")
		hs.keys("backspace", "backspace", "backspace", "backspace", "r", "i", "g", "down", "down", "space")
		v := hs.waitText("[x] true", "required")
		golden.RequireEqual(t, []byte(v))
	})
}

// Progress that comes after its call was cancelled names the call in the
// Notifications tab, not the raw token ("progress mcpdeck-7" was all the
// row said of whose progress it was).
func TestLateProgressNamesItsCall(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 140, 40)
	hs.keys("4")
	hs.waitText("0 shown")
	rt.Emit(runtime.Progress{EventHeader: runtime.EventHeader{Time: uitest.Now(), Server: "everything"}, Token: "mcpdeck-7",
		Progress: 2, Total: 30, Tool: "trigger-long-running-operation", Late: "cancelled"})
	v := hs.waitText("1 shown", "late progress for trigger-long-running-operation (cancelled): 2/30 (6%)")
	if strings.Contains(v, "mcpdeck-7") {
		t.Errorf("the row still names the token:\n%s", v)
	}
}

// startLongCall starts the UI at w×h and calls everything's
// longRunningOperation from the Tools tab; the call is held until the test
// ends.
func startLongCall(t *testing.T, w, h int) (*uitest.Runtime, *harness) {
	t.Helper()
	rt := uitest.New(uitest.ReadySnapshot())
	release := make(chan struct{})
	rt.CallFunc = func(ctx context.Context, req runtime.CallRequest) (*runtime.Result, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &runtime.Result{Content: []runtime.Content{{Type: "text", Text: "done"}}}, nil
	}
	hs := start(t, rt, w, h)
	t.Cleanup(func() { close(release) })
	hs.keys("j", "2", "tab", "j", "j", "j") // everything, Tools, longRunningOperation
	hs.waitText("› longRunningOperation")
	hs.keys("enter")
	hs.waitText("Call everything › longRunningOperation")
	hs.keys("enter")
	hs.action(`call everything longRunningOperation {"duration":10,"steps":5}`)
	return rt, hs
}

func TestGoldenRequestInFlight(t *testing.T) {
	t.Parallel()
	forSizes(t, func(t *testing.T, w, h int) {
		rt, hs := startLongCall(t, w, h)
		hs.waitText("waiting")
		rt.Emit(runtime.Progress{EventHeader: runtime.EventHeader{Time: uitest.Clock, Server: "everything"}, RequestID: 1, Token: "t1", Progress: 3, Total: 5, Message: "step 3 of 5"})
		v := hs.waitText("60%", "step 3 of 5")
		golden.RequireEqual(t, []byte(v))
	})
}

// streamFixture is a mixed notification stream from three servers.
func streamFixture() []runtime.Event {
	at := func(i int) runtime.EventHeader {
		servers := []string{"everything", "weather", "everything"}
		return runtime.EventHeader{Time: uitest.Clock.Add(time.Duration(i-40) * time.Second), Server: servers[i%3]}
	}
	levels := []string{"info", "debug", "warning", "error", "notice"}
	var out []runtime.Event
	for i := range 40 {
		switch i % 5 {
		case 0, 1, 2:
			data, _ := json.Marshal(fmt.Sprintf("event %d: cache warm, %d entries", i, i*17))
			out = append(out, runtime.LogMessage{EventHeader: at(i), Level: levels[i%len(levels)], Logger: "demo", Data: data})
		case 3:
			out = append(out, runtime.Progress{EventHeader: at(i), Token: "job-7", Progress: float64(i), Total: 40, Message: "indexing"})
		case 4:
			if i%10 == 9 {
				out = append(out, runtime.ListChanged{EventHeader: at(i), Kind: "tools"})
			} else {
				out = append(out, runtime.NotificationReceived{EventHeader: at(i), Method: "notifications/message/custom", Params: json.RawMessage(`{"uri":"file:///notes/today.md"}`)})
			}
		}
	}
	return out
}

func TestGoldenNotificationStream(t *testing.T) {
	t.Parallel()
	forSizes(t, func(t *testing.T, w, h int) {
		rt := uitest.New(uitest.ReadySnapshot())
		hs := start(t, rt, w, h)
		hs.keys("4")
		hs.waitText("0 shown")
		rt.Emit(streamFixture()...)
		v := hs.waitText("40 shown", "event 37")
		golden.RequireEqual(t, []byte(v))
	})
}

// A progress row keeps to the method column at every size: the call's
// name (trigger-long-running-operation) is cut to the column, so its bar
// starts where a log row's text does, and the row's text is not pushed
// off the end.
func TestGoldenProgressKeepsItsColumn(t *testing.T) {
	t.Parallel()
	forSizes(t, func(t *testing.T, w, h int) {
		rt := uitest.New(uitest.ReadySnapshot())
		hs := start(t, rt, w, h)
		hs.keys("4")
		hs.waitText("0 shown")
		hd := runtime.EventHeader{Time: uitest.Clock, Server: "everything"}
		rt.Emit(runtime.LogMessage{EventHeader: hd, Level: "info", Data: json.RawMessage(`"starting"`)},
			runtime.Progress{EventHeader: hd, RequestID: 3, Token: "mcpdeck-3", Progress: 2, Total: 5, Tool: "trigger-long-running-operation"})
		v := hs.waitText("2 shown", "2/5 (40%)")
		// col is the terminal column of needle in the row that has row.
		col := func(row, needle string) int {
			for _, l := range strings.Split(v, "\n") {
				if i := strings.Index(l, needle); i >= 0 && strings.Contains(l, row) {
					return ansi.StringWidth(l[:i])
				}
			}
			t.Fatalf("no row has %q and %q:\n%s", row, needle, v)
			return 0
		}
		if text, bar := col("starting", "starting"), col("2/5", "█"); bar != text {
			t.Errorf("the progress bar starts at column %d, the log text at %d: the progress column overflows\n%s", bar, text, v)
		}
		golden.RequireEqual(t, []byte(v))
	})
}
