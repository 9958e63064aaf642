package ui

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/ui/uitest"
)

// withOutstanding is the ready fixture with request 7 in flight.
func withOutstanding() *runtime.Snapshot {
	s := uitest.ReadySnapshot()
	for i := range s.Servers {
		if s.Servers[i].Name == "everything" {
			s.Servers[i].Outstanding = []runtime.RequestInfo{{ID: 7, Server: "everything", Method: "tools/call", Tool: "longRunningOperation", Started: uitest.Clock.Add(-12 * 1e9)}}
		}
	}
	return s
}

func TestQuitStopsServersWithVisibleStatus(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	rt.HoldShutdown = make(chan struct{})
	hs := start(t, rt, 80, 24)
	hs.keys("q")
	hs.action("shutdown")
	hs.waitText("stopping 2 servers")
	close(rt.HoldShutdown)
	hs.tm.WaitFinished(t, teatest.WithFinalTimeout(waitWithin))
	hs.done = true
	hs.detach()
	if hs.p.m.forced {
		t.Error("a clean quit was recorded as forced")
	}
}

func TestSecondCtrlCForcesQuit(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	rt.HoldShutdown = make(chan struct{})
	t.Cleanup(func() { close(rt.HoldShutdown) })
	hs := start(t, rt, 80, 24)
	hs.keys("ctrl+c")
	hs.waitText("stopping 2 servers", "ctrl+c again to force")
	hs.keys("ctrl+c")
	hs.tm.WaitFinished(t, teatest.WithFinalTimeout(waitWithin))
	hs.done = true
	hs.detach()
	if !hs.p.m.forced {
		t.Error("the second ctrl+c did not force the quit")
	}
}

func TestToggleMCPAsksWhenCallsOutstanding(t *testing.T) {
	t.Parallel()
	rt := uitest.New(withOutstanding())
	hs := start(t, rt, 80, 24)
	hs.waitText("requests 1")
	hs.keys("m")
	hs.waitText("Turn MCP off?", "1 request in flight will be cancelled")
	hs.keys("n")
	hs.waitView("dialog closed", func(v string) bool { return !strings.Contains(v, "Turn MCP off?") })
	hs.keys("m")
	hs.waitText("Turn MCP off?")
	hs.keys("y")
	hs.action("disable")
	hs.waitText("MCP OFF", "every server stopped")
}

func TestToggleMCPOnAndOff(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.OffSnapshot())
	hs := start(t, rt, 80, 24)
	hs.keys("m")
	hs.action("enable")
	hs.waitText("MCP ON", "servers 3/4 ready")
	hs.keys("m")
	hs.action("disable")
	hs.waitText("MCP OFF")
}

func TestCancelSelectedRequest(t *testing.T) {
	t.Parallel()
	rt := uitest.New(withOutstanding())
	hs := start(t, rt, 80, 24)
	hs.keys("3", "tab")
	hs.waitText("longRunningOpe", "12s")
	hs.keys("x")
	hs.action("cancel 7")
	hs.waitText("request 7 cancelled", "No requests in flight")
}

func TestServerSwitchAndReconnect(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 80, 24)
	hs.keys("R")
	hs.action("reconnect broken")
	hs.waitText("broken reconnected", "servers 3/4 ready")
	hs.keys("space")
	hs.action("server off broken")
	hs.waitText("broken switched off")
}

func TestReloadShowsPlan(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.OffSnapshot())
	rt.ReloadPlan = runtime.Plan{Add: []string{"fresh"}, Remove: []string{"notes"}, Restart: []string{"weather"}, Keep: []string{"everything"}}
	reads := 0
	hs := start(t, rt, 80, 24, func(o *Options) {
		o.Reload = func() (*config.Config, error) { reads++; return &config.Config{}, nil }
	})
	hs.keys("r")
	hs.action("configure") // MCP is off: the configuration is replaced, nothing starts
	hs.waitText("configuration read (MCP is off")
	hs.keys("m")
	hs.action("enable")
	hs.waitText("MCP ON")
	hs.keys("r")
	hs.action("reload")
	v := hs.waitText("Configuration reloaded", "fresh", "notes", "weather", "1 added, 1 removed, 1 restarted, 1 kept")
	for _, want := range []string{"added", "removed", "restarted", "kept"} {
		if !strings.Contains(v, want) {
			t.Errorf("the plan does not say %q:\n%s", want, v)
		}
	}
	hs.keys("esc")
	hs.waitView("plan closed", func(v string) bool { return !strings.Contains(v, "Configuration reloaded") })
}

// TestNoticePassesTheKeyOn: a key typed while the "Configuration reloaded"
// notice shows is not eaten: it closes the notice and does what it does
// without one (2 here: the Tools tab), as an informational notice in
// other TUIs gives way to typing. A question (y/n) still takes its keys.
func TestNoticePassesTheKeyOn(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	rt.ReloadPlan = runtime.Plan{Keep: []string{"everything"}}
	hs := start(t, rt, 80, 24, func(o *Options) {
		o.Reload = func() (*config.Config, error) { return &config.Config{}, nil }
	})
	hs.keys("r")
	hs.action("reload")
	hs.waitText("Configuration reloaded", "kept")
	hs.keys("2")
	hs.waitView("the notice closed and the Tools tab shows", func(v string) bool {
		return !strings.Contains(v, "Configuration reloaded") && strings.Contains(v, "[2 Tools]")
	})
}

// An r pressed while a reload still runs (it waits for the servers it
// starts, up to their startup timeout) is not dropped: the file may have
// changed again meanwhile, so the configuration is read and applied once
// more when the first reload ends.
func TestReloadAskedWhileOneRunsRunsAfterIt(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	var reads atomic.Int32
	hs := start(t, rt, 80, 24, func(o *Options) {
		o.Reload = func() (*config.Config, error) {
			if reads.Add(1) == 1 {
				<-release
			}
			return &config.Config{}, nil
		}
	})
	hs.keys("r")
	hs.waitText("reloading configuration")
	hs.keys("r")
	hs.waitText("still reloading: reloads again when it ends")
	once.Do(func() { close(release) })
	hs.action("reload")
	hs.action("reload")
	if n := reads.Load(); n != 2 {
		t.Errorf("the configuration was read %d times, want 2", n)
	}
}

func TestCallShowsResultAndPrefillsArguments(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 80, 24)
	hs.keys("j", "2", "tab", "j", "j") // everything › echo
	hs.waitText("› echo")
	hs.keys("enter")
	hs.waitText("Call everything › echo", "required")
	hs.keys("h", "i")
	hs.waitText("arguments match the schema")
	hs.keys("enter")
	hs.action(`call everything echo {"message":"hi"}`)
	hs.waitText("Result of everything › echo", `echo: {"message":"hi"}`, "✓ ok")
	hs.keys("esc")
	hs.keys("2", "enter")
	hs.waitText("Call everything › echo", "[hi")
}

func TestInvalidArgumentsAskBeforeSending(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 80, 24)
	hs.keys("j", "2", "tab") // everything › add
	hs.waitText("› add")
	hs.keys("enter")
	hs.waitText("Call everything › add")
	hs.keys("x")
	hs.waitText("not a number")
	hs.keys("backspace", "1", "enter")
	hs.waitText("Send again to send them anyway")
	hs.keys("enter")
	hs.action(`call everything add {"a":1}`)
}

func TestElicitationAnswered(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 80, 24)
	hs.action("elicitor")
	type answer struct {
		resp runtime.ElicitResponse
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		resp, err := rt.Elicit(context.Background(), runtime.ElicitRequest{Server: "everything", Message: "Who are you?",
			RequestedSchema: []byte(`{"type":"object","properties":{"name":{"type":"string"},"subscribe":{"type":"boolean"}},"required":["name"]}`)})
		got <- answer{resp, err}
	}()
	hs.waitText("everything asks", "Who are you?")
	hs.keys("A", "d", "a", "enter")
	a := <-got
	if a.err != nil || a.resp.Action != "accept" || a.resp.Content["name"] != "Ada" {
		t.Fatalf("elicitation answer = %+v, %v; want accept with name Ada", a.resp, a.err)
	}
	if _, ok := a.resp.Content["subscribe"]; ok {
		t.Errorf("an untouched optional boolean was sent: %v", a.resp.Content)
	}

	go func() {
		resp, err := rt.Elicit(context.Background(), runtime.ElicitRequest{Server: "weather", Message: "Share location?", RequestedSchema: []byte(`{"type":"object","properties":{}}`)})
		got <- answer{resp, err}
	}()
	hs.waitText("weather asks")
	hs.keys("ctrl+x")
	if a := <-got; a.resp.Action != "decline" {
		t.Fatalf("ctrl+x answered %q, want decline", a.resp.Action)
	}
}

func TestElicitationWithdrawnByServer(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 80, 24)
	hs.action("elicitor")
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan string, 1)
	go func() {
		resp, _ := rt.Elicit(ctx, runtime.ElicitRequest{Server: "everything", Mode: "url", Message: "Sign in", URL: "https://example.com/login"})
		got <- resp.Action
	}()
	hs.waitText("everything asks", "https://example.com/login")
	cancel()
	if a := <-got; a != "cancel" {
		t.Errorf("a withdrawn elicitation answered %q, want cancel", a)
	}
	hs.waitText("everything withdrew its question")
}

func TestProjectFileApprovedBeforeEnable(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.OffSnapshot())
	file := config.File{Path: "/home/dev/proj/.mcp.json", Scope: config.ScopeProject, Hash: "abc", Servers: []string{"broken"}}
	trusted := make(chan config.File, 1)
	hs := start(t, rt, 80, 24, func(o *Options) {
		o.EnableOnStart = true
		o.Untrusted = []config.File{file}
		o.Trust = func(f config.File) error { trusted <- f; return nil }
	})
	hs.waitText("Approve project configuration?", "broken (stdio)", "run   ./bin/broken-server")
	hs.keys("n")
	hs.waitText("MCP stays off")
	hs.keys("m")
	hs.waitText("Approve project configuration?")
	hs.keys("y")
	if f := <-trusted; f.Path != file.Path {
		t.Errorf("approved %q, want %q", f.Path, file.Path)
	}
	hs.action("enable")
	hs.waitText("MCP ON")
}

func TestTooSmallTerminal(t *testing.T) {
	t.Parallel()
	hs := start(t, uitest.New(uitest.OffSnapshot()), 60, 20)
	hs.waitText("Terminal too small", "needs 80×24; this one is 60×20")
}

func TestNotificationFilterAndScope(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 140, 40)
	hs.keys("4")
	rt.Emit(streamFixture()...)
	hs.waitText("40 shown")
	hs.keys("/", "l", "e", "v", "e", "l", ":", "w", "a", "r", "n", "i", "n", "g", "enter")
	hs.waitText("8 shown", "filter: level:warning")
	hs.keys("tab", "j", "tab", "a") // only everything
	hs.waitText("only everything", "5 shown")
	hs.keys("/", "esc")
	hs.waitText("only everything", "27 shown")
}

func TestNotificationStoreIsBounded(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 140, 40, func(o *Options) { o.NotificationLimit = 100 })
	hs.keys("4")
	for range 5 {
		rt.Emit(streamFixture()...)
		rt.Emit(streamFixture()[:10]...)
	}
	hs.waitText("100 shown", "100 kept", "150 dropped", "dropped 150")
}

func TestLogsAndTrafficOfSelectedServer(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 140, 40)
	h := runtime.EventHeader{Time: uitest.Clock, Server: "everything"}
	rt.Emit(
		runtime.StderrLine{EventHeader: h, Line: "listening on stdio"},
		runtime.StdoutNoise{EventHeader: h, Line: "debug: hello", Detail: "not JSON"},
		runtime.StateChanged{EventHeader: h, From: runtime.StateListing, To: runtime.StateReady},
		runtime.TrafficFrame{EventHeader: h, Frame: runtime.Frame{Dir: runtime.Out, Time: uitest.Clock, Method: "tools/call", ID: "5", Size: 60, Raw: []byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo"}}`)}},
	)
	hs.keys("j", "5")
	hs.waitText("listening on stdio", "debug: hello (not JSON)", "listing → ready")
	hs.keys("6")
	hs.waitText("→ request", "tools/call", `"name": "echo"`)
	hs.keys("k") // broken has no traffic
	hs.waitText("No frames yet")
}

// The ? help shows the keys in titled sections, each key once in its
// section: x and enter, which do two things in lists, are one entry each.
func TestHelpOverlayListsEveryKey(t *testing.T) {
	t.Parallel()
	hs := start(t, uitest.New(uitest.OffSnapshot()), 140, 60)
	hs.keys("?")
	v := hs.waitText("Keys", "Session", "Moving", "Lists", "Viewers", "Forms")
	for _, b := range []string{"mcp on/off", "reconnect", "x     cancel the request; stop the check", "enter open; apply the filter",
		"pause/follow", "form/raw JSON", "q/ctrl+c", "force"} {
		if !strings.Contains(v, b) {
			t.Errorf("the help overlay lacks %q", b)
		}
	}
	for _, once := range []string{"stop the check", "apply the filter", "add a root", "send (ctrl+s"} {
		if n := strings.Count(v, once); n != 1 {
			t.Errorf("%q is in the help %d times:\n%s", once, n, v)
		}
	}
	hs.keys("esc")
	hs.waitView("help closed", func(v string) bool { return !strings.Contains(v, "stop the check") })
}

// The ? help taller than the terminal says so, as a scrolling dialog
// does ("lines 1–34 of 53 · ↑/↓ scroll"), and scrolls to its last line:
// at 140×40 it was cut after the Forms section with nothing saying more
// was below.
func TestHelpOverlaySaysMoreIsBelow(t *testing.T) {
	t.Parallel()
	for _, s := range sizes {
		hs := start(t, uitest.New(uitest.OffSnapshot()), s.w, s.h)
		hs.keys("?")
		hs.waitText("Keys", "Session", "lines 1–", "↑/↓ scroll")
		for range 80 {
			hs.keys("down")
		}
		v := hs.waitText("Filters: words match anywhere")
		if !strings.Contains(v, "↑/↓ scroll") {
			t.Errorf("%dx%d: scrolled to its end the help no longer says it scrolls:\n%s", s.w, s.h, v)
		}
	}
}

func TestFastTypedKeysAreHandledOneByOne(t *testing.T) {
	t.Parallel()
	m := sizedModel(t, uitest.New(uitest.ReadySnapshot()), 80, 24)
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jj")})
	if m.c.server != "notes" {
		t.Errorf("after jj the selection is %q, want notes", m.c.server)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("mq"), Paste: true})
	if m.quitting || len(m.busy) > 0 {
		t.Error("pasted text was taken as commands")
	}
}

func TestRawJSONEditorTakesPastedText(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 80, 24)
	hs.keys("j", "2", "tab", "j", "j") // everything › echo
	hs.waitText("› echo")
	hs.keys("enter")
	hs.waitText("Call everything › echo")
	hs.keys("h", "i", "ctrl+e")
	hs.waitText("raw JSON arguments", `"message": "hi"`)
	// Replace the middle line with pasted text: a paste is one message,
	// newlines and all, and none of its letters is a command.
	hs.keys("down")
	hs.tm.Send(tea.KeyMsg{Type: tea.KeyCtrlK})
	hs.tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("  \"message\": \"pasted\",\n  \"extra\": true"), Paste: true})
	hs.waitText(`"message": "pasted",`, `"extra": true`)
	hs.keys("ctrl+s")
	hs.action("call everything echo {\n  \"message\": \"pasted\",\n  \"extra\": true\n}")
	hs.waitText("Result of everything › echo", `"extra": true`)
}

func TestPasteIsNeverACommand(t *testing.T) {
	t.Parallel()
	m := sizedModel(t, uitest.New(withOutstanding()), 80, 24)
	m.Update(keyMsg("m"))
	if _, ok := m.modal.(*dialog); !ok {
		t.Fatal("m with a request outstanding did not ask first")
	}
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y"), Paste: true})
	if m.modal == nil || len(m.busy) > 0 {
		t.Fatal("a pasted y answered the dialog")
	}
	m.Update(keyMsg("n"))
	m.Update(keyMsg("4"))
	m.Update(keyMsg("/"))
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("qm x"), Paste: true})
	if got := m.activeTab().Filter().Value(); got != "qm x" || m.quitting {
		t.Errorf("pasted into the filter: %q (quitting %v), want the text typed", got, m.quitting)
	}
}
