package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// handleKey routes a key: quitting first, then the open modal, then the
// filter being typed, then session keys, then the focused pane.
func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := m.c.keys
	if msg.Paste && m.modal == nil && !m.filtering {
		return nil // pasted text is never a command: "mq" must not quit
	}
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
		// Keys typed faster than the input is read arrive as one message;
		// handle them one by one so "jjj" moves three rows. Pasted text
		// stays whole: the text widgets insert it at once, and as a paste
		// it matches no key binding, so a pasted "y" answers no dialog.
		var cmds []tea.Cmd
		for _, r := range msg.Runes {
			cmds = append(cmds, m.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
		}
		return tea.Batch(cmds...)
	}
	if !key.Matches(msg, k.AcceptTool) {
		m.acceptArmed = "" // a changed tool that reads as instructions is accepted by two a's in a row
	}
	if key.Matches(msg, k.ForceQuit) {
		if m.quitting {
			m.forced = true
			return tea.Quit
		}
		return m.quit()
	}
	if m.quitting {
		return nil
	}
	if d, ok := m.modal.(*dialog); ok && d.approvesStart && key.Matches(msg, k.ToggleMCP) {
		// m on the approval that shows at start asks for MCP: y then
		// switches it on, as when m opened the approval.
		m.trustDeclined, m.enableAfter = false, true
		m.setStatus(statusInfo, "MCP switches on once you approve (y)")
		return nil
	}
	if d, ok := m.modal.(*dialog); ok && d.givesWay(msg) {
		// An informational notice ("Configuration reloaded", "Saved") does
		// not swallow typing: the key closes it and does what it does
		// without it, as a toast does in other TUIs; the operator who
		// types j for the list moves the list. A modal waiting behind the
		// notice takes the key from nobody: it only shows, since a y typed
		// for the list must not answer a question.
		m.closeModal()
		if m.modal != nil {
			return nil
		}
	}
	if m.modal != nil {
		next, cmd := m.modal.Update(msg)
		if next == nil {
			m.closeModal()
		} else {
			m.modal = next
		}
		return cmd
	}
	if m.filtering {
		return m.handleFilterKey(msg)
	}
	if cmd, ok := m.replayKey(msg); ok {
		return cmd
	}
	if cmd, ok := m.recordingKey(msg); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.openModal(newHelpOverlay(m.c))
	case key.Matches(msg, k.ToggleMCP):
		return m.toggleMCP()
	case key.Matches(msg, k.ToggleServer) && !(m.focus == focusDetail && m.active == tabTools):
		// On the Tools tab's list space switches the selected tool instead.
		return m.toggleServer()
	case key.Matches(msg, k.Reload):
		return m.reload()
	case key.Matches(msg, k.Reconnect):
		return m.reconnect()
	case key.Matches(msg, k.Check):
		return m.startCheck()
	case key.Matches(msg, k.LogLevel):
		return m.chooseLogLevel()
	case key.Matches(msg, k.Roots):
		return m.editRoots()
	case key.Matches(msg, k.Login):
		return m.login()
	case key.Matches(msg, k.Logout):
		return m.logout()
	case key.Matches(msg, k.FocusNext), key.Matches(msg, k.FocusPrev):
		if m.focus == focusServers {
			m.focus = focusDetail
		} else {
			m.focus = focusServers
		}
	case key.Matches(msg, k.NextTab):
		m.active = cycle(m.active, 1, len(m.tabs))
	case key.Matches(msg, k.PrevTab):
		m.active = cycle(m.active, -1, len(m.tabs))
	case key.Matches(msg, k.JumpTab):
		// 1-9 are the first nine tabs, 0 the tenth (Clients, when serving).
		i := int(msg.Runes[0] - '1')
		if msg.Runes[0] == '0' {
			i = 9
		}
		if i < len(m.tabs) {
			m.active = i
		}
	case key.Matches(msg, k.ClearFilter) && m.focus == focusDetail && m.filterApplied():
		// esc on a filtered list shows it whole again: a filter must not
		// stay behind unnoticed.
		in := m.activeTab().Filter()
		in.SetValue("")
		m.activeTab().FilterChanged()
		m.setStatus(statusInfo, "filter cleared")
	case key.Matches(msg, k.Filter):
		if m.activeTab().Filter() == nil {
			m.setStatus(statusWarn, "the "+m.activeTab().Title()+" tab has no filter: / filters Tools, Notifications, Logs, Traffic, Resources and Prompts")
			return nil
		}
		m.filtering = true
		m.focus = focusDetail
		m.activeTab().Filter().Focus()
	case m.focus == focusServers:
		return m.handleServersKey(msg)
	default:
		return m.activeTab().Update(msg)
	}
	return nil
}

// filterApplied reports whether the active tab's list is filtered.
func (m *Model) filterApplied() bool {
	in := m.activeTab().Filter()
	return in != nil && in.Value() != ""
}

func (m *Model) handleServersKey(msg tea.KeyMsg) tea.Cmd {
	k := m.c.keys
	switch {
	case key.Matches(msg, k.AddServer):
		return m.addServer()
	case key.Matches(msg, k.EditServer):
		return m.editServer()
	case key.Matches(msg, k.RemoveServer):
		return m.removeServer()
	case key.Matches(msg, k.Registry):
		return m.browseRegistry()
	case key.Matches(msg, k.Up):
		m.selectServer(m.servers.sel - 1)
	case key.Matches(msg, k.Down):
		m.selectServer(m.servers.sel + 1)
	case key.Matches(msg, k.Top):
		m.selectServer(0)
	case key.Matches(msg, k.Bottom):
		m.selectServer(m.serverCount() - 1)
	case key.Matches(msg, k.Select):
		m.focus = focusDetail
	}
	return nil
}

// handleFilterKey edits the active tab's filter: enter keeps it, esc
// clears it, anything else types.
func (m *Model) handleFilterKey(msg tea.KeyMsg) tea.Cmd {
	t := m.activeTab()
	in := t.Filter()
	k := m.c.keys
	switch {
	case key.Matches(msg, k.ApplyFilter):
		m.filtering = false
		in.Blur()
	case key.Matches(msg, k.ClearFilter):
		m.filtering = false
		in.Blur()
		if in.Value() != "" {
			in.SetValue("")
			t.FilterChanged()
		}
	default:
		if editLine(in, msg) {
			t.FilterChanged()
		}
	}
	return nil
}

// quit starts teardown with a visible status; shutdownDoneMsg ends the
// program. A second ctrl+c forces.
func (m *Model) quit() tea.Cmd {
	m.modal, m.under, m.queued, m.filtering = nil, nil, nil, false
	m.stopCheck() // teardown stops the check's own server too
	n := 0
	if m.c.snap != nil {
		for _, s := range m.c.snap.Servers {
			// A failed server has nothing left running to stop.
			if s.State.Live() || s.State.Busy() || s.State == runtime.StateStopping {
				n++
			}
		}
	}
	m.setStatus(statusWarn, fmt.Sprintf("stopping %d %s… (ctrl+c again to force)", n, present.Plural(n, "server", "servers")))
	// From here the status stays and nothing opens: the calls and
	// questions that end as their servers stop are no news to the person
	// who quit.
	m.quitting = true
	return m.shutdown()
}

// toggleMCP switches MCP on, or off after confirming when calls are
// outstanding. Untrusted project files are asked about first.
func (m *Model) toggleMCP() tea.Cmd {
	if m.c.snap != nil && m.c.snap.Enabled {
		if n := len(m.c.reqs); n > 0 {
			m.openModal(newConfirmDialog(m.c, "Turn MCP off?",
				fmt.Sprintf("%d %s in flight will be cancelled and every server stopped.", n, present.Plural(n, "request", "requests")),
				confirmDisable))
			return nil
		}
		return m.setEnabled(false)
	}
	if len(m.untrusted) > 0 {
		m.trustDeclined = false
		m.enableAfter = true
		m.openModal(m.newTrustDialog(m.untrusted[0]))
		return nil
	}
	return m.setEnabled(true)
}

func (m *Model) toggleServer() tea.Cmd {
	srv, ok := m.c.selected()
	if !ok {
		return nil
	}
	return m.setServerEnabled(srv.Name, !srv.Enabled)
}

func (m *Model) reconnect() tea.Cmd {
	srv, ok := m.c.selected()
	if !ok {
		return nil
	}
	if m.c.snap == nil || !m.c.snap.Enabled {
		m.setStatus(statusWarn, "MCP is off: press m to switch it on, then R reconnects "+srv.Name)
		return nil
	}
	if !srv.Enabled {
		// The runtime refuses it ("disabled and cannot become starting"):
		// say instead why it is off and the key that starts it.
		m.setStatus(statusWarn, m.c.offReconnectText(srv))
		return nil
	}
	return m.reconnectServer(srv.Name)
}

func (m *Model) reload() tea.Cmd {
	if m.opts.Reload == nil {
		m.setStatus(statusWarn, ErrNoReload.Error()+": configuration came from the command line only")
		return nil
	}
	return m.reloadConfig()
}

// errText is an error for the status line, on one line: the message and
// the hint its kind suggests (present.ErrorText, as the command line words
// its errors).
func errText(err error) string {
	return present.OneLine(strings.TrimSpace(present.ErrorText(err, present.TUI)), 500)
}

// errAbout is a status line that says what failed (sentence, which names
// server already), then errText of the error with the server said once
// (runtime.AboutServer), its hint included.
func errAbout(sentence, server string, err error) string {
	return errText(runtime.AboutServer(sentence, server, err))
}
