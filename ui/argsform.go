package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// argsForm edits the string arguments of a prompt or the variables of a
// resource template, with suggestions from the server's
// completion/complete under the focused field as the person types: ctrl+n
// and ctrl+p pick one, → (at the end of the text) or ctrl+f takes it.
type argsForm struct {
	c      *common
	server string
	ref    runtime.CompletionRef
	canAsk bool // the server declares completions
	fields []*argField
	focus  int
	w      int
	labelW int
	// seq numbers completion requests, so a late answer for text that
	// changed since is dropped.
	seq uint64
}

type argField struct {
	name, desc string
	required   bool
	in         textinput.Model
	sugg       []string // suggestions for the text as it is now
	more       bool     // the server has more than it sent
	pick       int
	err        string
}

// completeMsg is completion/complete's answer for one field's text.
type completeMsg struct {
	form  *argsForm
	field int
	seq   uint64
	value string
	comp  *runtime.Completion
	err   error
}

func newArgsForm(c *common, server string, ref runtime.CompletionRef, fields []*argField) *argsForm {
	f := &argsForm{c: c, server: server, ref: ref, fields: fields}
	if srv, ok := c.snap.Server(server); ok {
		f.canAsk = strings.Contains(string(srv.Capabilities), `"completions"`)
	}
	for _, fl := range fields {
		fl.in = newLineInput(c.st)
		f.labelW = max(f.labelW, len(fl.name)+2)
	}
	f.setFocus(0)
	return f
}

func (f *argsForm) setFocus(i int) {
	if len(f.fields) == 0 {
		return
	}
	f.focus = min(max(i, 0), len(f.fields)-1)
	for j, fl := range f.fields {
		if j == f.focus {
			fl.in.Focus()
		} else {
			fl.in.Blur()
		}
	}
}

func (f *argsForm) setSize(w int) {
	f.w = w
	f.labelW = min(f.labelW, w/3)
	for _, fl := range f.fields {
		setLineWidth(&fl.in, max(w-f.labelW-6, 10))
	}
}

// values are the typed values, empty ones left out.
func (f *argsForm) values() map[string]string {
	out := map[string]string{}
	for _, fl := range f.fields {
		if v := fl.in.Value(); v != "" {
			out[fl.name] = v
		}
	}
	return out
}

// missing marks required fields left empty; it reports whether any is.
func (f *argsForm) missing() bool {
	any := false
	for _, fl := range f.fields {
		fl.err = ""
		if fl.required && strings.TrimSpace(fl.in.Value()) == "" {
			fl.err = "required"
			any = true
		}
	}
	return any
}

// ask requests completions for the focused field's text.
func (f *argsForm) ask(rt Runtime, m *Model) tea.Cmd {
	if !f.canAsk || len(f.fields) == 0 {
		return nil
	}
	f.seq++
	i, seq := f.focus, f.seq
	fl := f.fields[i]
	value := fl.in.Value()
	req := runtime.CompleteRequest{Server: f.server, Ref: f.ref, Argument: fl.name, Value: value, Context: f.values()}
	delete(req.Context, fl.name)
	ctx := m.ctx()
	return func() tea.Msg {
		comp, err := rt.Complete(ctx, req)
		return completeMsg{form: f, field: i, seq: seq, value: value, comp: comp, err: err}
	}
}

// completed applies an answer that is still current.
func (f *argsForm) completed(msg completeMsg) {
	if msg.seq != f.seq || msg.field >= len(f.fields) {
		return
	}
	fl := f.fields[msg.field]
	if fl.in.Value() != msg.value {
		return
	}
	fl.sugg, fl.more, fl.pick = nil, false, 0
	if msg.err != nil || msg.comp == nil {
		return
	}
	for _, v := range msg.comp.Values {
		if v != msg.value {
			fl.sugg = append(fl.sugg, v)
		}
	}
	fl.more = msg.comp.HasMore || msg.comp.Total > len(msg.comp.Values)
}

// help is the form's keys for the focused field.
func (f *argsForm) help() []key.Binding {
	k := f.c.keys
	b := []key.Binding{k.NextField, k.PrevField}
	if len(f.fields) > 0 && len(f.fields[f.focus].sugg) > 0 {
		b = append(b, k.NextSuggestion, k.PrevSuggestion, k.AcceptSuggestion)
	}
	return b
}

// update edits; changed reports a text change (completions are then
// asked for again).
func (f *argsForm) update(msg tea.KeyMsg) (changed bool) {
	if len(f.fields) == 0 {
		return false
	}
	k := f.c.keys
	fl := f.fields[f.focus]
	switch {
	case key.Matches(msg, k.NextField):
		f.setFocus(f.focus + 1)
		return true // ask for the new field's suggestions
	case key.Matches(msg, k.PrevField):
		f.setFocus(f.focus - 1)
		return true
	case key.Matches(msg, k.NextSuggestion) && len(fl.sugg) > 0:
		fl.pick = cycle(fl.pick, 1, len(fl.sugg))
		return false
	case key.Matches(msg, k.PrevSuggestion) && len(fl.sugg) > 0:
		fl.pick = cycle(fl.pick, -1, len(fl.sugg))
		return false
	case key.Matches(msg, k.AcceptSuggestion) && len(fl.sugg) > 0 &&
		(msg.String() == "ctrl+f" || fl.in.Position() == len([]rune(fl.in.Value()))):
		fl.in.SetValue(fl.sugg[fl.pick])
		fl.in.CursorEnd()
		fl.err = ""
		return true
	}
	if editLine(&fl.in, msg) {
		fl.err = ""
		return true
	}
	return false
}

// lines draws the fields, the focused one's description and suggestions
// under it; focusLine is the line to keep in view.
func (f *argsForm) lines() (lines []string, focusLine int) {
	st := f.c.st
	if len(f.fields) == 0 {
		return []string{st.Dim.Render("No arguments.")}, 0
	}
	for i, fl := range f.fields {
		focused := i == f.focus
		marker, ls := "  ", st.Label
		if focused {
			marker, ls = "› ", st.LabelFocus
			focusLine = len(lines)
		}
		req := " "
		if fl.required {
			req = "*"
		}
		inputW := max(f.w-f.labelW-6, 10)
		lines = append(lines, marker+ls.Render(fieldLabel(present.Line(fl.name), f.labelW-1))+st.Required.Render(req)+" ["+lineView(&fl.in, inputW)+"]")
		indent := strings.Repeat(" ", f.labelW+3)
		if fl.err != "" {
			lines = append(lines, indent+st.Error.Render("✗ "+fl.err))
		}
		if !focused {
			continue
		}
		if fl.desc != "" {
			lines = append(lines, indent+st.Dim.Render(present.Truncate(present.OneLine(fl.desc, 200), f.w-f.labelW-3)))
		}
		if len(fl.sugg) > 0 {
			var parts []string
			for j, s := range fl.sugg[:min(len(fl.sugg), 8)] {
				s = present.Line(s)
				if j == fl.pick {
					parts = append(parts, st.Selected.Render(s))
				} else {
					parts = append(parts, st.Accent.Render(s))
				}
			}
			more := ""
			if fl.more || len(fl.sugg) > 8 {
				more = st.Dim.Render(" …")
			}
			lines = append(lines, padRight(indent+st.Dim.Render("suggestions: ")+strings.Join(parts, "  ")+more, f.w))
		}
	}
	return lines, focusLine
}
