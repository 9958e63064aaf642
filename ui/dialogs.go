package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// dialog is a small yes/no or informational box. A body taller than the
// terminal scrolls (↑/↓) above the answer line, which always shows: an
// approval must not hide part of what it approves.
type dialog struct {
	c     *common
	title string
	body  []string
	yes   func() tea.Msg // nil: a notice, which any key closes (see givesWay)
	no    func() tea.Msg
	// approvesStart marks the approval of a project file before MCP
	// starts: m on it asks for MCP to switch on after y.
	approvesStart bool
	w, h          int
	top           int // first body line shown
}

// dialogFooter is the rows under the body: a blank line and the answers.
const dialogFooter = 2

func (d *dialog) SetSize(w, h int) {
	d.w = min(max(w-10, 40), 76)
	d.h = min(len(d.body)+3+dialogFooter, h)
	d.top = min(d.top, d.maxTop())
}

// textRows is how many body lines show at once: all of them, or all but
// the one that says the body scrolls.
func (d *dialog) textRows() int {
	rows := max(d.h-3-dialogFooter, 1)
	if len(d.body) > rows {
		rows = max(rows-1, 1)
	}
	return rows
}

// scrolls reports whether the body is taller than the dialog.
func (d *dialog) scrolls() bool { return len(d.body) > d.textRows() }

func (d *dialog) maxTop() int { return max(len(d.body)-d.textRows(), 0) }

func (d *dialog) Help() []key.Binding {
	k := d.c.keys
	var b []key.Binding
	if d.yes == nil {
		b = []key.Binding{k.Close, d.passKeys()}
	} else {
		b = k.DialogHelp()
	}
	if d.scrolls() {
		b = append(b, k.Up, k.Down)
	}
	return b
}

func (d *dialog) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	k := d.c.keys
	switch {
	case d.scrolls() && key.Matches(msg, k.Up):
		d.top = max(d.top-1, 0)
		return d, nil
	case d.scrolls() && key.Matches(msg, k.Down):
		d.top = min(d.top+1, d.maxTop())
		return d, nil
	}
	if d.yes == nil {
		if key.Matches(msg, k.Close) {
			return nil, nil
		}
		return d, nil
	}
	switch {
	case key.Matches(msg, k.Yes):
		return nil, d.yes
	case key.Matches(msg, k.No):
		return nil, d.no
	}
	return d, nil
}

// givesWay reports whether msg is a key of the screen under the notice d
// (it asks nothing) and not one of d's own (close, scroll). Such a key
// closes the notice and goes on to the screen (see handleKey); a key
// bound to nothing does nothing.
func (d *dialog) givesWay(msg tea.KeyMsg) bool {
	k := d.c.keys
	switch {
	case d.yes != nil || key.Matches(msg, k.Close):
		return false
	case d.scrolls() && (key.Matches(msg, k.Up) || key.Matches(msg, k.Down)):
		return false
	}
	return key.Matches(msg, d.passKeys())
}

// passKeys is the help's entry for the keys a notice lets through: every
// key of the key map.
func (d *dialog) passKeys() key.Binding {
	var keys []string
	for _, b := range d.c.keys.All() {
		keys = append(keys, b.Keys()...)
	}
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp("other keys", "close it and act"))
}

func (d *dialog) View() string {
	st := d.c.st
	body := d.body
	if d.scrolls() {
		rows := d.textRows()
		top := min(d.top, d.maxTop())
		body = append(append([]string(nil), body[top:top+rows]...), scrollNote(d.c, top, rows, len(d.body)))
	} else {
		body = append([]string(nil), body...)
	}
	body = append(body, "")
	if d.yes != nil {
		body = append(body, st.Accent.Render("y")+" yes   "+st.Accent.Render("n")+" no")
	} else {
		body = append(body, st.Dim.Render("esc to close"))
	}
	return modalBox(d.c, d.title, body, 0, d.w, d.h)
}

func (d *dialog) wrapBody(text string) {
	for _, l := range strings.Split(text, "\n") {
		d.body = append(d.body, wrap(l, min(72, 66))...)
	}
}

// newConfirmDialog asks before a destructive action.
func newConfirmDialog(c *common, title, text string, action confirmAction) *dialog {
	d := &dialog{c: c, title: title, yes: func() tea.Msg { return confirmedMsg{action: action} }}
	d.wrapBody(text)
	return d
}

// newPlanDialog shows what a reload changed.
func newPlanDialog(c *common, p runtime.Plan) *dialog {
	st := c.st
	d := &dialog{c: c, title: "Configuration reloaded"}
	if p.Empty() {
		d.body = []string{st.Dim.Render("Nothing changed: every server kept its connection.")}
		return d
	}
	styles := map[string]func(...string) string{
		"added": st.Success.Render, "started": st.Success.Render, "removed": st.Error.Render, "stopped": st.Error.Render,
		"restarted": st.Warning.Render, "updated": st.Warning.Render, "kept": st.Dim.Render,
	}
	for _, part := range present.PlanParts(p) {
		// The widest label and a space: "restarted filesystem", never
		// "restartedfilesystem".
		d.body = append(d.body, styles[part.Label](fmt.Sprintf("%-10s", part.Label))+present.Line(strings.Join(part.Names, ", ")))
	}
	return d
}
