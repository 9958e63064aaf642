package ui

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/ui/keys"
	"mcpdeck/ui/uitest"
)

// everyKey is every key a person can press that is not typing into a
// text field: printable characters, space, the named keys and the
// control chords.
func everyKey() []tea.KeyMsg {
	var out []tea.KeyMsg
	for r := rune(0x21); r < 0x7f; r++ {
		out = append(out, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	for _, t := range []tea.KeyType{tea.KeySpace, tea.KeyEnter, tea.KeyTab, tea.KeyShiftTab, tea.KeyEsc, tea.KeyUp, tea.KeyDown,
		tea.KeyLeft, tea.KeyRight, tea.KeyPgUp, tea.KeyPgDown, tea.KeyHome, tea.KeyEnd, tea.KeyBackspace, tea.KeyDelete, tea.KeyInsert,
		tea.KeyF1, tea.KeyF5, tea.KeyCtrlA, tea.KeyCtrlB, tea.KeyCtrlD, tea.KeyCtrlE, tea.KeyCtrlF, tea.KeyCtrlG, tea.KeyCtrlK,
		tea.KeyCtrlL, tea.KeyCtrlN, tea.KeyCtrlO, tea.KeyCtrlP, tea.KeyCtrlR, tea.KeyCtrlS, tea.KeyCtrlT, tea.KeyCtrlU, tea.KeyCtrlV,
		tea.KeyCtrlW, tea.KeyCtrlX, tea.KeyCtrlY, tea.KeyCtrlZ} {
		out = append(out, tea.KeyMsg{Type: t})
	}
	return out
}

// listed reports whether one of bindings has key k.
func listed(bindings []key.Binding, k string) bool {
	for _, b := range bindings {
		if slices.Contains(b.Keys(), k) {
			return true
		}
	}
	return false
}

// TestEveryHandledKeyIsInTheHelp presses every key in every place of the
// UI that is not a text field and checks that each key the UI reacts to
// (a new frame or a command) is documented there: in a dialog or form,
// in its own help bar; on the main screen, in the key map the ? help is
// drawn from. A key that works is a key that is documented.
func TestEveryHandledKeyIsInTheHelp(t *testing.T) {
	t.Parallel()
	formTool := runtime.Tool{Name: "s__t", Server: "everything", ServerTool: "t",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"flag":{"type":"boolean"},"mode":{"enum":["a","b"]}}}`)}
	contexts := map[string]func(m *Model){
		"servers pane": func(m *Model) {},
		"help overlay": func(m *Model) { m.openModal(newHelpOverlay(m.c)) },
		"yes/no dialog": func(m *Model) {
			m.openModal(newConfirmDialog(m.c, "Turn MCP off?", "sure?", confirmDisable))
		},
		"info dialog": func(m *Model) { m.openModal(newPlanDialog(m.c, runtime.Plan{Keep: []string{"everything"}})) },
		"result viewer": func(m *Model) {
			m.openModal(newResultViewer(m.c, callDoneMsg{tool: formTool, res: &runtime.Result{Content: []runtime.Content{{Type: "text", Text: "ok"}}}}))
		},
		"result viewer of a tool with an MCP App": func(m *Model) {
			app := formTool
			app.Meta = json.RawMessage(`{"ui":{"resourceUri":"ui://t/view.html"}}`)
			m.openModal(newResultViewer(m.c, callDoneMsg{tool: app, res: &runtime.Result{Content: []runtime.Content{{Type: "text", Text: "ok"}}}}))
		},
		"form, boolean field": func(m *Model) { m.openModal(newToolForm(m.c, formTool, nil)) },
		"form, enum field": func(m *Model) {
			f := newToolForm(m.c, formTool, nil)
			f.f.setFocus(1)
			m.openModal(f)
		},
	}
	for tab := range 7 {
		contexts["detail pane, tab "+string(rune('1'+tab))] = func(m *Model) { m.focus, m.active = focusDetail, tab }
	}
	contexts["detail pane, Clients tab"] = func(m *Model) {
		g := uitest.NewGateway(uitest.Now)
		twoClients(g)
		m.c.gw = newGWState(&Serving{Gateway: g, URL: "http://127.0.0.1:8765/mcp", Token: fakeToken})
		m.c.gw.clients = g.Clients()
		m.tabs = append(m.tabs, newClientsTab(m.c))
		m.layout()
		m.focus, m.active = focusDetail, tabClients
	}
	km := keys.DefaultKeyMap()
	// fresh is a new model in the context: every key is pressed on one.
	fresh := func(t *testing.T, setup func(*Model)) *Model {
		m := sizedModel(t, uitest.New(uitest.ReadySnapshot()), 120, 35)
		m.opts.Reload = func() (*config.Config, error) { return &config.Config{}, nil }
		m.selectServer(1)
		setup(m)
		return m
	}
	var checked atomic.Int32
	// The contexts run side by side; the group returns when all have.
	t.Run("contexts", func(t *testing.T) {
		for name, setup := range contexts {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				// The frame before a key is the same for every key (a
				// fresh model, a fixed clock), so it is drawn once.
				before := fresh(t, setup).render()
				for _, k := range everyKey() {
					m := fresh(t, setup)
					md := m.modal
					_, cmd := m.Update(k)
					if cmd == nil && m.render() == before {
						continue
					}
					checked.Add(1)
					help := km.All()
					if md != nil {
						help = append(md.Help(), km.ForceQuit)
					}
					if !listed(help, k.String()) {
						t.Errorf("%s: %q does something but its help does not list it", name, k.String())
					}
				}
			})
		}
	})
	if n := checked.Load(); n < 50 {
		t.Fatalf("only %d key presses did anything: the test is not pressing keys", n)
	}
}

// TestHelpBarNamesEachKeyOnce: the result viewer's help bar said "/ search"
// twice (the viewer lists it early, for narrow bars, and the pager's keys
// again), spending room the bar does not have on a repeat.
func TestHelpBarNamesEachKeyOnce(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	rt.CallFunc = func(_ context.Context, req runtime.CallRequest) (*runtime.Result, error) {
		return &runtime.Result{Content: []runtime.Content{{Type: "text", Text: "a result"}}}, nil
	}
	hs := start(t, rt, 200, 40)
	hs.keys("j", "2", "tab", "j", "j", "enter")
	hs.waitText("Call everything › echo")
	hs.keys("x", "enter")
	v := hs.waitText("Result of everything › echo", "a result")
	lines := strings.Split(strings.TrimRight(v, "\n "), "\n")
	bar := lines[len(lines)-1]
	seen := map[string]bool{}
	for _, item := range strings.Split(bar, " • ") {
		item = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(item), "…"))
		if seen[item] {
			t.Errorf("the help bar names %q twice: %s", item, bar)
		}
		seen[item] = true
	}
	if !seen["/ search"] {
		t.Errorf("the help bar has no / search: %s", bar)
	}
}
