package ui

import (
	"encoding/json"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
	"mcpdeck/ui/keys"
	"mcpdeck/ui/present"
)

// elicitModal answers a server's elicitation/create: a form built from the
// requested schema (form mode) or the URL to visit (url mode), with
// accept, decline and cancel.
type elicitModal struct {
	c     *common
	id    uint64
	req   runtime.ElicitRequest
	reply chan<- runtime.ElicitResponse
	f     *form // nil in url mode
	w, h  int
}

func newElicitModal(c *common, msg elicitMsg) *elicitModal {
	e := &elicitModal{c: c, id: msg.id, req: msg.req, reply: msg.reply}
	if msg.req.Mode != "url" {
		e.f = newElicitForm(c, msg.req.RequestedSchema)
	}
	return e
}

func (e *elicitModal) SetSize(w, h int) {
	e.w, e.h = modalSize(w, h)
	if e.f != nil {
		// Border and title, the message and a blank line above the form.
		e.f.setSize(e.w-4, e.h-3-len(wrap(present.Line(e.req.Message), e.w-4))-1)
	}
}

func (e *elicitModal) Help() []key.Binding {
	k := e.c.keys
	decline, cancel := k.Decline, keys.Relabel(k.Back, "cancel")
	if e.f != nil && e.f.raw {
		// In the editor enter is a new line: ctrl+s accepts.
		return []key.Binding{keys.Relabel(k.Submit, "accept"), decline, cancel, k.RawJSON}
	}
	b := []key.Binding{keys.Relabel(k.Send, "accept"), decline, cancel}
	if e.f != nil {
		b = append(b, k.NextField, k.Toggle, k.PrevField, k.PrevChoice)
	}
	return b
}

// answer closes the modal and delivers the response.
func (e *elicitModal) answer(resp runtime.ElicitResponse) (modal, tea.Cmd) {
	return closeWith(e.reply, resp)
}

func (e *elicitModal) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	k := e.c.keys
	switch {
	case key.Matches(msg, k.Back):
		return e.answer(runtime.ElicitResponse{Action: "cancel"})
	case key.Matches(msg, k.Decline):
		return e.answer(runtime.ElicitResponse{Action: "decline"})
	case key.Matches(msg, k.Submit), (e.f == nil || !e.f.raw) && key.Matches(msg, k.Send):
		if e.f == nil {
			return e.answer(runtime.ElicitResponse{Action: "accept"})
		}
		if !e.f.validate() {
			return e, nil
		}
		args, _ := e.f.args()
		var content map[string]any
		_ = json.Unmarshal(args, &content)
		return e.answer(runtime.ElicitResponse{Action: "accept", Content: content})
	}
	if e.f != nil {
		e.f.update(msg)
	}
	return e, nil
}

func (e *elicitModal) View() string {
	st := e.c.st
	inner := e.w - 4
	var body []string
	for _, l := range wrap(present.Line(e.req.Message), inner) {
		body = append(body, st.Text.Render(l))
	}
	body = append(body, "")
	if e.f == nil {
		body = append(body, st.Label.Render("open this address to continue:"), st.Accent.Render(e.req.URL), "",
			st.Dim.Render("enter once done (accept), ctrl+x to decline, esc to cancel"))
		return modalBox(e.c, e.req.Server+" asks", body, 1, e.w, min(e.h, len(body)+3))
	}
	// The server's message stays in view while the fields scroll.
	lines, focus := e.f.lines()
	return modalPinned(e.c, e.req.Server+" asks", body, lines, nil, focus+1, e.w, min(e.h, len(body)+len(lines)+3))
}
