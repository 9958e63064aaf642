package ui

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
	"mcpdeck/ui/keys"
	"mcpdeck/ui/present"
)

// samplingModal answers a server's sampling/createMessage, as the MCP
// Inspector does: the request (system prompt, model preferences, token
// bound, tools, every message) above, the person's reply below. ctrl+s
// sends the reply as one text block; ctrl+e edits the whole
// CreateMessageResult as JSON instead (tool_use blocks, another model or
// stop reason); ctrl+x and esc decline. pgup/pgdn scroll the request.
type samplingModal struct {
	c     *common
	id    uint64
	req   runtime.SampleRequest
	reply chan<- runtime.SampleResponse
	ed    textarea.Model
	raw   bool   // the editor holds the whole result as JSON
	err   string // why the reply cannot be sent
	top   int    // the first request line shown
	lines []string
	w, h  int
}

// OperatorModel is the model a reply written in the TUI names.
const OperatorModel = "mcpdeck-operator"

// tokenBytes is the estimate of a token used to compare a reply with the
// server's maxTokens: four bytes of text, the rule of thumb for English.
const tokenBytes = 4

func newSamplingModal(c *common, msg samplingMsg) *samplingModal {
	s := &samplingModal{c: c, id: msg.id, req: msg.req, reply: msg.reply, ed: newEditor(c.st)}
	s.ed.Placeholder = "write the model's reply"
	return s
}

func (s *samplingModal) SetSize(w, h int) {
	s.w, s.h = modalSize(w, h)
	s.ed.SetWidth(max(s.w-4, 10))
	s.lines = samplingLines(s.c, s.req, max(s.w-4, 10))
	s.sizeEditor()
}

// editorMax bounds the reply editor's rows, so the request stays in view.
func (s *samplingModal) editorMax() int { return max(3, (s.h-3)/3) }

func (s *samplingModal) sizeEditor() {
	s.ed.SetHeight(min(max(editorRows(s.ed.Value(), max(s.w-4, 10))+1, 3), s.editorMax()))
}

func (s *samplingModal) Help() []key.Binding {
	k := s.c.keys
	return []key.Binding{keys.Relabel(k.Submit, "send the reply"), keys.Relabel(k.Decline, "decline"),
		keys.Relabel(k.RawJSON, "text/whole result as JSON"), keys.Relabel(k.PageDown, "scroll the request"), k.PageUp,
		keys.Relabel(k.Back, "decline")}
}

// answer closes the modal and delivers resp.
func (s *samplingModal) answer(resp runtime.SampleResponse) (modal, tea.Cmd) {
	return closeWith(s.reply, resp)
}

func (s *samplingModal) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	k := s.c.keys
	switch {
	case key.Matches(msg, k.Decline), key.Matches(msg, k.Back):
		return s.answer(runtime.SampleResponse{Declined: true, Reason: "the operator declined it in the TUI", By: "the operator (TUI)"})
	case key.Matches(msg, k.Submit):
		res, err := s.result()
		if err != nil {
			s.err = err.Error()
			return s, nil
		}
		return s.answer(runtime.SampleResponse{Result: res, By: "the operator (TUI)"})
	case key.Matches(msg, k.RawJSON):
		s.toggleRaw()
		return s, nil
	case key.Matches(msg, k.PageUp):
		s.top = max(s.top-s.requestRows()/2, 0)
		return s, nil
	case key.Matches(msg, k.PageDown):
		s.top = min(s.top+s.requestRows()/2, max(len(s.lines)-s.requestRows(), 0))
		return s, nil
	}
	if editText(&s.ed, msg) {
		s.err = ""
		s.sizeEditor()
	}
	return s, nil
}

// result is the reply as it would be sent.
func (s *samplingModal) result() (mcp.CreateMessageResult, error) {
	if !s.raw {
		return mcp.TextReply(s.ed.Value(), OperatorModel), nil
	}
	var r mcp.CreateMessageResult
	dec := json.NewDecoder(strings.NewReader(s.ed.Value()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("the reply is not a CreateMessageResult: %v", err)
	}
	if err := r.Check(); err != nil {
		return r, fmt.Errorf("the reply cannot be sent: %v", err)
	}
	return r, nil
}

// toggleRaw moves between the text reply and the whole result as JSON;
// back to text only when the result is one text block.
func (s *samplingModal) toggleRaw() {
	if !s.raw {
		b, _ := json.MarshalIndent(mcp.TextReply(s.ed.Value(), OperatorModel), "", "  ")
		setEditorText(&s.ed, string(b))
		s.raw, s.err = true, ""
		s.sizeEditor()
		return
	}
	r, err := s.result()
	if err != nil {
		s.err = err.Error() + "; fix it, or ctrl+s is refused"
		return
	}
	blocks, _ := mcp.ContentBlocks(r.Content)
	var c mcp.Content
	if len(blocks) != 1 || json.Unmarshal(blocks[0], &c) != nil || c.Type != mcp.ContentText {
		s.err = "the reply holds more than one text block: it stays JSON"
		return
	}
	setEditorText(&s.ed, c.Text)
	s.raw, s.err = false, ""
	s.sizeEditor()
}

// requestRows is how many rows the request gets: the modal less its
// frame, the reply's heading and editor, and the error line; no more than
// it needs.
func (s *samplingModal) requestRows() int {
	return min(max(s.h-3-s.ed.Height()-2, 1), max(len(s.lines), 1))
}

func (s *samplingModal) View() string {
	st := s.c.st
	inner := max(s.w-4, 10)
	rows := s.requestRows()
	top := min(s.top, max(len(s.lines)-rows, 0))
	body := make([]string, 0, s.h)
	for i := top; i < len(s.lines) && i < top+rows; i++ {
		body = append(body, s.lines[i])
	}
	if len(s.lines) > rows && top+rows < len(s.lines) {
		body[len(body)-1] = st.Faint.Render(fmt.Sprintf("… %d more lines (pgdn)", len(s.lines)-top-rows+1))
	}
	for len(body) < rows {
		body = append(body, "")
	}
	body = append(body, s.replyHeading(inner))
	body = append(body, strings.Split(s.ed.View(), "\n")...)
	if s.err != "" {
		body = append(body, st.Error.Render(padRight(present.Line(s.err), inner)))
	} else {
		body = append(body, "")
	}
	return modalBox(s.c, present.Line(s.req.Server)+" asks for a model's reply (sampling)", body, len(body)-1, s.w, min(s.h, len(body)+3))
}

// replyHeading names what the editor holds and how it compares with the
// server's token bound.
func (s *samplingModal) replyHeading(inner int) string {
	st := s.c.st
	what := "your reply (text, model " + OperatorModel + ")"
	if s.raw {
		what = "your reply (the whole CreateMessageResult, JSON)"
	}
	tokens := (len(s.ed.Value()) + tokenBytes - 1) / tokenBytes
	size := fmt.Sprintf(" · ≈%d of %d tokens", tokens, s.req.Params.MaxTokens)
	style := st.Label
	if s.req.Params.MaxTokens > 0 && tokens > s.req.Params.MaxTokens {
		size += " (over maxTokens)"
		style = st.Warning
	}
	return style.Render(padRight("── "+what+size+" ", inner))
}

// samplingLines words a sampling request for a person, every server
// string sanitised, wrapped at width.
func samplingLines(c *common, req runtime.SampleRequest, width int) []string {
	st := c.st
	p := req.Params
	var out []string
	field := func(label, value string) {
		for i, l := range wrap(present.Line(value), max(width-len(label)-2, 10)) {
			if i == 0 {
				out = append(out, st.Label.Render(label+": ")+st.Text.Render(l))
				continue
			}
			out = append(out, strings.Repeat(" ", len(label)+2)+st.Text.Render(l))
		}
	}
	if p.SystemPrompt != "" {
		field("system prompt", p.SystemPrompt)
	}
	if prefs := modelPreferences(p.ModelPreferences); prefs != "" {
		field("model", prefs)
	}
	limits := "max tokens " + strconv.Itoa(p.MaxTokens)
	if p.Temperature != nil {
		limits += " · temperature " + strconv.FormatFloat(*p.Temperature, 'g', -1, 64)
	}
	if len(p.StopSequences) > 0 {
		q := make([]string, len(p.StopSequences))
		for i, s := range p.StopSequences {
			q[i] = strconv.Quote(s)
		}
		limits += " · stop at " + strings.Join(q, ", ")
	}
	if p.IncludeContext != "" && p.IncludeContext != "none" {
		limits += " · context " + p.IncludeContext + " (mcpdeck includes none)"
	}
	field("asks", limits)
	if tools := samplingTools(p.Tools, p.ToolChoice); tools != "" {
		field("tools", tools)
	}
	msgs, err := p.DecodeMessages()
	if err != nil {
		out = append(out, st.Error.Render(present.Line(err.Error())))
	}
	for _, m := range msgs {
		out = append(out, "")
		out = append(out, st.Accent.Render(present.Line(m.Role)+":"))
		for _, b := range m.Content {
			for _, l := range strings.Split(blockText(b), "\n") {
				for _, w := range wrap(present.Line(l), width-2) {
					out = append(out, "  "+st.Text.Render(w))
				}
			}
		}
	}
	return out
}

// modelPreferences words modelPreferences: the hints in order, then the
// priorities set.
func modelPreferences(raw json.RawMessage) string {
	var p struct {
		Hints []struct {
			Name string `json:"name"`
		} `json:"hints"`
		Cost         *float64 `json:"costPriority"`
		Speed        *float64 `json:"speedPriority"`
		Intelligence *float64 `json:"intelligencePriority"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &p) != nil {
		return ""
	}
	var parts []string
	if len(p.Hints) > 0 {
		names := make([]string, 0, len(p.Hints))
		for _, h := range p.Hints {
			names = append(names, h.Name)
		}
		parts = append(parts, "hints "+strings.Join(names, ", "))
	}
	for _, pr := range []struct {
		name string
		v    *float64
	}{{"cost", p.Cost}, {"speed", p.Speed}, {"intelligence", p.Intelligence}} {
		if pr.v != nil {
			parts = append(parts, pr.name+" "+strconv.FormatFloat(*pr.v, 'g', 3, 64))
		}
	}
	return strings.Join(parts, " · ")
}

// samplingTools words the tools a request offers the model, and its
// toolChoice.
func samplingTools(raw, choice json.RawMessage) string {
	var tools []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &tools) != nil || len(tools) == 0 {
		return ""
	}
	parts := make([]string, 0, len(tools))
	for _, t := range tools {
		s := t.Name
		if t.Description != "" {
			s += " (" + present.OneLine(t.Description, 60) + ")"
		}
		parts = append(parts, s)
	}
	out := strings.Join(parts, ", ")
	var c struct {
		Mode string `json:"mode"`
	}
	if json.Unmarshal(choice, &c) == nil && c.Mode != "" {
		out += "; toolChoice " + c.Mode
	}
	return out
}

// blockText is one content block of a sampling message as text: text as
// itself, media and tool blocks as one bracketed line.
func blockText(raw json.RawMessage) string {
	var b struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Data      string          `json:"data"`
		MIMEType  string          `json:"mimeType"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		ToolUseID string          `json:"toolUseId"`
		Content   json.RawMessage `json:"content"`
		IsError   bool            `json:"isError"`
	}
	_ = json.Unmarshal(raw, &b)
	switch b.Type {
	case mcp.ContentText:
		return b.Text
	case mcp.ContentImage, mcp.ContentAudio:
		size := len(b.Data)
		if d, err := base64.StdEncoding.DecodeString(b.Data); err == nil {
			size = len(d)
		}
		return fmt.Sprintf("[%s %s, %s]", b.Type, b.MIMEType, present.Size(size))
	case "tool_use":
		return fmt.Sprintf("[tool_use %s (%s) %s]", b.Name, b.ID, present.CompactJSON(b.Input))
	case "tool_result":
		var inner []json.RawMessage
		_ = json.Unmarshal(b.Content, &inner)
		texts := make([]string, 0, len(inner))
		for _, c := range inner {
			texts = append(texts, blockText(c))
		}
		state := ""
		if b.IsError {
			state = ", an error"
		}
		return fmt.Sprintf("[tool_result for %s%s] %s", b.ToolUseID, state, strings.Join(texts, " "))
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, raw)
	return "[" + b.Type + " block] " + compact.String()
}

// samplingMsg is a server's sampling request waiting for an answer on
// reply.
type samplingMsg struct {
	id    uint64
	req   runtime.SampleRequest
	reply chan<- runtime.SampleResponse
}

// samplingGoneMsg: the server cancelled sampling request id, or its
// connection closed; the dialog must close unanswered.
type samplingGoneMsg struct{ id uint64 }

// dropSampling closes or unqueues a sampling request the server withdrew.
func (m *Model) dropSampling(id uint64) {
	if s, ok := m.withdraw(func(md modal) bool { s, ok := md.(*samplingModal); return ok && s.id == id }).(*samplingModal); ok {
		m.setStatus(statusWarn, s.req.Server+" withdrew its sampling request")
	}
}

// sampler hands a server's sampling request to the program and waits for
// the person's answer, the server's cancellation or the UI's exit.
type sampler struct {
	send func(tea.Msg)
	seq  atomic.Uint64
	done <-chan struct{} // closed by detach: nobody will answer any more
}

// Sample implements runtime.Sampler.
func (s *sampler) Sample(ctx context.Context, req runtime.SampleRequest) (runtime.SampleResponse, error) {
	id := s.seq.Add(1)
	return askPerson(ctx, s.send, s.done, func(reply chan<- runtime.SampleResponse) tea.Msg { return samplingMsg{id: id, req: req, reply: reply} },
		samplingGoneMsg{id: id}, runtime.SampleResponse{Declined: true, Reason: "the TUI closed before anyone answered", By: "the TUI"})
}
