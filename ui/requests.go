package ui

import (
	"fmt"
	"sort"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// requestsTab lists outstanding requests of every server with their age
// and progress; x cancels the selected one.
type requestsTab struct {
	base
	cur cursor
}

func newRequestsTab(c *common) *requestsTab { return &requestsTab{base: base{c: c}} }

func (t *requestsTab) Title() string { return "Requests" }

func (t *requestsTab) ShortHelp() []key.Binding {
	k := t.c.keys
	return []key.Binding{k.Up, k.Down, k.Cancel}
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
		return a.ID < b.ID
	})
	return out
}

func (t *requestsTab) Update(msg tea.KeyMsg) tea.Cmd {
	reqs := t.list()
	if key.Matches(msg, t.c.keys.Cancel) {
		return actOnSelected(&t.cur, reqs, t.h-2, func(r *runtime.RequestInfo) tea.Msg {
			return cancelIntentMsg{server: r.Server, id: r.ID}
		})
	}
	navKeys(t.c, msg, &t.cur, len(reqs), t.h-2)
	return nil
}

// cancelIntentMsg asks the root model to cancel a request.
type cancelIntentMsg struct {
	server string
	id     uint64
}

func (t *requestsTab) View() string {
	st := t.c.st
	reqs := t.list()
	rows := []string{padRight(st.Dim.Render(fmt.Sprintf("%d outstanding · all servers", len(reqs))), t.w)}
	if len(reqs) == 0 {
		rows = append(rows, padRight(st.Faint.Render("No requests in flight. Calls you send from the Tools tab show here until they finish."), t.w))
		return t.fill(rows)
	}
	// Narrow terminals drop the method column (it is nearly always
	// tools/call) so the progress message keeps its room.
	wide := t.w >= 110
	barW := 10
	if wide {
		barW = 20
	}
	toolW := min(24, max(t.w/5, 10))
	head := fmt.Sprintf(" %-7s %-12s ", "ID", "SERVER")
	if wide {
		head += fmt.Sprintf("%-12s ", "METHOD")
	}
	head += fmt.Sprintf("%-*s %7s %s", toolW, "TOOL", "AGE", "PROGRESS")
	rows = append(rows, st.ColumnHead.Render(padRight(head, t.w)))
	now := t.c.now()
	sel, top := t.cur.window(len(reqs), t.h-2)
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
		line := fmt.Sprintf(" %-7d %-12s ", r.ID, present.Truncate(r.Server, 12))
		if wide {
			line += fmt.Sprintf("%-12s ", present.Truncate(present.Line(r.Method), 12))
		}
		line += fmt.Sprintf("%-*s %7s ", toolW, present.Truncate(present.Line(r.Tool), toolW), present.Age(now.Sub(r.Started)))
		if i == sel {
			rows = append(rows, st.Selected.Render(padRight("›"+line[1:]+plain, t.w)))
			continue
		}
		rows = append(rows, padRight(line+progress, t.w))
	}
	return t.fill(rows)
}
