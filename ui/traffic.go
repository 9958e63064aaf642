package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// trafficTab lists the selected server's raw JSON-RPC frames with their
// direction and time; the selected frame is pretty-printed below.
type trafficTab struct{ serverPane[frame] }

func newTrafficTab(c *common) *trafficTab {
	return &trafficTab{serverPane: newServerPane(c, c.traffic, func(f *frame, server string, m matcher) bool {
		return f.server == server && m.matchFrame(f)
	})}
}

func (t *trafficTab) Title() string { return "Traffic" }

func (t *trafficTab) ShortHelp() []key.Binding {
	k := t.c.keys
	return []key.Binding{k.Up, k.Down, k.Pause, k.Filter, k.Save}
}

// listRows is the height of the frame list; the rest shows the frame.
func (t *trafficTab) listRows() int { return max((t.h-1)/2, 1) }

func (t *trafficTab) Update(msg tea.KeyMsg) tea.Cmd {
	if key.Matches(msg, t.c.keys.Save) {
		if f := t.selectedItem(t.listRows()); f != nil {
			return saveFrame(f) // record_export.go
		}
		return nil
	}
	t.nav(msg, t.listRows())
	return nil
}

func (t *trafficTab) View() string {
	st := t.c.st
	rows := []string{t.header("frame", "frames")}
	if t.s.count() == 0 {
		rows = append(rows, padRight(st.Faint.Render("No frames yet: JSON-RPC messages to and from this server show here."), t.w))
		return t.fill(rows)
	}
	n := t.listRows()
	list := t.rows(n, func(f *frame, selected bool) string {
		arrow := "→"
		if f.f.Dir == runtime.In {
			arrow = "←"
		}
		if f.app { // the app's bridge: ⇠ from the view, ⇢ to it
			arrow = "⇢"
			if f.f.Dir == runtime.In {
				arrow = "⇠"
			}
		}
		id := ""
		if f.f.ID != "" {
			id = "#" + f.f.ID
		}
		text := fmt.Sprintf("%s.%03d %s %-12s %-28s %-8s %6s",
			t.c.clock(f.f.Time), f.f.Time.Nanosecond()/1e6, arrow, f.f.Kind, present.Truncate(f.f.Method, 28), present.Truncate(id, 8), present.Size(f.f.Size))
		if selected {
			return st.Selected.Render(padRight(text, t.w-2))
		}
		if f.f.Kind.String() == "error" { // the kind constants live in jsonrpc, below our layer
			return st.Error.Render(padRight(text, t.w-2))
		}
		return padRight(text, t.w-2)
	})
	for len(list) < n {
		list = append(list, strings.Repeat(" ", t.w))
	}
	rows = append(rows, list...)
	rows = append(rows, st.Faint.Render(strings.Repeat("─", t.w)))
	if f := t.selectedItem(n); f != nil {
		body := present.PrettyJSON(f.f.Raw)
		if len(f.f.Raw) < f.f.Size {
			body += fmt.Sprintf("\n… frame cut to %s of %s for tracing", present.Size(len(f.f.Raw)), present.Size(f.f.Size))
		}
		room := t.h - len(rows)
		for i, line := range strings.Split(body, "\n") {
			if i >= room {
				break
			}
			rows = append(rows, padRight(line, t.w))
		}
	}
	return t.fill(rows)
}
