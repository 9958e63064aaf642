package ui

import (
	"fmt"
	"sort"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// requestsTab lists the outstanding requests of every server with their
// age and progress (x cancels one), then the call history: every finished
// tool call of the selected server (a: all servers), newest first, with
// status and duration. enter reopens a call's result, E runs it again as
// it was, e opens its form with its arguments to edit first, T adds it to
// a test suite (suitestep.go).
type requestsTab struct {
	base
	cur cursor
	all bool
}

func newRequestsTab(c *common) *requestsTab { return &requestsTab{base: base{c: c}} }

func (t *requestsTab) Title() string { return "Requests" }

func (t *requestsTab) ShortHelp() []key.Binding {
	k := t.c.keys
	return []key.Binding{k.Up, k.Down, k.Cancel, keysRelabel(k.Select, "reopen result"), k.Rerun, k.EditRerun, k.Scope, k.AddToSuite}
}

func (t *requestsTab) ServerChanged() {
	if !t.all {
		t.cur = cursor{}
	}
}

// list is the outstanding requests, oldest first.
func (t *requestsTab) list() []*runtime.RequestInfo {
	out := make([]*runtime.RequestInfo, 0, len(t.c.reqs))
	for _, r := range t.c.reqs {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.Started.Equal(b.Started) {
			return a.Started.Before(b.Started)
		}
		if a.Server != b.Server {
			return a.Server < b.Server
		}
		return rowID(a.FirstID, a.ID) < rowID(b.FirstID, b.ID)
	})
	return out
}

// calls is the history shown, newest first.
func (t *requestsTab) calls() []runtime.CallRecord {
	var out []runtime.CallRecord
	for i := len(t.c.history) - 1; i >= 0; i-- {
		if r := t.c.history[i]; t.all || r.Server == t.c.server {
			out = append(out, r)
		}
	}
	return out
}

// reqRow is one selectable row: an outstanding request or a past call.
type reqRow struct {
	req  *runtime.RequestInfo
	call *runtime.CallRecord
}

func (t *requestsTab) rows() []reqRow {
	var out []reqRow
	for _, r := range t.list() {
		out = append(out, reqRow{req: r})
	}
	calls := t.calls()
	for i := range calls {
		out = append(out, reqRow{call: &calls[i]})
	}
	return out
}

// historyRows is the room for rows: the two summary lines and the two
// column heads take four.
func (t *requestsTab) listRows() int { return max(t.h-4, 1) }

func (t *requestsTab) Update(msg tea.KeyMsg) tea.Cmd {
	k := t.c.keys
	rows := t.rows()
	sel, _ := t.cur.window(len(rows), t.listRows())
	var row reqRow
	if sel >= 0 {
		row = rows[sel]
	}
	switch {
	case key.Matches(msg, k.Scope):
		t.all = !t.all
		t.cur = cursor{}
		return nil
	case key.Matches(msg, k.Cancel):
		if r := row.req; r != nil {
			return func() tea.Msg { return cancelIntentMsg{server: r.Server, id: r.ID} }
		}
		return nil
	case key.Matches(msg, k.Select):
		if c := row.call; c != nil {
			rec := *c
			return func() tea.Msg { return reopenMsg{rec: rec} }
		}
		return nil
	case key.Matches(msg, k.Rerun), key.Matches(msg, k.EditRerun):
		if c := row.call; c != nil {
			rec, edit := *c, key.Matches(msg, k.EditRerun)
			return func() tea.Msg { return rerunMsg{rec: rec, edit: edit} }
		}
		return nil
	case key.Matches(msg, k.AddToSuite):
		if c := row.call; c != nil {
			rec := *c
			return func() tea.Msg { return addToSuiteMsg{rec: rec} }
		}
		return nil
	}
	navKeys(t.c, msg, &t.cur, len(rows), t.listRows())
	return nil
}

// cancelIntentMsg asks the root model to cancel a request.
type cancelIntentMsg struct {
	server string
	id     uint64
}

// reopenMsg asks the root model to show a past call's result again.
type reopenMsg struct{ rec runtime.CallRecord }

// rerunMsg asks the root model to call a past call's tool again, with its
// arguments as they were or in the form to edit first.
type rerunMsg struct {
	rec  runtime.CallRecord
	edit bool
}

func (t *requestsTab) View() string {
	st := t.c.st
	reqs := t.list()
	calls := t.calls()
	summary := fmt.Sprintf("%d outstanding · all servers", len(reqs))
	if t.c.gw != nil {
		summary += " · CLIENT names the gateway client a request is for"
	}
	rows := []string{padRight(st.Dim.Render(summary), t.w)}
	sel, top := t.cur.window(len(reqs)+len(calls), t.listRows())
	// Narrow terminals drop the method column (it is nearly always
	// tools/call) so the progress message keeps its room.
	wide := t.w >= 110
	barW := 10
	if wide {
		barW = 20
	}
	toolW := t.toolWidth(reqs, calls)
	// While the session serves MCP, each request says which gateway
	// client it is for ("—": the person's own).
	gw := t.c.gw
	const clientW = 14
	if len(reqs) == 0 {
		empty := noRequests
		if t.c.replay { // nothing can be sent from a recording
			empty = noRequestsReplay
		}
		rows = append(rows, padRight(st.Faint.Render(empty), t.w))
	} else {
		head := fmt.Sprintf(" %-7s %-12s ", "ID", "SERVER")
		if gw != nil {
			head += fmt.Sprintf("%-*s ", clientW, "CLIENT")
		}
		if wide {
			head += fmt.Sprintf("%-12s ", "METHOD")
		}
		head += fmt.Sprintf("%-*s %7s %s", toolW, "TOOL", "AGE", "PROGRESS")
		rows = append(rows, st.ColumnHead.Render(padRight(head, t.w)))
	}
	now := t.c.now()
	for i := top; i < len(reqs) && len(rows) < t.h; i++ {
		r := reqs[i]
		progress := st.Faint.Render("waiting")
		plain := "waiting"
		if p := r.Progress; p != nil {
			bar, label := progressBar(p.Progress, p.Total, barW)
			plain = bar + " " + label
			progress = st.BarFull.Render(bar) + " " + label
			if p.Message != "" {
				msg := present.Line(p.Message)
				plain += " " + msg
				progress += " " + st.Dim.Render(msg)
			}
		}
		what := r.Tool
		if what == "" {
			what = r.Method
		}
		switch {
		case r.Task != nil:
			task := "task " + present.Line(r.Task.Status)
			if r.Task.Message != "" {
				task += ": " + present.Line(r.Task.Message)
			}
			plain, progress = plain+" · "+task, progress+" "+st.Dim.Render("· "+task)
		case r.Round > 1:
			round := fmt.Sprintf("round %d (input asked)", r.Round)
			plain, progress = plain+" · "+round, progress+" "+st.Dim.Render("· "+round)
		}
		line := fmt.Sprintf(" %-7d %-12s ", rowID(r.FirstID, r.ID), present.Truncate(r.Server, 12))
		if gw != nil {
			who := "—"
			if o, ok := gw.owner[reqKey{r.Server, rowID(r.FirstID, r.ID)}]; ok {
				who = gw.label(o.Client)
			}
			line += padRight(present.Truncate(who, clientW), clientW) + " "
		}
		if wide {
			line += fmt.Sprintf("%-12s ", present.Truncate(present.Line(r.Method), 12))
		}
		line += fmt.Sprintf("%-*s %7s ", toolW, present.Truncate(present.Line(what), toolW), present.Age(now.Sub(r.Started)))
		if i == sel {
			rows = append(rows, st.Selected.Render(padRight("›"+line[1:]+plain, t.w)))
			continue
		}
		rows = append(rows, padRight(line+progress, t.w))
	}
	return t.fill(append(rows, t.historyRows(calls, toolW, len(reqs), sel, top, t.h-len(rows))...))
}

// toolWidth is the TOOL column of both tables: as wide as the longest
// name they show (tool names are kept whole where the row has room), at
// least 10 and at most a quarter of the row.
func (t *requestsTab) toolWidth(reqs []*runtime.RequestInfo, calls []runtime.CallRecord) int {
	longest := 0
	for _, r := range reqs {
		what := r.Tool
		if what == "" {
			what = r.Method
		}
		longest = max(longest, ansi.StringWidth(present.Line(what)))
	}
	for _, c := range calls {
		longest = max(longest, ansi.StringWidth(present.Line(c.Tool)))
	}
	return min(max(longest, 10), max(t.w/4, 10))
}

// historyRows draws the call history in room rows; item indexes continue
// after the n outstanding requests.
func (t *requestsTab) historyRows(calls []runtime.CallRecord, toolW, n, sel, top, room int) []string {
	st := t.c.st
	if room < 2 {
		return nil
	}
	scope := t.c.server + " (a: all servers)"
	if t.all {
		scope = "all servers (a: " + t.c.server + " only)"
	}
	info := "history · " + present.Count(len(calls), "call", "calls") + " · " + scope
	if t.c.historyDropped > 0 {
		info += fmt.Sprintf(" · %d older dropped", t.c.historyDropped)
	}
	rows := []string{padRight(st.Label.Render(info), t.w)}
	if len(calls) == 0 {
		return append(rows, padRight(st.Faint.Render("No finished calls yet."), t.w))
	}
	rows = append(rows, st.ColumnHead.Render(padRight(fmt.Sprintf(" %-5s %-12s %-*s %-10s %8s %8s  %s", "#", "SERVER", toolW, "TOOL", "STATUS", "TOOK", "AGO", "ARGUMENTS"), t.w)))
	now := t.c.now()
	for j := max(top-n, 0); j < len(calls) && len(rows) < room; j++ {
		c := calls[j]
		status := c.Status.String()
		line := fmt.Sprintf(" %-5d %-12s %-*s %-10s %8s %8s  %s", c.Seq, present.Truncate(c.Server, 12), toolW, present.Truncate(present.Line(c.Tool), toolW),
			status, present.Latency(c.Duration), present.Age(now.Sub(c.Started)), present.CompactJSON(c.Arguments))
		switch {
		case n+j == sel:
			rows = append(rows, st.Selected.Render(padRight("›"+line[1:], t.w)))
		case c.Status != runtime.CallOK:
			rows = append(rows, st.Error.Render(padRight(line, t.w)))
		default:
			rows = append(rows, padRight(line, t.w))
		}
	}
	return rows
}

// The empty Requests tab, live and in a replay, where nothing can be sent.
const (
	noRequests       = "No requests in flight. Calls you send from the Tools tab show here until they finish."
	noRequestsReplay = "No requests in flight at this point of the recording."
)
