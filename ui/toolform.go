package ui

import (
	"encoding/json"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// toolForm is the call form of one tool. Sending with errors shown asks
// once more and then sends anyway (unvalidated), because checking how a
// server handles invalid input is part of writing one.
type toolForm struct {
	c     *common
	tool  runtime.Tool
	f     *form
	armed bool // errors were shown on the last send: the next one forces
	// noValidate sends whatever is typed, as --no-validate does: server
	// authors test their own validation with it.
	noValidate bool
	w, h       int
}

func newToolForm(c *common, tool runtime.Tool, prefill json.RawMessage) *toolForm {
	return &toolForm{c: c, tool: tool, f: newForm(c, tool.InputSchema, prefill)}
}

func (t *toolForm) SetSize(w, h int) {
	t.w, t.h = modalSize(w, h)
	// Border and title, the description, the blank lines around the form
	// and the verdict under it.
	t.f.setSize(t.w-4, t.h-3-len(t.description(t.w-4))-3)
}

// description is the tool's description wrapped to w.
func (t *toolForm) description(w int) []string {
	if d := present.OneLine(t.tool.Description, 500); d != "" {
		return wrap(d, w)
	}
	return nil
}

func (t *toolForm) Help() []key.Binding {
	k := t.c.keys
	if t.f.raw {
		// In the editor enter is a new line and tab an indent.
		return []key.Binding{k.Submit, k.RawJSON, k.Validate, k.Back}
	}
	b := []key.Binding{k.Send, k.NextField}
	b = append(b, t.f.help()...)
	return append(b, k.Toggle, k.RawJSON, k.Validate, k.Back, k.PrevField, k.PrevChoice)
}

func (t *toolForm) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	k := t.c.keys
	switch {
	case key.Matches(msg, k.Back):
		return nil, nil
	case key.Matches(msg, k.Submit), !t.f.raw && key.Matches(msg, k.Send):
		return t.submit()
	case key.Matches(msg, k.Validate):
		t.noValidate, t.armed = !t.noValidate, false
		return t, nil
	}
	if t.f.update(msg) {
		t.armed = false
	}
	return t, nil
}

func (t *toolForm) submit() (modal, tea.Cmd) {
	args, local := t.f.args()
	ok := t.f.validate() // after args, which clears the errors validate shows
	if local {
		t.armed = false
		return t, nil // text that is not even JSON cannot be sent
	}
	if !ok && !t.armed && !t.noValidate {
		t.armed = true
		return t, nil
	}
	tool, force := t.tool, !ok || t.noValidate
	return nil, func() tea.Msg { return callIntentMsg{tool: tool, args: args, noValidate: force} }
}

func (t *toolForm) View() string {
	st := t.c.st
	inner := t.w - 4
	var head []string
	for _, l := range t.description(inner) {
		head = append(head, st.Dim.Render(l))
	}
	head = append(head, "")
	lines, focus := t.f.lines()
	verdict, style := "✓ arguments match the schema", st.Success
	switch n := t.f.errorCount(); {
	case t.noValidate && n > 0:
		verdict, style = "validation off (ctrl+t): sent as typed, "+present.Count(n, "problem", "problems")+" and all", st.Warning
	case t.noValidate:
		verdict, style = "validation off (ctrl+t): sent as typed", st.Warning
	case t.armed:
		verdict, style = "The arguments do not match the schema. Send again to send them anyway, unvalidated.", st.Warning
	case n > 0:
		verdict, style = present.Count(n, "problem", "problems")+" · fields marked * are required", st.Error
	}
	// The verdict is wrapped, never cut: it says what the next enter does.
	foot := []string{""}
	for _, l := range wrap(verdict, inner) {
		foot = append(foot, style.Render(l))
	}
	title := "Call " + t.tool.Server + " › " + present.Line(t.tool.ServerTool)
	return modalPinned(t.c, title, head, lines, foot, focus+1, t.w, min(t.h, len(head)+len(lines)+len(foot)+3))
}
