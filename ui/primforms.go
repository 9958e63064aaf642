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
	c    *common
	tmpl runtime.ResourceTemplate
	t    *uritemplate.Template
	f    *argsForm
	err  string
	w, h int
}

func newTemplateForm(c *common, tmpl runtime.ResourceTemplate) *templateForm {
	tf := &templateForm{c: c, tmpl: tmpl}
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

func (t *templateForm) SetSize(w, h int) {
	t.w, t.h = min(max(w-6, 40), 100), h
	t.f.setSize(t.w - 4)
}

func (t *templateForm) Help() []key.Binding {
	k := t.c.keys
	return append([]key.Binding{keysRelabel(k.Send, "read")}, append(t.f.help(), k.Back)...)
}

// formCompleteMsg asks the root model to request completions for a form.
type formCompleteMsg struct{ f *argsForm }

func (t *templateForm) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	k := t.c.keys
	switch {
	case key.Matches(msg, k.Back):
		return nil, nil
	case key.Matches(msg, k.Send):
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
	}
	if t.f.update(msg) {
		f := t.f
		return t, func() tea.Msg { return formCompleteMsg{f: f} }
	}
	return t, nil
}

// readIntentMsg asks the root model to read a resource into the viewer.
type readIntentMsg struct{ key resKey }

func (t *templateForm) View() string {
	st := t.c.st
	body := []string{st.Dim.Render(present.Truncate(present.Line(t.tmpl.URITemplate), t.w-4))}
	if d := present.OneLine(t.tmpl.Description, 300); d != "" {
		for _, l := range wrap(d, t.w-4) {
			body = append(body, st.Dim.Render(l))
		}
	}
	body = append(body, "")
	lines, focus := t.f.lines()
	focus += len(body)
	body = append(body, lines...)
	body = append(body, "")
	switch {
	case t.err != "":
		body = append(body, st.Error.Render("✗ "+present.Line(t.err)))
	case t.t != nil:
		if uri, err := t.uri(); err == nil {
			body = append(body, st.Dim.Render("reads ")+present.Truncate(present.Line(uri), t.w-10))
		}
	}
	title := "Read " + t.tmpl.Server + " › " + present.Line(t.tmpl.Name)
	return modalBox(t.c, title, body, focus+1, t.w, min(t.h, len(body)+3))
}

// promptForm asks for a prompt's arguments (required ones marked), with
// suggestions, and gets the prompt.
type promptForm struct {
	c    *common
	p    runtime.Prompt
	f    *argsForm
	w, h int
}

func newPromptForm(c *common, p runtime.Prompt, prefill map[string]string) *promptForm {
	var fields []*argField
	for _, a := range p.Arguments {
		fields = append(fields, &argField{name: a.Name, desc: a.Description, required: a.Required})
	}
	pf := &promptForm{c: c, p: p, f: newArgsForm(c, p.Server, runtime.CompletionRef{Prompt: p.Name}, fields)}
	for _, fl := range pf.f.fields {
		fl.in.SetValue(prefill[fl.name])
	}
	return pf
}

func (p *promptForm) SetSize(w, h int) {
	p.w, p.h = min(max(w-6, 40), 100), h
	p.f.setSize(p.w - 4)
}

func (p *promptForm) Help() []key.Binding {
	k := p.c.keys
	return append([]key.Binding{keysRelabel(k.Send, "get the prompt")}, append(p.f.help(), k.Back)...)
}

// promptIntentMsg asks the root model to get a prompt.
type promptIntentMsg struct {
	p    runtime.Prompt
	args map[string]string
}

func (p *promptForm) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	k := p.c.keys
	switch {
	case key.Matches(msg, k.Back):
		return nil, nil
	case key.Matches(msg, k.Send):
		if p.f.missing() {
			return p, nil
		}
		intent := promptIntentMsg{p: p.p, args: p.f.values()}
		return nil, func() tea.Msg { return intent }
	}
	if p.f.update(msg) {
		f := p.f
		return p, func() tea.Msg { return formCompleteMsg{f: f} }
	}
	return p, nil
}

func (p *promptForm) View() string {
	st := p.c.st
	var body []string
	if d := present.OneLine(p.p.Description, 300); d != "" {
		for _, l := range wrap(d, p.w-4) {
			body = append(body, st.Dim.Render(l))
		}
		body = append(body, "")
	}
	lines, focus := p.f.lines()
	focus += len(body)
	body = append(body, lines...)
	body = append(body, "", st.Dim.Render("fields marked * are required"))
	title := "Prompt " + p.p.Server + " › " + present.Line(p.p.Name)
	return modalBox(p.c, title, body, focus+1, p.w, min(p.h, len(body)+3))
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
