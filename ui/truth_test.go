package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/ui/uitest"
)

// manyServers is the ready fixture with n servers, the first named long.
func manyServers(n int) func(*runtime.Snapshot) {
	return func(s *runtime.Snapshot) {
		base := s.Servers[1]
		s.Servers = nil
		for i := range n {
			srv := base
			srv.Name = fmt.Sprintf("server-%02d", i)
			if i == 0 {
				srv.Name = "filesystem-extra"
			}
			s.Servers = append(s.Servers, srv)
		}
	}
}

// checkFrame fails when the frame is not exactly w×h.
func checkFrame(t *testing.T, what, frame string, w, h int) {
	t.Helper()
	lines := strings.Split(frame, "\n")
	if len(lines) != h {
		t.Fatalf("%s: frame is %d lines, terminal %d:\n%s", what, len(lines), h, frame)
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw != w {
			t.Fatalf("%s: line %d is %d cells wide, terminal %d: %q", what, i, lw, w, l)
		}
	}
}

// No frame is ever larger than the terminal, whatever the server count,
// size, tab and status message; a reload that adds a server (4 → 5 at
// 120×35 grew the frame to 36 lines) included.
func TestFramesNeverExceedTheTerminal(t *testing.T) {
	t.Parallel()
	sizes := [][2]int{{80, 24}, {100, 30}, {120, 35}, {140, 40}, {200, 60}}
	for _, size := range sizes {
		w, h := size[0], size[1]
		for n := 1; n <= 14; n++ {
			rt := uitest.New(uitest.ReadySnapshot())
			m := sizedModel(t, rt, w, h)
			rt.Publish(manyServers(n))
			m.Update(eventsMsg{events: []runtime.Event{runtime.Published{}}, snap: rt.Snapshot()})
			m.setStatus(statusError, strings.Repeat("the server did not answer in time and said why at length ", 6))
			for tab := range m.tabs {
				m.active = tab
				m.stale = true
				checkFrame(t, fmt.Sprintf("%d×%d, %d servers, tab %d", w, h, n, tab+1), m.View(), w, h)
			}
		}
	}
	// A reload from 4 to 5 servers on a program that already drew 4.
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 120, 35)
	hs.waitText("servers 2/4 ready")
	rt.Publish(func(s *runtime.Snapshot) {
		extra := s.Servers[1]
		extra.Name = "filesystem"
		s.Servers = append(s.Servers, extra)
	})
	checkFrame(t, "after a reload to 5 servers", hs.waitText("filesystem"), 120, 35)
}

// At 80×24 a list longer than the pane scrolls with the selection and says
// how many servers are hidden; a long name is shown whole.
func TestLongServerListScrollsAndSaysWhatIsHidden(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	rt.Publish(manyServers(12))
	hs := start(t, rt, 80, 24)
	v := hs.waitText("servers 12/12", "9 servers hidden")
	if !strings.Contains(v, "filesystem-extra ") {
		t.Errorf("the name filesystem-extra was cut at 80 columns:\n%s", v)
	}
	if !strings.Contains(v, "above, ") {
		t.Errorf("no count of hidden servers:\n%s", v)
	}
	for range 11 {
		hs.keys("j")
	}
	hs.waitText("› ● server-11", "below")
}

// The active tab is marked in text, not only by colour.
func TestActiveTabMarkedInText(t *testing.T) {
	t.Parallel()
	hs := start(t, uitest.New(uitest.ReadySnapshot()), 80, 24)
	hs.keys("4")
	v := hs.waitText("[4 Notifications]")
	if strings.Contains(v, "[1 Overview]") {
		t.Errorf("two tabs marked active:\n%s", v)
	}
}

// The reload dialog separates the label from the names.
func TestPlanDialogSpacing(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	rt.ReloadPlan = runtime.Plan{Restart: []string{"filesystem"}, Keep: []string{"everything"}}
	hs := start(t, rt, 100, 30, func(o *Options) { o.Reload = func() (*config.Config, error) { return &config.Config{}, nil } })
	hs.keys("r")
	v := hs.waitText("Configuration reloaded")
	if !strings.Contains(v, "restarted filesystem") {
		t.Errorf("the plan dialog does not read \"restarted filesystem\":\n%s", v)
	}
}

// Status messages expire, and a long error wraps at word boundaries onto
// a second row instead of being cut mid-word.
func TestStatusMessagesExpireAndWrapAtWords(t *testing.T) {
	t.Parallel()
	now := uitest.Clock
	rt := uitest.New(uitest.ReadySnapshot())
	m := newModel(Options{Runtime: rt, Now: func() time.Time { return now }}.withDefaults())
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	long := "reconnecting everything failed: the server did not answer in time: raise callTimeout or startupTimeout in mcp.json, or check its stderr in the Logs tab for what it said"
	m.setStatus(statusError, long)
	rows := m.statusRows()
	if len(rows) != 2 {
		t.Fatalf("a long error takes %d status rows, want 2: %q", len(rows), rows)
	}
	words := map[string]bool{}
	for _, w := range strings.Fields(long) {
		words[w] = true
	}
	for _, r := range rows {
		for _, w := range strings.Fields(strings.TrimSuffix(strings.TrimSpace(r), "…")) {
			if !words[w] {
				t.Errorf("status row cut a word: %q in %q", w, r)
			}
		}
	}
	checkFrame(t, "with a two-row status", m.View(), 80, 24)

	m.setStatus(statusInfo, "everything reconnected")
	now = now.Add(statusInfoTTL - time.Second)
	m.Update(clockMsg{})
	if m.status == "" {
		t.Fatal("the status expired early")
	}
	now = now.Add(2 * time.Second)
	m.Update(clockMsg{})
	if m.status != "" {
		t.Errorf("the status %q did not expire", m.status)
	}
}

// The no-tools hint fits the state: never "m switches MCP on" while MCP
// is on.
func TestNoToolsHintFitsTheState(t *testing.T) {
	t.Parallel()
	hs := start(t, uitest.New(uitest.ReadySnapshot()), 140, 40)
	hs.keys("2") // broken is selected and failed
	v := hs.waitText("No tools: broken has failed.")
	if strings.Contains(v, "m switches MCP on") {
		t.Errorf("the hint says to switch MCP on while it is on:\n%s", v)
	}
	hs.waitText("R reconnects it")
}

// A server switched off with space is described as switched off in this
// session, also once MCP is off; one its configuration disables is
// described as such.
func TestSwitchedOffIsNotDisabledInConfiguration(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 140, 40)
	hs.keys("j", "space") // everything
	hs.action("server off everything")
	hs.keys("m")
	hs.action("disable")
	v := hs.waitText("switched off in this session")
	if strings.Contains(v, "everything  (disabled in configuration") {
		t.Errorf("everything is called disabled in configuration:\n%s", v)
	}
	hs.keys("j") // notes is disabled in its file
	hs.waitText("disabled in configuration")
}

// method: filters the Traffic tab too.
func TestTrafficMethodFilter(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 140, 40)
	h := runtime.EventHeader{Time: uitest.Clock, Server: "everything"}
	rt.Emit(
		runtime.TrafficFrame{EventHeader: h, Frame: runtime.Frame{Dir: runtime.Out, Time: uitest.Clock, Method: "ping", ID: "8", Size: 40, Raw: []byte(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)}},
		runtime.TrafficFrame{EventHeader: h, Frame: runtime.Frame{Dir: runtime.Out, Time: uitest.Clock, Method: "tools/call", ID: "9", Size: 60, Raw: []byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call"}`)}},
	)
	hs.keys("j", "6")
	hs.waitText("2 frames")
	hs.keys("/")
	for _, r := range "method:ping" {
		hs.keys(string(r))
	}
	hs.keys("enter")
	v := hs.waitText("1 frame")
	if strings.Contains(v, "tools/call") {
		t.Errorf("method:ping still shows tools/call:\n%s", v)
	}
}

// Ids are per connection: two servers' request 3 are two rows, and the
// end of one leaves the other. The fake numbers per server like the
// runtime.
func TestRequestsKeyedByServerAndID(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 140, 40)
	at := func(server string) runtime.EventHeader {
		return runtime.EventHeader{Time: uitest.Clock, Server: server}
	}
	rt.Emit(
		runtime.RequestStarted{EventHeader: at("everything"), ID: 3, Method: "tools/call", Tool: "echo"},
		runtime.RequestStarted{EventHeader: at("weather"), ID: 3, Method: "tools/call", Tool: "forecast"},
	)
	hs.keys("3")
	v := hs.waitText("2 outstanding")
	if !strings.Contains(v, "echo") || !strings.Contains(v, "forecast") {
		t.Fatalf("both requests 3 should show:\n%s", v)
	}
	rt.Emit(runtime.RequestFinished{EventHeader: at("everything"), ID: 3, Method: "tools/call", Tool: "echo"})
	v = hs.waitText("1 outstanding")
	if !strings.Contains(v, "forecast") {
		t.Errorf("finishing everything's request 3 removed weather's:\n%s", v)
	}

	fake := uitest.New(uitest.ReadySnapshot())
	a, _ := fake.Call(t.Context(), runtime.CallRequest{Server: "everything", Tool: "echo"})
	b, _ := fake.Call(t.Context(), runtime.CallRequest{Server: "weather", Tool: "forecast"})
	if a.RequestID != 1 || b.RequestID != 1 {
		t.Errorf("the fake numbers requests %d and %d; the runtime numbers each connection from 1", a.RequestID, b.RequestID)
	}
}

// A modern request answered input_required is retried with a new id, and
// a task is polled with others: the Requests view keeps each such request
// on one row, under its first id, and says which round or task state it is
// in; the row goes when the request ends.
func TestRequestRoundsAndTasksStayOneRow(t *testing.T) {
	t.Parallel()
	rt := uitest.New(uitest.ReadySnapshot())
	hs := start(t, rt, 140, 40)
	h := runtime.EventHeader{Time: uitest.Clock, Server: "everything"}
	rt.Emit(
		runtime.RequestStarted{EventHeader: h, ID: 5, FirstID: 5, Round: 1, Method: "tools/call", Tool: "ask"},
		runtime.RequestFinished{EventHeader: h, ID: 5, FirstID: 5, Round: 1, Method: "tools/call", Tool: "ask", Continues: "input_required", Inputs: []string{"who: elicitation/create"}},
	)
	hs.keys("3")
	hs.waitText("1 outstanding", "ask") // between rounds the request is still there
	rt.Emit(runtime.RequestStarted{EventHeader: h, ID: 6, FirstID: 5, Round: 2, Method: "tools/call", Tool: "ask"})
	v := hs.waitText("round 2")
	if !strings.Contains(v, "1 outstanding") || !strings.Contains(v, " 5 ") {
		t.Fatalf("the second round is not the same row under id 5:\n%s", v)
	}
	rt.Emit(runtime.RequestFinished{EventHeader: h, ID: 6, FirstID: 5, Round: 2, Method: "tools/call", Tool: "ask"})
	hs.waitText("0 outstanding")

	rt.Emit(
		runtime.RequestStarted{EventHeader: h, ID: 9, FirstID: 9, Round: 1, Method: "tools/call", Tool: "research"},
		runtime.RequestFinished{EventHeader: h, ID: 9, FirstID: 9, Method: "tools/call", Tool: "research", Continues: "task"},
		runtime.TaskUpdated{EventHeader: h, RequestID: 9, Method: "tools/call", Tool: "research", Task: runtime.TaskInfo{TaskID: "t1", Status: "working", Message: "reading sources"}},
	)
	hs.waitText("task working: reading sources", "1 outstanding")
	rt.Emit(runtime.RequestFinished{EventHeader: h, ID: 9, FirstID: 9, Method: "tools/call", Tool: "research"})
	hs.waitText("0 outstanding")
}
