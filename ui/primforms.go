package ui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/yosida95/uritemplate/v3"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// templateForm asks for the variables of a resource template, with
// suggestions from completion/complete, and reads the URI they make.
type templateForm struct {
	argsModal
	tmpl runtime.ResourceTemplate
	t    *uritemplate.Template
	err  string
}

// argsModal is what the template and prompt forms share: an argsForm in
// a modal, send to act, back to close, completions asked as typed.
type argsModal struct {
	c    *common
	f    *argsForm
	w, h int
}

func (a *argsModal) SetSize(w, h int) {
	a.w, a.h = min(max(w-6, 40), 100), h
	a.f.setSize(a.w - 4)
}

// help labels send with what it does ("read", "get the prompt").
func (a *argsModal) help(send string) []key.Binding {
	k := a.c.keys
	return append([]key.Binding{keysRelabel(k.Send, send)}, append(a.f.help(), k.Back)...)
}

// update closes on back and calls submit on send; any other key goes to
// the form, which may want completions for what was typed.
func (a *argsModal) update(self modal, msg tea.KeyMsg, submit func() (modal, tea.Cmd)) (modal, tea.Cmd) {
	k := a.c.keys
	switch {
	case key.Matches(msg, k.Back):
		return nil, nil
	case key.Matches(msg, k.Send):
		return submit()
	}
	if a.f.update(msg) {
		f := a.f
		return self, func() tea.Msg { return formCompleteMsg{f: f} }
	}
	return self, nil
}

// view draws head (then a blank line, if there is a head), the form, a
// blank line and foot.
func (a *argsModal) view(title string, head, foot []string) string {
	head = append([]string(nil), head...)
	if len(head) > 0 {
		head = append(head, "")
	}
	lines, focus := a.f.lines()
	foot = append([]string{""}, foot...)
	return modalPinned(a.c, title, head, lines, foot, focus+1, a.w, min(a.h, len(head)+len(lines)+len(foot)+3))
}

// descLines is a description as dim lines wrapped to w.
func descLines(c *common, desc string, w int) []string {
	var out []string
	if d := present.OneLine(desc, 300); d != "" {
		for _, l := range wrap(d, w) {
			out = append(out, c.st.Dim.Render(l))
		}
	}
	return out
}

func newTemplateForm(c *common, tmpl runtime.ResourceTemplate) *templateForm {
	tf := &templateForm{argsModal: argsModal{c: c}, tmpl: tmpl}
	t, err := uritemplate.New(tmpl.URITemplate)
	var fields []*argField
	if err != nil {
		tf.err = "the server's URI template is invalid: " + err.Error()
	} else {
		tf.t = t
		for _, name := range t.Varnames() {
			fields = append(fields, &argField{name: name, required: true})
		}
	}
	tf.f = newArgsForm(c, tmpl.Server, runtime.CompletionRef{Template: tmpl.URITemplate}, fields)
	return tf
}

// uri expands the template with the values typed.
func (t *templateForm) uri() (string, error) {
	vals := uritemplate.Values{}
	for k, v := range t.f.values() {
		vals.Set(k, uritemplate.String(v))
	}
	return t.t.Expand(vals)
}

func (t *templateForm) Help() []key.Binding { return t.help("read") }

// formCompleteMsg asks the root model to request completions for a form.
type formCompleteMsg struct{ f *argsForm }

func (t *templateForm) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	return t.update(t, msg, func() (modal, tea.Cmd) {
		if t.t == nil || t.f.missing() {
			return t, nil
		}
		uri, err := t.uri()
		if err != nil {
			t.err = err.Error()
			return t, nil
		}
		k := resKey{server: t.tmpl.Server, uri: uri}
		return nil, func() tea.Msg { return readIntentMsg{key: k} }
	})
}

// readIntentMsg asks the root model to read a resource into the viewer.
type readIntentMsg struct{ key resKey }

func (t *templateForm) View() string {
	st := t.c.st
	head := append([]string{st.Dim.Render(present.Truncate(present.Line(t.tmpl.URITemplate), t.w-4))},
		descLines(t.c, t.tmpl.Description, t.w-4)...)
	var foot []string
	switch {
	case t.err != "":
		foot = append(foot, st.Error.Render("✗ "+present.Line(t.err)))
	case t.t != nil:
		if uri, err := t.uri(); err == nil {
			foot = append(foot, st.Dim.Render("reads ")+present.Truncate(present.Line(uri), t.w-10))
		}
	}
	return t.view("Read "+t.tmpl.Server+" › "+present.Line(t.tmpl.Name), head, foot)
}

// promptForm asks for a prompt's arguments (required ones marked), with
// suggestions, and gets the prompt.
type promptForm struct {
	argsModal
	p runtime.Prompt
}

func newPromptForm(c *common, p runtime.Prompt, prefill map[string]string) *promptForm {
	var fields []*argField
	for _, a := range p.Arguments {
		fields = append(fields, &argField{name: a.Name, desc: a.Description, required: a.Required})
	}
	pf := &promptForm{argsModal: argsModal{c: c, f: newArgsForm(c, p.Server, runtime.CompletionRef{Prompt: p.Name}, fields)}, p: p}
	for _, fl := range pf.f.fields {
		fl.in.SetValue(prefill[fl.name])
	}
	return pf
}

func (p *promptForm) Help() []key.Binding { return p.help("get the prompt") }

// promptIntentMsg asks the root model to get a prompt.
type promptIntentMsg struct {
	p    runtime.Prompt
	args map[string]string
}

func (p *promptForm) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	return p.update(p, msg, func() (modal, tea.Cmd) {
		if p.f.missing() {
			return p, nil
		}
		intent := promptIntentMsg{p: p.p, args: p.f.values()}
		return nil, func() tea.Msg { return intent }
	})
}

func (p *promptForm) View() string {
	return p.view("Prompt "+p.p.Server+" › "+present.Line(p.p.Name),
		descLines(p.c, p.p.Description, p.w-4), []string{p.c.st.Dim.Render("fields marked * are required")})
}

// promptDoneMsg is a finished prompts/get.
type promptDoneMsg struct {
	p    runtime.Prompt
	args map[string]string
	raw  json.RawMessage
	err  error
}

func (m *Model) getPromptCmd(p runtime.Prompt, args map[string]string) tea.Cmd {
	rt, ctx := m.rt, m.ctx()
	m.setStatus(statusInfo, "getting the prompt "+p.Server+"/"+present.Line(p.Name)+"…")
	return func() tea.Msg {
		raw, err := rt.GetPrompt(ctx, p.Server, p.Name, args)
		return promptDoneMsg{p: p, args: args, raw: raw, err: err}
	}
}

// promptLines renders a prompts/get result as its message list: each
// message's role, then its content (text as text, images and audio
// summarised, resources by URI with their text).
func promptLines(c *common, raw json.RawMessage, w int) []string {
	st := c.st
	var r struct {
		Description string `json:"description"`
		Messages    []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return []string{st.Error.Render("the result is not a prompts/get result: " + present.Line(err.Error()))}
	}
	var out []string
	if r.Description != "" {
		for _, l := range wrap(present.Line(r.Description), w) {
			out = append(out, st.Dim.Render(l))
		}
		out = append(out, "")
	}
	if len(r.Messages) == 0 {
		out = append(out, st.Dim.Render("(no messages)"))
	}
	for i, msg := range r.Messages {
		h := fmt.Sprintf("── %d %s ", i+1, present.Line(msg.Role))
		out = append(out, st.Accent.Render(h)+st.Faint.Render(strings.Repeat("─", max(w-len([]rune(h)), 0))))
		var c runtime.Content
		if err := json.Unmarshal(msg.Content, &c); err != nil {
			out = append(out, st.Dim.Render(present.CompactJSON(msg.Content)))
			continue
		}
		out = append(out, blockLines(st, c, w, st.Text)...)
	}
	return out
}
