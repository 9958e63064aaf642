package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// toolsTab lists the selected server's tools, filterable by name and
// description; enter opens the call form.
type toolsTab struct {
	base
	cur    cursor
	filter textinput.Model
}

// openFormMsg asks the root model to open the call form for a tool.
type openFormMsg struct{ tool runtime.Tool }

func newToolsTab(c *common) *toolsTab {
	return &toolsTab{base: base{c: c}, filter: newFilterInput(c.st)}
}

func (t *toolsTab) Title() string { return "Tools" }

func (t *toolsTab) ShortHelp() []key.Binding {
	k := t.c.keys
	return []key.Binding{k.Up, k.Down, key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "call")), k.Details, k.Filter}
}

func (t *toolsTab) Filter() *textinput.Model { return &t.filter }
func (t *toolsTab) FilterChanged()           { t.cur = cursor{} }
func (t *toolsTab) ServerChanged()           { t.cur = cursor{} }

// visible is the selected server's tools passing the filter.
func (t *toolsTab) visible() []runtime.Tool {
	srv, ok := t.c.selected()
	if !ok {
		return nil
	}
	m := parseFilter(t.filter.Value())
	if m.empty() {
		return srv.Tools
	}
	var out []runtime.Tool
	for _, tl := range srv.Tools {
		if m.matchHay(strings.ToLower(present.Line(tl.ServerTool + " " + tl.Title + " " + tl.Description))) {
			out = append(out, tl)
		}
	}
	return out
}

func (t *toolsTab) Update(msg tea.KeyMsg) tea.Cmd {
	tools := t.visible()
	if key.Matches(msg, t.c.keys.Select) {
		return actOnSelected(&t.cur, tools, t.h-1, func(tool runtime.Tool) tea.Msg { return openFormMsg{tool: tool} })
	}
	if key.Matches(msg, t.c.keys.Details) {
		return actOnSelected(&t.cur, tools, t.h-1, func(tool runtime.Tool) tea.Msg { return openDetailMsg{tool: tool} })
	}
	navKeys(t.c, msg, &t.cur, len(tools), t.h-1)
	return nil
}

func (t *toolsTab) View() string {
	st := t.c.st
	srv, ok := t.c.selected()
	if !ok {
		return t.empty("No server selected.")
	}
	tools := t.visible()
	info := fmt.Sprintf("%d of %s", len(tools), present.Count(len(srv.Tools), "tool", "tools"))
	rows := []string{padRight(st.Dim.Render(info)+filterNote(st, &t.filter), t.w)}
	if len(srv.Tools) == 0 {
		msg := "No tools: " + srv.Name + " " + t.c.stateSentence(srv) + "." + t.noToolsHint(srv)
		rows = append(rows, padRight(st.Faint.Render(msg), t.w))
		return t.fill(rows)
	}
	// Names are kept whole (a cut name is a wrong name): the column is as
	// wide as the longest, and descriptions give way. Only a name wider
	// than the pane leaves room is cut.
	names := make([]string, len(tools))
	nameW := 0
	for i, tl := range tools {
		names[i] = present.Line(tl.ServerTool)
		if tl.Title != "" && t.w > 100 && tl.Title != tl.ServerTool {
			names[i] += " · " + present.Line(tl.Title)
		}
		names[i] += appTag(tl)
		nameW = max(nameW, ansi.StringWidth(names[i]))
	}
	nameW = min(nameW, max(t.w-8, 12))
	sel, top := t.cur.window(len(tools), t.h-1)
	for i := top; i < len(tools) && len(rows) < t.h; i++ {
		tl := tools[i]
		name := present.Truncate(names[i], nameW)
		name += strings.Repeat(" ", max(nameW-ansi.StringWidth(name), 0))
		desc := present.OneLine(tl.Description, 300)
		if i == sel {
			rows = append(rows, st.Selected.Render(padRight("› "+name+"  "+desc, t.w)))
			continue
		}
		rows = append(rows, padRight("  "+st.Accent.Render(name)+"  "+st.Dim.Render(desc), t.w))
	}
	return t.fill(rows)
}

// noToolsHint says what would list a server's tools, for the state it is
// in: the key that helps now, never one that does nothing.
func (t *toolsTab) noToolsHint(srv runtime.ServerSnapshot) string {
	switch {
	case t.c.invalidText(srv) != "":
		return " Its configuration is invalid: fix it and press r."
	case srv.State.Live():
		return ""
	case t.c.snap == nil || !t.c.snap.Enabled:
		return " Tools are listed once it is ready (m switches MCP on)."
	case !srv.Enabled:
		return " Tools are listed once it is ready (space switches it on)."
	case srv.State == runtime.StateFailed:
		return " It failed: the Overview says why; R reconnects it."
	case srv.Note != "":
		return " It cannot start: " + present.Line(srv.Note)
	}
	return " Tools are listed once it is ready."
}
