package ui

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// ToolDecisions is what the Tools tab needs of the runtime to switch tools
// and accept changed definitions (*runtime.Controller). A Runtime without
// it (a replay) shows the decisions as recorded and leaves the keys
// unavailable.
type ToolDecisions interface {
	// SetToolsEnabled switches tools of a server off or on again.
	SetToolsEnabled(ctx context.Context, server string, tools []string, on bool) error
	// AcceptTools approves the changed definitions of tools of a server.
	AcceptTools(ctx context.Context, server string, tools []string) ([]string, error)
}

// The real controller is what ToolDecisions is written for.
var _ ToolDecisions = (*runtime.Controller)(nil)

// toolSwitchMsg asks for a tool to be switched on or off; toolAcceptMsg
// for its changed definition to be accepted.
type (
	toolSwitchMsg struct {
		tool runtime.Tool
		on   bool
	}
	toolAcceptMsg  struct{ tool runtime.Tool }
	toolDecidedMsg struct {
		op, done string // the busy key; what happened, for the status
		err      error
	}
)

// handleToolDecision runs the Tools tab's decisions and reports them.
func (m *Model) handleToolDecision(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case toolSwitchMsg:
		return m.switchTool(msg.tool, msg.on), true
	case toolAcceptMsg:
		return m.acceptTool(msg.tool), true
	case toolDecidedMsg:
		delete(m.busy, msg.op)
		if msg.err != nil {
			m.setStatus(statusError, msg.done+" failed: "+errText(msg.err))
		} else {
			m.setStatus(statusInfo, msg.done)
		}
		return nil, true
	}
	return nil, false
}

// decisions is the runtime's ToolDecisions, or nil with the status saying
// why the key does nothing here.
func (m *Model) decisions() ToolDecisions {
	if d, ok := m.rt.(ToolDecisions); ok && m.opts.Replay == nil {
		return d
	}
	m.setStatus(statusWarn, "tools cannot be switched or accepted in a replay")
	return nil
}

func (m *Model) switchTool(t runtime.Tool, on bool) tea.Cmd {
	d := m.decisions()
	if d == nil {
		return nil
	}
	ctx, op := m.ctx(), "tool "+t.Name
	done := fmt.Sprintf("%s switched %s", present.Line(t.ServerTool), onOff(on))
	if !on {
		done += ": calls to it are refused, and the gateway does not offer it"
	}
	return m.once(op, func() tea.Msg {
		return toolDecidedMsg{op: op, done: done, err: d.SetToolsEnabled(ctx, t.Server, []string{t.ServerTool}, on)}
	})
}

func (m *Model) acceptTool(t runtime.Tool) tea.Cmd {
	if t.Changed == nil {
		m.setStatus(statusInfo, present.Line(t.ServerTool)+" is as approved: nothing to accept")
		return nil
	}
	if len(t.Changed.InstructionLike) > 0 && m.acceptArmed != t.Name {
		// Text that reads as orders to the model is the shape of tool
		// poisoning: one key press must not approve it unseen.
		m.acceptArmed = t.Name
		m.setStatus(statusWarn, present.Line(t.ServerTool)+"'s new text reads as instructions to the model ("+
			present.Line(strings.Join(t.Changed.InstructionLike, "; "))+"): read the diff (d), then press a again to accept it")
		return nil
	}
	m.acceptArmed = ""
	d := m.decisions()
	if d == nil {
		return nil
	}
	ctx, op := m.ctx(), "tool "+t.Name
	done := present.Line(t.ServerTool) + "'s definition accepted: the gateway offers it again"
	return m.once(op, func() tea.Msg {
		_, err := d.AcceptTools(ctx, t.Server, []string{t.ServerTool})
		return toolDecidedMsg{op: op, done: done, err: err}
	})
}
