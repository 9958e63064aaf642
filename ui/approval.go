package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"mcpdeck/runtime/gateway"
	"mcpdeck/ui/keys"
	"mcpdeck/ui/present"
)

// approvalModal asks the operator about a gateway client's call that a
// rule marks for approval: who asks, the tool and its server, the rule,
// the time left, and the arguments (sanitised, scrollable). y approves, n
// or esc denies. A call that stops waiting meanwhile (timed out, the client
// gave up, decided on the control socket) closes it.
type approvalModal struct {
	c      *common
	a      gateway.Approval
	pretty []string // the arguments, indented and sanitised
	args   []string // pretty, wrapped to the dialog's width
	top    int      // the first argument line shown
	w, h   int
}

// approvalBy is who decides in the TUI, for the gateway's log and the
// recording.
const approvalBy = "the operator (TUI)"

func newApprovalModal(c *common, a gateway.Approval) *approvalModal {
	return &approvalModal{c: c, a: a, pretty: approvalArguments(a.Arguments)}
}

// approvalArguments are a call's arguments as a person reads them: indented
// JSON, every string through the sanitiser.
func approvalArguments(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return []string{"{}"}
	}
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return strings.Split(present.Block(string(raw)), "\n")
	}
	return strings.Split(present.Block(string(present.EscapeJSON(b.Bytes()))), "\n")
}

func (d *approvalModal) SetSize(w, h int) {
	d.w, d.h = modalSize(w, h)
	d.w = min(d.w, 100)
	// Long values wrap, their continuation indented: every byte of what
	// the tool would get can be read, scrolling down.
	width := max(d.w-4-2, 10)
	d.args = d.args[:0]
	for _, l := range d.pretty {
		indent := min(len(l)-len(strings.TrimLeft(l, " "))+2, width/2)
		d.args = append(d.args, hardWrap(l, width, indent)...)
	}
	d.h = min(d.h, len(d.header())+len(d.args)+3)
}

func (d *approvalModal) Help() []key.Binding {
	k := d.c.keys
	return []key.Binding{keys.Relabel(k.Yes, "approve the call"), keys.Relabel(k.No, "deny it"), keys.Relabel(k.Down, "scroll the arguments"), k.Up, k.PageDown, k.PageUp}
}

// argRows is how many argument lines fit: the modal's body (its height
// less the frame and the title) less the header.
func (d *approvalModal) argRows() int { return max(d.h-3-len(d.header()), 1) }

func (d *approvalModal) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	k := d.c.keys
	scroll := func(n int) {
		d.top = min(max(d.top+n, 0), max(len(d.args)-d.argRows(), 0))
	}
	switch {
	case key.Matches(msg, k.Yes):
		return nil, d.decide(true)
	case key.Matches(msg, k.No):
		return nil, d.decide(false)
	case key.Matches(msg, k.Down):
		scroll(1)
	case key.Matches(msg, k.Up):
		scroll(-1)
	case key.Matches(msg, k.PageDown):
		scroll(d.argRows())
	case key.Matches(msg, k.PageUp):
		scroll(-d.argRows())
	}
	return d, nil
}

// decide answers the gateway off the program's goroutine.
func (d *approvalModal) decide(approve bool) tea.Cmd {
	g, a := d.c.gw.g, d.a
	return func() tea.Msg {
		reason := ""
		if !approve {
			reason = "denied in the TUI"
		}
		return approvalDecidedMsg{a: a, approve: approve, err: g.Decide(a.ID, approve, approvalBy, reason)}
	}
}

// hardWrap cuts s into rows of at most width cells, wherever the width
// runs out (a JSON string has no spaces to break at); rows after the first
// are indented by indent.
func hardWrap(s string, width, indent int) []string {
	var out []string
	var row strings.Builder
	cells, limit := 0, width
	for _, r := range s {
		w := ansi.StringWidth(string(r))
		if cells+w > limit {
			out = append(out, row.String())
			row.Reset()
			row.WriteString(strings.Repeat(" ", indent))
			cells, limit = 0, width-indent
		}
		row.WriteRune(r)
		cells += w
	}
	return append(out, row.String())
}

// header is the part above the arguments: who, what, why, how long.
func (d *approvalModal) header() []string {
	st := d.c.st
	a := d.a
	left := a.Deadline.Sub(d.c.now())
	wait := present.Age(left) + " left, then it is refused"
	if left <= 0 {
		wait = "its time is up"
	}
	ci := a.Client
	who := a.Who()
	if ci.Protocol != "" {
		who += " · " + ci.Protocol
	}
	var out []string
	row := func(label, value string) {
		width := max(d.w-4-len(label)-2, 10)
		for i, l := range wrap(present.Line(value), width) {
			if i == 0 {
				out = append(out, st.Label.Render(label+": ")+st.Text.Render(l))
				continue
			}
			out = append(out, strings.Repeat(" ", len(label)+2)+st.Text.Render(l))
		}
	}
	row("client", who)
	row("tool", a.Tool+" on server "+a.Server)
	row("rule", a.Rule)
	row("waits", wait)
	return append(out, st.Label.Render("arguments:"))
}

func (d *approvalModal) View() string {
	st := d.c.st
	body := append([]string(nil), d.header()...)
	rows := d.argRows()
	top := min(d.top, max(len(d.args)-rows, 0))
	for i := top; i < len(d.args) && i < top+rows; i++ {
		body = append(body, "  "+st.Text.Render(d.args[i]))
	}
	if top+rows < len(d.args) {
		body[len(body)-1] = st.Faint.Render("  … " + present.Count(len(d.args)-top-rows+1, "more line", "more lines") + " (↓)")
	}
	title := present.Line(clientName(d.a.Client)) + " asks to call " + present.Line(d.a.Tool)
	return modalBox(d.c, title, body, len(body)-1, d.w, d.h)
}

// approvalDecidedMsg reports the operator's decision and whether the
// gateway took it.
type approvalDecidedMsg struct {
	a       gateway.Approval
	approve bool
	err     error
}

// approvalDecided says what became of the decision.
func (m *Model) approvalDecided(msg approvalDecidedMsg) {
	what := clientName(msg.a.Client) + "'s call of " + msg.a.Tool
	switch {
	case errors.Is(msg.err, gateway.ErrNoSuchApproval):
		m.setStatus(statusWarn, what+" no longer waited (timed out, withdrawn or decided elsewhere)")
	case msg.err != nil:
		m.setStatus(statusError, "deciding "+what+": "+errText(msg.err))
	case msg.approve:
		m.setStatus(statusInfo, "approved "+what)
	default:
		m.setStatus(statusInfo, "denied "+what)
	}
}

// syncApprovals opens a dialog for each call that started waiting, and
// closes (or unqueues) the dialog of each call that stopped.
func (m *Model) syncApprovals(pending []gateway.Approval) {
	gw := m.c.gw
	if gw.asked == nil {
		gw.asked = map[string]bool{}
	}
	waiting := map[string]bool{}
	for _, a := range pending {
		waiting[a.ID] = true
		if !gw.asked[a.ID] {
			gw.asked[a.ID] = true
			m.openModal(newApprovalModal(m.c, a))
		}
	}
	for id := range gw.asked {
		if waiting[id] {
			continue
		}
		delete(gw.asked, id)
		if d, ok := m.withdraw(func(md modal) bool { d, ok := md.(*approvalModal); return ok && d.a.ID == id }).(*approvalModal); ok {
			m.setStatus(statusWarn, clientName(d.a.Client)+"'s call of "+d.a.Tool+" stopped waiting (timed out, withdrawn or decided elsewhere)")
		}
	}
}
