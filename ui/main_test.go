package ui

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"
	"go.uber.org/goleak"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime/demoserver"
	"mcpdeck/ui/uitest"
)

func TestMain(m *testing.M) {
	// Hostile fake servers are this test binary, re-executed.
	jsonrpctest.MaybeServe()
	// The copy test runs the clipboard as this test binary, inside tmux.
	if text, ok := os.LookupEnv(envCopy); ok {
		if err := terminalClipboard(os.Stdout)(text); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	// The end-to-end test runs the demo server as this test binary.
	if os.Getenv(envDemo) == "1" {
		if err := demoserver.Run(context.Background(), os.Stdin, os.Stdout, demoserver.Options{LogInterval: 200 * time.Millisecond}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	// Goldens are plain text: no colour, whatever the terminal running the
	// tests supports.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	goleak.VerifyTestMain(m,
		// teatest leaves one goroutine per test waiting for SIGINT.
		goleak.IgnoreAnyFunction("github.com/charmbracelet/x/exp/teatest.NewTestModel.func2"),
		goleak.IgnoreAnyFunction("os/signal.signal_recv"),
		goleak.IgnoreAnyFunction("os/signal.loop"),
	)
	os.Exit(0)
}

// waitWithin bounds every wait in these tests. Waits end at the event, so
// the bound costs only a failing test's time; it must cover a real server
// started under -race on a loaded machine, and be longer than the demo
// server's own StartupTimeout (20s), so a slow start shows as the
// runtime's verdict rather than as the harness giving up first (at 5s, a
// start that took 6s failed TestResourceReadSubscribeUpdateOnTheRealRuntime
// while the runtime would still have waited).
const waitWithin = 30 * time.Second

// probe wraps the model and publishes the frame after every update, so a
// test waits on what the person would see rather than on timing.
type probe struct {
	m *Model

	mu     sync.Mutex
	latest string
	signal chan struct{}
	// onFrame, when set, sees every frame rendered (under mu).
	onFrame func(string)
}

func (p *probe) Init() tea.Cmd { return p.m.Init() }

func (p *probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := p.m.Update(msg)
	v := p.m.render()
	p.mu.Lock()
	p.latest = v
	if p.onFrame != nil {
		p.onFrame(v)
	}
	p.mu.Unlock()
	select {
	case p.signal <- struct{}{}:
	default:
	}
	return p, cmd
}

func (p *probe) View() string { return p.m.View() }

// harness is a running program on a fake runtime.
type harness struct {
	t      *testing.T
	rt     *uitest.Runtime
	tm     *teatest.TestModel
	p      *probe
	detach func()
	done   bool
}

// start runs the UI at w×h over rt; the test ends it with stop (or it is
// stopped in cleanup).
func start(t *testing.T, rt *uitest.Runtime, w, h int, mod ...func(*Options)) *harness {
	t.Helper()
	opts := Options{Runtime: rt, Now: uitest.Now}
	for _, f := range mod {
		f(&opts)
	}
	p := &probe{m: newModel(opts.withDefaults()), signal: make(chan struct{}, 1)}
	tm := teatest.NewTestModel(t, p, teatest.WithInitialTermSize(w, h))
	hs := &harness{t: t, rt: rt, tm: tm, p: p}
	hs.detach = Attach(rt, tm.Send)
	t.Cleanup(hs.stop)
	hs.waitView("first frame", func(string) bool { return true })
	return hs
}

// stop quits the program (if it is still running) and waits for it.
func (h *harness) stop() {
	if h.done {
		return
	}
	h.done = true
	_ = h.tm.Quit()
	h.tm.WaitFinished(h.t, teatest.WithFinalTimeout(waitWithin))
	h.detach()
}

// waitView waits until the frame satisfies cond and returns it.
func (h *harness) waitView(what string, cond func(string) bool) string {
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
			h.t.Fatalf("waiting for %s: not shown within %s; last frame:\n%s", what, waitWithin, v)
		}
	}
}

// waitText waits until every text appears in the frame.
func (h *harness) waitText(texts ...string) string {
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

// keys types keys: single runes, or names such as "enter", "tab", "esc".
func (h *harness) keys(keys ...string) {
	for _, k := range keys {
		h.tm.Send(keyMsg(k))
	}
}

func keyMsg(k string) tea.KeyMsg {
	named := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab, "esc": tea.KeyEsc,
		"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
		"space": tea.KeySpace, "backspace": tea.KeyBackspace, "ctrl+c": tea.KeyCtrlC,
		"ctrl+s": tea.KeyCtrlS, "ctrl+e": tea.KeyCtrlE, "ctrl+x": tea.KeyCtrlX,
		"ctrl+f": tea.KeyCtrlF, "ctrl+n": tea.KeyCtrlN, "ctrl+p": tea.KeyCtrlP, "ctrl+t": tea.KeyCtrlT,
		"pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp,
	}
	if t, ok := named[k]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// action waits for the fake runtime to report want.
func (h *harness) action(want string) {
	h.t.Helper()
	if err := h.rt.WaitAction(want, waitWithin); err != nil {
		h.t.Fatal(err)
	}
}
