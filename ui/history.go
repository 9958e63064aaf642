package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// historyMsg is the runtime's call history, read in a command.
type historyMsg struct {
	calls   []runtime.CallRecord
	dropped uint64
}

// readHistory reads the call history off the program's goroutine.
func (m *Model) readHistory() tea.Cmd {
	rt := m.rt
	return func() tea.Msg {
		calls, dropped := rt.History()
		return historyMsg{calls: calls, dropped: dropped}
	}
}

// handleHistory applies the history's messages.
func (m *Model) handleHistory(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case historyMsg:
		m.c.history, m.c.historyDropped = msg.calls, msg.dropped
	case reopenMsg:
		m.openModal(newResultViewer(m.c, doneOf(m.toolOf(msg.rec), msg.rec)))
	case rerunMsg:
		t := m.toolOf(msg.rec)
		if msg.edit {
			m.openModal(newToolForm(m.c, t, msg.rec.Arguments))
			return nil, true
		}
		return func() tea.Msg { return callIntentMsg{tool: t, args: msg.rec.Arguments} }, true
	case addToSuiteMsg:
		ref, secret := m.suiteServer(msg.rec.Server)
		m.openModal(newSuiteStepDialog(m.c, msg.rec, ref, secret))
	case suiteStepMsg:
		m.handleSuiteStep(msg)
	default:
		return nil, false
	}
	return nil, true
}

// toolOf finds a past call's tool in the snapshot (its schema may have
// changed since; the latest is used), or makes one up from the record.
func (m *Model) toolOf(rec runtime.CallRecord) runtime.Tool {
	if srv, ok := m.c.snap.Server(rec.Server); ok {
		for _, t := range srv.Tools {
			if t.ServerTool == rec.Tool {
				return t
			}
		}
	}
	return runtime.Tool{Server: rec.Server, ServerTool: rec.Tool, Name: rec.Server + "__" + rec.Tool}
}

// doneOf is a past call as the result viewer shows it.
func doneOf(t runtime.Tool, rec runtime.CallRecord) callDoneMsg {
	d := callDoneMsg{tool: t, args: rec.Arguments, res: rec.Result}
	if rec.Err != nil {
		d.err = rec.Err
	} else if rec.Result == nil {
		d.err = &runtime.ErrorInfo{Server: rec.Server, Method: "tools/call", Message: "the call " + present.Line(rec.Status.String()) + " without a result"}
	}
	return d
}
