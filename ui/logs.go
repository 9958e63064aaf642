package ui

import (
	"fmt"
	"mcpdeck/ui/present"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// logsTab is the selected server's noise: stderr, non-JSON stdout, state
// changes and protocol anomalies.
type logsTab struct{ serverPane[logLine] }

func newLogsTab(c *common) *logsTab {
	return &logsTab{serverPane: newServerPane(c, c.logs, func(l *logLine, server string, m matcher) bool {
		return l.server == server && m.matchHay(l.hay)
	})}
}

func (t *logsTab) Title() string { return "Logs" }

func (t *logsTab) ShortHelp() []key.Binding {
	k := t.c.keys
	return []key.Binding{k.Up, k.Down, k.Pause, k.Filter}
}

func (t *logsTab) Update(msg tea.KeyMsg) tea.Cmd {
	t.nav(msg, t.h-1)
	return nil
}

func (t *logsTab) View() string {
	st := t.c.st
	rows := []string{t.header("line", "lines")}
	if t.s.count() == 0 {
		msg := "Nothing logged. stderr lines, stray stdout and state changes of this server show here."
		if srv, ok := t.c.selected(); ok && len(srv.Stderr) > 0 {
			// Lines from before the UI subscribed are only in the snapshot.
			for _, l := range srv.Stderr {
				rows = append(rows, padRight(st.Faint.Render("stderr  ")+present.Line(l), t.w))
			}
			return t.fill(rows)
		}
		rows = append(rows, padRight(st.Faint.Render(msg), t.w))
		return t.fill(rows)
	}
	rows = append(rows, t.rows(t.h-1, func(l *logLine, selected bool) string {
		kind := fmt.Sprintf("%-7s ", l.kind)
		head := t.c.clock(l.at) + " "
		if selected {
			return st.Selected.Render(padRight(head+kind+l.text, t.w-2))
		}
		ks := st.Dim
		switch l.kind {
		case "stderr":
			ks = st.Warning
		case "anomaly":
			ks = st.Error
		case "state":
			ks = st.Info
		}
		return padRight(st.Faint.Render(head)+ks.Render(kind)+l.text, t.w-2)
	})...)
	return t.fill(rows)
}
