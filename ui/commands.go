package ui

import (
	"context"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// Commands: each captures what it needs by value and returns a message;
// none touches the model (they run on their own goroutines). Repeats of an
// operation already in flight collapse into the first.

func (m *Model) once(op string, cmd tea.Cmd) tea.Cmd {
	if m.busy[op] {
		return nil
	}
	m.busy[op] = true
	return cmd
}

func (m *Model) setEnabled(on bool) tea.Cmd {
	rt, ctx := m.rt, m.ctx()
	if on {
		m.setStatus(statusInfo, "switching MCP on…")
	} else {
		m.setStatus(statusInfo, "switching MCP off: stopping servers…")
	}
	return m.once("mcp", func() tea.Msg { return enabledMsg{on: on, err: rt.SetEnabled(ctx, on)} })
}

func (m *Model) setServerEnabled(name string, on bool) tea.Cmd {
	rt, ctx := m.rt, m.ctx()
	return m.once("server "+name, func() tea.Msg {
		return serverToggledMsg{name: name, on: on, err: rt.SetServerEnabled(ctx, name, on)}
	})
}

func (m *Model) reconnectServer(name string) tea.Cmd {
	rt, ctx := m.rt, m.ctx()
	m.setStatus(statusInfo, "reconnecting "+name+"…")
	return m.once("reconnect "+name, func() tea.Msg { return reconnectedMsg{name: name, err: rt.Reconnect(ctx, name)} })
}

func (m *Model) shutdown() tea.Cmd {
	rt, timeout := m.rt, m.opts.ShutdownTimeout
	var gw Gateway
	if m.c.gw != nil {
		gw = m.c.gw.g
	}
	base := context.WithoutCancel(m.ctx())
	return m.once("shutdown", func() tea.Msg {
		ctx, cancel := context.WithTimeout(base, timeout)
		defer cancel()
		if gw != nil {
			// The gateway's clients first: they are told it ended, and
			// their requests are cancelled before the servers stop.
			_ = gw.Close(ctx)
		}
		return shutdownDoneMsg{err: rt.Shutdown(ctx)}
	})
}

func (m *Model) callTool(tool runtime.Tool, args []byte, noValidate bool) tea.Cmd {
	rt, ctx := m.rt, m.ctx()
	req := runtime.CallRequest{Server: tool.Server, Tool: tool.ServerTool, Arguments: args, NoValidate: noValidate}
	return func() tea.Msg {
		res, err := rt.Call(ctx, req)
		return callDoneMsg{tool: tool, args: args, res: res, err: err}
	}
}

func (m *Model) cancelRequest(server string, id uint64) tea.Cmd {
	rt := m.rt
	return func() tea.Msg {
		return cancelledMsg{server: server, id: id, ok: rt.Cancel(server, id, "cancelled by the user in mcpdeck")}
	}
}

func (m *Model) trust(f config.File, reload bool) tea.Cmd {
	trust := m.opts.Trust
	return func() tea.Msg {
		if trust == nil {
			return trustedMsg{file: f, reload: reload}
		}
		return trustedMsg{file: f, err: trust(f), reload: reload}
	}
}

// handleResult applies what a command or a modal reported.
func (m *Model) handleResult(msg tea.Msg) tea.Cmd {
	// Each area's handler, in turn, until one takes the message.
	for _, handle := range []func(tea.Msg) (tea.Cmd, bool){
		m.handleCheck, m.handleRecord, m.handlePrimitive, m.handleLogin,
		m.handleHistory, m.handleGateway, m.handleManage, m.handleToolDecision,
	} {
		if cmd, ok := handle(msg); ok {
			return cmd
		}
	}
	switch msg := msg.(type) {
	case enabledMsg:
		delete(m.busy, "mcp")
		switch {
		case msg.err != nil:
			m.setStatus(statusError, fmt.Sprintf("switching MCP %s failed: %s", onOff(msg.on), errText(msg.err)))
		case msg.on:
			m.setStatus(statusInfo, "MCP is on")
		default:
			m.setStatus(statusInfo, "MCP is off: every server stopped")
		}
	case serverToggledMsg:
		delete(m.busy, "server "+msg.name)
		if msg.err != nil {
			m.setStatus(statusError, errAbout(fmt.Sprintf("switching %s %s failed", msg.name, onOff(msg.on)), msg.name, msg.err))
		} else {
			m.setStatus(statusInfo, fmt.Sprintf("%s switched %s", msg.name, onOff(msg.on)))
		}
	case reconnectedMsg:
		delete(m.busy, "reconnect "+msg.name)
		if msg.err != nil {
			m.setStatus(statusError, errAbout("reconnecting "+msg.name+" failed", msg.name, msg.err))
		} else {
			m.setStatus(statusInfo, msg.name+" reconnected")
		}
	case reloadedMsg:
		return m.reloaded(msg)
	case shutdownDoneMsg:
		delete(m.busy, "shutdown")
		return tea.Quit
	case callIntentMsg:
		m.lastArgs[msg.tool.Name] = msg.args
		m.active = tabRequests
		m.focus = focusDetail
		m.setStatus(statusInfo, "calling "+msg.tool.Server+"/"+msg.tool.ServerTool+"…")
		return m.callTool(msg.tool, msg.args, msg.noValidate)
	case callDoneMsg:
		if msg.err != nil {
			m.setStatus(statusError, errAbout(msg.tool.Server+"/"+msg.tool.ServerTool+" failed", msg.tool.Server, msg.err))
		} else {
			m.setStatus(statusInfo, fmt.Sprintf("%s/%s returned", msg.tool.Server, msg.tool.ServerTool))
		}
		m.openModal(newResultViewer(m.c, msg))
		return m.readHistory()
	case cancelledMsg:
		if msg.ok {
			m.setStatus(statusInfo, fmt.Sprintf("request %d cancelled: %s was sent notifications/cancelled", msg.id, msg.server))
		} else {
			m.setStatus(statusWarn, fmt.Sprintf("request %d had already finished", msg.id))
		}
	case confirmedMsg:
		if msg.action == confirmDisable {
			return m.setEnabled(false)
		}
	case trustIntentMsg:
		if msg.reload {
			return m.reloadTrustAnswered(msg)
		}
		if !msg.approve {
			m.trustDeclined, m.enableAfter = true, false
			m.setStatus(statusWarn, "MCP stays off: "+msg.file.Path+" is not approved; press m to review it again")
			return nil
		}
		return m.trust(msg.file, false)
	case configuredMsg:
		return m.configured(msg)
	case trustedMsg:
		if msg.reload {
			return m.reloadTrusted(msg)
		}
		return m.trusted(msg)
	case openFormMsg:
		if msg.tool.Disabled {
			m.setStatus(statusWarn, present.Line(msg.tool.ServerTool)+" is switched off: space switches it on before it can be called")
			return nil
		}
		m.openModal(newToolForm(m.c, msg.tool, m.lastArgs[msg.tool.Name]))
	case cancelIntentMsg:
		m.setStatus(statusInfo, fmt.Sprintf("cancelling request %d…", msg.id))
		return m.cancelRequest(msg.server, msg.id)
	case elicitMsg:
		m.openModal(newElicitModal(m.c, msg))
	case elicitGoneMsg:
		m.dropElicitation(msg.id)
	case samplingMsg:
		m.openModal(newSamplingModal(m.c, msg))
	case samplingGoneMsg:
		m.dropSampling(msg.id)
	case openNoteMsg:
		m.openNote(msg.n)
	}
	return nil
}

// trusted records an approval and asks about the next file, or switches
// MCP on when that was what the person asked for.
func (m *Model) trusted(msg trustedMsg) tea.Cmd {
	if msg.err != nil {
		m.enableAfter = false
		m.setStatus(statusError, "saving the approval of "+msg.file.Path+" failed: "+errText(msg.err)+"; MCP stays off")
		return nil
	}
	m.approvedFile(msg.file.Path)
	if len(m.untrusted) > 0 {
		m.openModal(m.newTrustDialog(m.untrusted[0]))
		return nil
	}
	m.setStatus(statusInfo, "approved "+msg.file.Path+"; reading it again in full…")
	return m.configureApproved()
}

// configuredMsg: the configuration was read again after an approval and
// handed to the runtime (or why not).
type configuredMsg struct {
	cfg *config.Config
	err error
}

// configureApproved reads the configuration again now that its project
// files are approved (an unapproved file was read only for the prompt:
// its envFile unread, its servers marked Unapproved, which the runtime
// never starts) and hands it to the runtime before anything is enabled.
func (m *Model) configureApproved() tea.Cmd {
	read, rt, ctx := m.opts.Reload, m.rt, m.ctx()
	return m.once("configure", func() tea.Msg {
		if read == nil {
			return configuredMsg{}
		}
		cfg, err := read()
		if err != nil {
			return configuredMsg{err: fmt.Errorf("reading the approved configuration: %w", err)}
		}
		if _, err := rt.Configure(ctx, cfg); err != nil {
			return configuredMsg{err: fmt.Errorf("applying the approved configuration: %w", err)}
		}
		return configuredMsg{cfg: cfg}
	})
}

// configured switches MCP on after an approval when that was asked for.
func (m *Model) configured(msg configuredMsg) tea.Cmd {
	delete(m.busy, "configure")
	if msg.cfg != nil {
		m.setApplied(msg.cfg)
	}
	if msg.err != nil {
		m.enableAfter = false
		m.setStatus(statusError, errText(msg.err)+"; MCP stays off: fix it and press m")
		return nil
	}
	if m.enableAfter {
		m.enableAfter = false
		return m.setEnabled(true)
	}
	m.setStatus(statusInfo, "approved; press m to switch MCP on")
	return nil
}

// dropElicitation closes or unqueues an elicitation the server withdrew.
func (m *Model) dropElicitation(id uint64) {
	if e, ok := m.withdraw(func(md modal) bool { e, ok := md.(*elicitModal); return ok && e.id == id }).(*elicitModal); ok {
		m.setStatus(statusWarn, e.req.Server+" withdrew its question")
	}
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
