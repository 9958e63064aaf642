package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// dialog is a small yes/no or informational box.
type dialog struct {
	c     *common
	title string
	body  []string
	yes   func() tea.Msg // nil: any key closes
	no    func() tea.Msg
	w, h  int
}

func (d *dialog) SetSize(w, h int) {
	d.w = min(max(w-10, 40), 76)
	d.h = min(len(d.body)+5, h)
}

func (d *dialog) Help() []key.Binding {
	if d.yes == nil {
		return []key.Binding{d.c.keys.Close}
	}
	return d.c.keys.DialogHelp()
}

func (d *dialog) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	k := d.c.keys
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

func (d *dialog) View() string {
	body := append([]string(nil), d.body...)
	body = append(body, "")
	if d.yes != nil {
		body = append(body, d.c.st.Accent.Render("y")+" yes   "+d.c.st.Accent.Render("n")+" no")
	} else {
		body = append(body, d.c.st.Dim.Render("esc to close"))
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

// newTrustDialog asks to approve a project configuration file before any
// of its commands run.
func newTrustDialog(c *common, f config.File) *dialog {
	d := &dialog{c: c, title: "Approve project configuration?",
		yes: func() tea.Msg { return trustIntentMsg{file: f, approve: true} },
		no:  func() tea.Msg { return trustIntentMsg{file: f, approve: false} },
	}
	names := strings.Join(f.Servers, ", ")
	if names == "" {
		names = "(none)"
	}
	d.wrapBody(fmt.Sprintf("%s\n\ndefines servers: %s\n\nThese servers run commands that came with this project. Approve to let MCP start them (remembered until the file changes), or keep MCP off.", f.Path, names))
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

// helpOverlay is the full key reference, scrollable when it does not
// fit the terminal.
type helpOverlay struct {
	c    *common
	h    *help.Model
	w, y int
	top  int
}

func newHelpOverlay(c *common, h *help.Model) *helpOverlay { return &helpOverlay{c: c, h: h} }

func (o *helpOverlay) SetSize(w, h int) { o.w, o.y = min(w-4, 130), h }

func (o *helpOverlay) Help() []key.Binding {
	k := o.c.keys
	return []key.Binding{k.Up, k.Down, k.Close, k.Help}
}

func (o *helpOverlay) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	k := o.c.keys
	switch {
	case key.Matches(msg, k.Close) || key.Matches(msg, k.Help):
		return nil, nil
	case key.Matches(msg, k.Up):
		o.top = max(o.top-1, 0)
	case key.Matches(msg, k.Down):
		o.top = min(o.top+1, max(len(o.body())-(o.y-3), 0))
	}
	return o, nil
}

// body lays the sections out side by side, as many as the width takes.
func (o *helpOverlay) body() []string {
	o.h.Width = 0
	cols := o.c.keys.FullHelp()
	per := max(min((o.w-4)/36, 3), 1)
	var body []string
	for i := 0; i < len(cols); i += per {
		body = append(body, strings.Split(o.h.FullHelpView(cols[i:min(i+per, len(cols))]), "\n")...)
		body = append(body, "")
	}
	return append(body, o.c.st.Dim.Render("Filters: words match anywhere; method:x, level:x and server:x match those fields. ↑/↓ scroll."))
}

func (o *helpOverlay) View() string {
	body := o.body()
	rows := min(len(body)+3, o.y)
	top := min(o.top, max(len(body)-(rows-3), 0))
	return modalBox(o.c, "Keys", body[top:], 0, o.w, rows)
}
