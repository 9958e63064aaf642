package ui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// notesTab is the merged notification stream, newest at the bottom, of
// all servers or only the selected one.
type notesTab struct {
	streamPane[note]
	all bool
}

func newNotesTab(c *common) *notesTab {
	return &notesTab{streamPane: newStreamPane(c, c.notes), all: true}
}

func (t *notesTab) Title() string { return "Notifications" }

func (t *notesTab) ShortHelp() []key.Binding {
	k := t.c.keys
	return []key.Binding{k.Up, k.Down, keysRelabel(k.Select, "params"), k.Pause, k.Scope, k.Filter}
}

func (t *notesTab) Update(msg tea.KeyMsg) tea.Cmd {
	switch k := t.c.keys; {
	case key.Matches(msg, k.Scope):
		t.all = !t.all
		t.rematch()
		return nil
	case key.Matches(msg, k.Select):
		if n := t.selectedItem(t.h - 1); n != nil {
			shown := *n
			return func() tea.Msg { return openNoteMsg{n: shown} }
		}
		return nil
	}
	t.nav(msg, t.h-1)
	return nil
}

// openNoteMsg asks the root model to show a notification's params: the
// row is a one-line summary, and a person debugging a server wants what
// it sent.
type openNoteMsg struct{ n note }

// openNote shows n's params, pretty-printed, in a viewer (y copies, s
// saves them).
func (m *Model) openNote(n note) {
	title := "Notification " + present.Line(n.method) + " from " + present.Line(n.server)
	m.openModal(newTextViewer(m.c, title, "notification", n.server, func(w int) []string {
		st := m.c.st
		out := []string{st.Dim.Render(m.c.clock(n.at) + " · params as the server sent them"), ""}
		raw := noteParams(n.ev)
		switch {
		case n.ev == nil:
			return append(out, st.Warning.Render(fmt.Sprintf("its params (%s) were too large to keep here; the Traffic tab, or a recording (ctrl+r), has them whole", present.Size(n.rawSize))))
		case len(raw) == 0:
			return append(out, st.Dim.Render("(no params)"))
		}
		for _, l := range strings.Split(present.PrettyJSON(raw), "\n") {
			out = append(out, wrap(l, w)...)
		}
		return out
	}))
}

// noteParams is a notification's params as the server sent them, from the
// event the runtime made of it.
func noteParams(e runtime.Event) json.RawMessage {
	var v any
	switch e := e.(type) {
	case runtime.NotificationReceived:
		return e.Params
	case runtime.LogMessage:
		v = struct {
			Level  string          `json:"level"`
			Logger string          `json:"logger,omitempty"`
			Data   json.RawMessage `json:"data,omitempty"`
		}{e.Level, e.Logger, e.Data}
	case runtime.Progress:
		v = struct {
			Token    string  `json:"progressToken"`
			Progress float64 `json:"progress"`
			Total    float64 `json:"total,omitempty"`
			Message  string  `json:"message,omitempty"`
		}{e.Token, e.Progress, e.Total, e.Message}
	case runtime.ResourceUpdated:
		v = map[string]string{"uri": e.URI}
	default:
		return nil // list_changed carries none
	}
	b, _ := json.Marshal(v)
	return b
}

// paramsSize is the size of what a notification event carries.
func paramsSize(e runtime.Event) int {
	switch e := e.(type) {
	case runtime.NotificationReceived:
		return len(e.Params)
	case runtime.LogMessage:
		return len(e.Data) + len(e.Logger)
	}
	return 0
}

func (t *notesTab) FilterChanged() { t.rematch() }

func (t *notesTab) ServerChanged() {
	if !t.all {
		t.rematch()
	}
}

func (t *notesTab) DataChanged() { t.s.catchUp() }

// rematch rebuilds the match function; everything-visible stays nil so
// it costs nothing per notification.
func (t *notesTab) rematch() {
	m := parseFilter(t.filter.Value())
	server := t.c.server
	if t.all && m.empty() {
		t.s.setMatch(nil)
		return
	}
	all := t.all
	t.s.setMatch(func(n *note) bool {
		return (all || n.server == server) && m.matchNote(n)
	})
}

func (t *notesTab) View() string {
	st := t.c.st
	scope := "all servers"
	if !t.all {
		scope = "only " + t.c.server
	}
	info := fmt.Sprintf("%s · %s · %d shown · %d kept", scope, t.followLabel(), t.s.count(), t.c.notes.len())
	if d := t.c.notes.dropped(); d > 0 {
		info += fmt.Sprintf(" · %d dropped", d)
	}
	rows := []string{padRight(st.Dim.Render(info)+filterNote(st, &t.filter), t.w)}
	if t.s.count() == 0 {
		msg := "No notifications yet. Servers send them for logs, progress and list changes."
		if t.filter.Value() != "" || !t.all {
			msg = "No notification matches. Press / to change the filter, a for all servers."
		}
		rows = append(rows, padRight(st.Faint.Render(msg), t.w))
		return t.fill(rows)
	}
	serverW, methodW, barW := 12, 24, 16
	if t.w < 110 {
		serverW, methodW, barW = 10, 14, 10
	}
	rows = append(rows, t.rows(t.h-1, func(n *note, selected bool) string {
		head := fmt.Sprintf("%s %-*s ", t.c.clock(n.at), serverW, present.Truncate(n.server, serverW))
		var body string
		switch {
		case n.progress != nil:
			// The call's name in the method column, after "progress"
			// where it fits; the bar says it is progress where it does not.
			label := "progress " + n.progress.label
			switch room := methodW - len("progress "); {
			case ansi.StringWidth(label) <= methodW:
			case room >= 8:
				label = "progress " + present.Truncate(n.progress.label, room)
			default:
				label = present.Truncate(n.progress.label, methodW)
			}
			bar, _ := progressBar(n.progress.progress, n.progress.total, barW)
			body = st.Info.Render(cellLeft(label, methodW)+" ") + st.BarFull.Render(bar) + " " + n.text
		case n.level != "":
			body = st.Level(n.level).Render(fmt.Sprintf("%-*s ", methodW, present.Truncate(n.level, methodW))) + n.text
		default:
			body = st.Dim.Render(fmt.Sprintf("%-*s ", methodW, present.Truncate(n.method, methodW))) + n.text
		}
		row := padRight(st.Faint.Render(head)+body, t.w-2)
		if selected {
			return st.Selected.Render(padRight(head+stripStyle(body), t.w-2))
		}
		return row
	})...)
	return t.fill(rows)
}
