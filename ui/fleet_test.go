package ui

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"mcpdeck/runtime/fleet"
	"mcpdeck/ui/uitest"
)

// fakeFleet answers Load with what the test sets, counting the loads.
type fakeFleet struct {
	mu    sync.Mutex
	v     *fleet.View
	err   error
	loads int
	// loaded is signalled after every Load.
	loaded chan struct{}
}

func (f *fakeFleet) Load(context.Context) (*fleet.View, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loads++
	select {
	case f.loaded <- struct{}{}:
	default:
	}
	return f.v, f.err
}

func (f *fakeFleet) set(v *fleet.View, err error) {
	f.mu.Lock()
	f.v, f.err = v, err
	f.mu.Unlock()
}

// fleetFixture is two hosts as Prometheus sees them: one up with a
// ready, a degraded and a failed server, one down.
func fleetFixture() *fleet.View {
	up, down := true, false
	hist := func(ms ...float64) []float64 {
		out := make([]float64, len(ms))
		for i, v := range ms {
			out[i] = v / 1000
			if v < 0 {
				out[i] = math.NaN()
			}
		}
		return out
	}
	at := uitest.Clock
	return &fleet.View{At: at, URL: "http://prometheus:9090", HostLabel: "instance", Hosts: []fleet.Host{
		{Name: "build-01:9464", Up: &up, Servers: []fleet.Server{
			{Host: "build-01:9464", Name: "github", State: "degraded", Transport: "http", ProtocolVersion: "2026-07-28", Era: "modern",
				Ping: 180 * time.Millisecond, Pings: hist(-1, 90, 120, 150, 400, 180), MissedPerMinute: 1.5, Restarts: 2, Outstanding: 1},
			{Host: "build-01:9464", Name: "postgres", State: "failed", Transport: "stdio", Restarts: 7, Attempts: 3,
				LastError: &fleet.LastError{Kind: "exited", Message: "postgres: initialize: connection closed: server process exited with status 1", At: at.Add(-90 * time.Second)}},
			{Host: "build-01:9464", Name: "everything", State: "ready", Transport: "stdio", ProtocolVersion: "2025-11-25", Era: "legacy",
				Ping: 2 * time.Millisecond, Pings: hist(2, 2, 3, 2, 2, 2)},
		}},
		{Name: "build-02:9464", Up: &down, Servers: []fleet.Server{
			{Host: "build-02:9464", Name: "everything", State: fleet.StateUnknown, Transport: "stdio"},
		}},
	}}
}

// fleetProbe publishes every frame of the fleet model, as probe does for
// the main model.
type fleetProbe struct {
	m      *fleetModel
	mu     sync.Mutex
	latest string
	signal chan struct{}
}

func (p *fleetProbe) Init() tea.Cmd { return p.m.Init() }

func (p *fleetProbe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := p.m.Update(msg)
	v := p.m.render()
	p.mu.Lock()
	p.latest = v
	p.mu.Unlock()
	select {
	case p.signal <- struct{}{}:
	default:
	}
	if cmd != nil {
		// tea.Quit must reach the program as it is.
		return p, cmd
	}
	return p, nil
}

func (p *fleetProbe) View() string { return p.m.View() }

type fleetHarness struct {
	t  *testing.T
	tm *teatest.TestModel
	p  *fleetProbe
}

func startFleet(t *testing.T, src *fakeFleet, w, h int) *fleetHarness {
	t.Helper()
	m := newFleetModel(t.Context(), FleetOptions{Source: src, URL: "http://prometheus:9090", Every: time.Hour, Now: uitest.Now})
	p := &fleetProbe{m: m, signal: make(chan struct{}, 1)}
	tm := teatest.NewTestModel(t, p, teatest.WithInitialTermSize(w, h))
	fh := &fleetHarness{t: t, tm: tm, p: p}
	t.Cleanup(func() {
		_ = tm.Quit()
		tm.WaitFinished(t, teatest.WithFinalTimeout(waitWithin))
	})
	return fh
}

// waitText waits until every text is on screen.
func (h *fleetHarness) waitText(texts ...string) string {
	h.t.Helper()
	return h.waitView(strings.Join(texts, ", "), func(v string) bool {
		for _, s := range texts {
			if !strings.Contains(v, s) {
				return false
			}
		}
		return true
	})
}

// waitView waits until the frame satisfies cond.
func (h *fleetHarness) waitView(what string, cond func(string) bool) string {
	h.t.Helper()
	deadline := time.After(waitWithin)
	for {
		h.p.mu.Lock()
		v := h.p.latest
		h.p.mu.Unlock()
		if v != "" && cond(v) {
			return v
		}
		select {
		case <-h.p.signal:
		case <-deadline:
			h.t.Fatalf("waiting for %s: last frame:\n%s", what, v)
		}
	}
}

func (h *fleetHarness) keys(keys ...string) {
	for _, k := range keys {
		h.tm.Send(keyMsg(k))
	}
}

// TestGoldenFleet is the fleet view as a person sees it: hosts as
// headings, each server's state, ping, sparkline, restarts and last
// error, the selected server's details, at both sizes.
func TestGoldenFleet(t *testing.T) {
	forSizes(t, func(t *testing.T, w, h int) {
		src := &fakeFleet{v: fleetFixture(), loaded: make(chan struct{}, 1)}
		fh := startFleet(t, src, w, h)
		fh.waitText("› ◐ github")
		fh.keys("j") // postgres
		v := fh.waitText("› ✗ postgres", "DOWN", "last error 1m30s ago (exited)")
		golden.RequireEqual(t, []byte(v))
	})
}

// TestFleetFilterAndReadOnly: / filters with the servers pane's keys
// (host:, state:, words), esc clears, the keys that would change a server
// are refused, and r asks Prometheus again.
func TestFleetFilterAndReadOnly(t *testing.T) {
	src := &fakeFleet{v: fleetFixture(), loaded: make(chan struct{}, 1)}
	fh := startFleet(t, src, 120, 30)
	fh.waitText("build-02:9464")
	fh.keys("/", "s", "t", "a", "t", "e", ":", "f", "enter")
	v := fh.waitText("filter: state:f")
	if !strings.Contains(v, "postgres") || strings.Contains(v, "github") || strings.Contains(v, "build-02") {
		t.Fatalf("state:f shows more than postgres:\n%s", v)
	}
	fh.keys("esc")
	fh.waitText("github", "build-02")
	fh.keys("/", "c", "l", "o", "s", "e", "d", "enter") // a word of postgres's last error
	v = fh.waitText("filter: closed")
	if strings.Contains(v, "github") || !strings.Contains(v, "› ✗ postgres") {
		t.Fatalf("a word of the last error: \n%s", v)
	}
	fh.keys("esc", "m")
	fh.waitText("read-only fleet view")
	fh.keys("space")
	fh.waitText("read-only fleet view")

	// r asks again: a failure keeps the last answer on screen and says so.
	src.set(nil, errors.New("prometheus is unreachable: connection refused"))
	<-src.loaded // the first load
	fh.keys("r")
	fh.waitText("Prometheus: prometheus is unreachable: connection refused (showing the last answer)", "github")
	src.set(fleetFixture(), nil)
	fh.keys("r")
	fh.waitView("the error gone after a good answer", func(v string) bool {
		return strings.Contains(v, "github") && !strings.Contains(v, "unreachable")
	})
}

// TestFleetEmptyAndUnreachable: no mcpdeck series says what to check; no
// answer at all says Prometheus did not answer.
func TestFleetEmptyAndUnreachable(t *testing.T) {
	src := &fakeFleet{v: &fleet.View{URL: "http://prometheus:9090"}, loaded: make(chan struct{}, 1)}
	fh := startFleet(t, src, 100, 26)
	fh.waitText("Prometheus has no mcpdeck metrics", "mcpdeck monitor --metrics")

	bad := &fakeFleet{err: errors.New("boom"), loaded: make(chan struct{}, 1)}
	fh = startFleet(t, bad, 100, 26)
	fh.waitText("Prometheus did not answer", "Prometheus: boom")
}
