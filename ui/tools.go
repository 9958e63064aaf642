package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// toolsTab lists the selected server's tools, filterable by name and
// description, each with what its listing costs an agent's context; enter
// opens the call form, space switches the tool off and on, a accepts a
// changed definition, s sorts by cost.
type toolsTab struct {
	base
	cur    cursor
	filter textinput.Model
	byCost bool // the costliest first, else the server's order
}

// openFormMsg asks the root model to open the call form for a tool.
type openFormMsg struct{ tool runtime.Tool }

func newToolsTab(c *common) *toolsTab {
	return &toolsTab{base: base{c: c}, filter: newFilterInput(c.st)}
}

func (t *toolsTab) Title() string { return "Tools" }

func (t *toolsTab) ShortHelp() []key.Binding {
	k := t.c.keys
	return []key.Binding{k.Up, k.Down, key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "call")), k.ToggleTool, k.AcceptTool,
		k.Details, k.SortTools, k.Filter}
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
	out := srv.Tools
	if !m.empty() {
		out = nil
		for _, tl := range srv.Tools {
			if m.matchText(tl.ServerTool, tl.Title, tl.Description) {
				out = append(out, tl)
			}
		}
	}
	if t.byCost {
		out = slices.Clone(out)
		slices.SortStableFunc(out, func(a, b runtime.Tool) int { return b.Cost.Bytes - a.Cost.Bytes })
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
	switch {
	case key.Matches(msg, t.c.keys.ToggleTool):
		return actOnSelected(&t.cur, tools, t.h-1, func(tool runtime.Tool) tea.Msg { return toolSwitchMsg{tool: tool, on: tool.Disabled} })
	case key.Matches(msg, t.c.keys.AcceptTool):
		return actOnSelected(&t.cur, tools, t.h-1, func(tool runtime.Tool) tea.Msg { return toolAcceptMsg{tool: tool} })
	case key.Matches(msg, t.c.keys.SortTools):
		t.byCost = !t.byCost
		t.cur = cursor{}
		return nil
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
	var cost string
	if len(srv.Tools) > 0 {
		cost = " · " + costLine(srv)
	}
	if t.byCost {
		cost += " · by cost"
	}
	rows := []string{padRight(st.Dim.Render(info)+filterNote(st, &t.filter)+st.Dim.Render(cost), t.w)}
	if len(srv.Tools) == 0 {
		msg := "No tools: " + srv.Name + " " + t.c.stateSentence(srv) + "." + t.noToolsHint(srv)
		if held := t.c.heldBack(srv, "tools"); held != "" {
			msg = "No tools yet: " + held + "."
		}
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
		names[i] += appTag(tl) + present.SchemaTag(tl)
		nameW = max(nameW, ansi.StringWidth(names[i]))
	}
	nameW = min(nameW, max(t.w-8, 12))
	// The marker column shows only when a tool has a marker, the cost
	// column is as wide as the widest cost: descriptions keep the room.
	markW, costW := 0, 0
	for _, tl := range tools {
		if strings.TrimSpace(markText(tl)) != "" {
			markW = len(markText(tl))
		}
		costW = max(costW, len(present.Tokens(tl.Cost.Tokens)))
	}
	sel, top := t.cur.window(len(tools), t.h-1)
	for i := top; i < len(tools) && len(rows) < t.h; i++ {
		tl := tools[i]
		name := present.Truncate(names[i], nameW)
		name += strings.Repeat(" ", max(nameW-ansi.StringWidth(name), 0))
		plain := markText(tl)[:markW]
		mark, cost := t.mark(plain, tl), fmt.Sprintf("%*s", costW, present.Tokens(tl.Cost.Tokens))
		desc := present.OneLine(tl.Description, 300)
		switch {
		case i == sel:
			rows = append(rows, st.Selected.Render(padRight("› "+name+"  "+plain+cost+"  "+desc, t.w)))
		case tl.Disabled:
			// Switched off: the whole row dimmed, the marker saying why.
			rows = append(rows, padRight("  "+st.Faint.Render(name)+"  "+mark+st.Faint.Render(cost+"  "+desc), t.w))
		default:
			rows = append(rows, padRight("  "+st.Accent.Render(name)+"  "+mark+st.Dim.Render(cost+"  "+desc), t.w))
		}
	}
	return t.fill(rows)
}

// markText is a tool's marker (present.ToolSwitch, blank for a tool on
// and unchanged), eleven cells wide, its blank included.
func markText(tl runtime.Tool) string {
	m := present.ToolSwitch(tl)
	if m == "on" {
		m = ""
	}
	return fmt.Sprintf("%-11s", m)
}

// mark is a tool's marker m styled: off dimmed, changed as a warning,
// and one whose new description reads as instructions to the model as an
// error.
func (t *toolsTab) mark(m string, tl runtime.Tool) string {
	st := t.c.st
	switch {
	case tl.Disabled:
		return st.Faint.Render(m)
	case tl.Changed != nil && len(tl.Changed.InstructionLike) > 0:
		return st.Error.Render(m)
	case tl.Changed != nil:
		return st.Warning.Render(m)
	}
	return m
}

// costLine is what a server's tools cost an agent's context, and after
// the switches when some are off.
func costLine(srv runtime.ServerSnapshot) string {
	s := present.ToolCost(srv.ToolCost)
	if srv.ToolCostOn != srv.ToolCost {
		s += ", " + present.ToolCost(srv.ToolCostOn) + " after switches"
	}
	return s
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
