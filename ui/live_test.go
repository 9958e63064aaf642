package ui

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"mcpdeck/config"
	"mcpdeck/runtime"
)

// demoRow is the demo server's row of the servers pane.
var demoRow = regexp.MustCompile(`● demo +stdio +ready +(\S+) +(\S*) +\S+`)

// callsRe reads the overview's counters line.
var notesRe = regexp.MustCompile(`counters +\d+ calls? · \d+ errors? · (\d+) notifications?`)

// TestHealthAndCountersAreLive runs the real runtime and the demo server
// with a 100 ms ping and checks, over time, that the PING cell and
// sparkline of the servers pane and the overview's counters keep moving
// without anything being published: the TUI used to re-read the snapshot
// only on a publication, and its PING column stayed at "—".
func TestHealthAndCountersAreLive(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	demo := config.Server{
		Name: "demo", Transport: config.TransportStdio, Command: exe, Args: []string{"-test.run=^$"},
		Env: map[string]string{envDemo: "1", "GORACE": "atexit_sleep_ms=0"}, Enabled: true,
		StartupTimeout: 20 * time.Second, CallTimeout: 10 * time.Second, PingInterval: 100 * time.Millisecond,
	}
	rt := runtime.New(runtime.Options{Config: &config.Config{Servers: []config.Server{demo}}, StopGrace: time.Second})
	t.Cleanup(func() { rt.Shutdown(context.Background()) })

	p := &probe{m: newModel(Options{Runtime: rt}.withDefaults()), signal: make(chan struct{}, 1)}
	tm := teatest.NewTestModel(t, p, teatest.WithInitialTermSize(140, 40))
	hs := &harness{t: t, tm: tm, p: p}
	hs.detach = Attach(rt, tm.Send)
	t.Cleanup(hs.stop)

	hs.keys("m")
	hs.waitText("servers 1/1 ready")

	// The PING cell and the sparkline take several values as pings come in.
	seen := map[string]bool{}
	calls := map[int]bool{}
	deadline := time.After(15 * time.Second)
	for len(seen) < 3 || len(calls) < 3 {
		select {
		case <-hs.p.signal:
		case <-deadline:
			hs.p.mu.Lock()
			last := hs.p.latest
			hs.p.mu.Unlock()
			t.Fatalf("over 15s the demo row took %d values %v and the notifications counter %d values %v; last frame:\n%s", len(seen), seen, len(calls), calls, last)
		}
		hs.p.mu.Lock()
		v := hs.p.latest
		hs.p.mu.Unlock()
		if m := demoRow.FindStringSubmatch(v); m != nil && m[1] != "—" {
			seen[m[1]+" "+m[2]] = true
		}
		if m := notesRe.FindStringSubmatch(v); m != nil {
			n, _ := strconv.Atoi(m[1])
			calls[n] = true
		}
	}
	v := hs.waitText("ping         last ")
	if strings.Contains(v, "last — · avg —") {
		t.Errorf("the overview's ping line is still empty:\n%s", v)
	}

	// A call counts, and the overview says so without a publication.
	hs.keys("2", "tab", "j")
	hs.waitText("› echo")
	hs.keys("enter")
	hs.waitText("Call demo › echo")
	hs.keys("h", "i", "enter")
	hs.waitText("Result of demo › echo")
	hs.keys("esc", "1")
	hs.waitText("counters     1 call · 0 errors")
}
