package ui

import (
	"fmt"
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/config"
)

// A reload reads the configuration again. A project file whose content
// changed since it was approved (a server added, a command edited) is
// asked about again before anything from it starts: the dialog says what
// is new, the approval is saved only on yes, and on no nothing changes.

// reloadConfig reads the configuration and applies it, unless a project
// file in it needs approval first.
func (m *Model) reloadConfig() tea.Cmd {
	read, pending := m.opts.Reload, m.opts.Pending
	m.setStatus(statusInfo, "reloading configuration…")
	apply := m.reloadApplier() // the session's state is read here, not in the command
	return m.once("reload", func() tea.Msg {
		cfg, err := read()
		if err != nil {
			return reloadedMsg{err: fmt.Errorf("reading configuration: %w", err)}
		}
		if pending != nil {
			if files := pending(cfg); len(files) > 0 {
				return reloadedMsg{cfg: cfg, pending: files}
			}
		}
		return apply(cfg)()
	})
}

// applyReload hands cfg to the runtime: a reload of the running set while
// MCP is on, else a new configuration for when it is switched on.
func (m *Model) applyReload(cfg *config.Config) tea.Cmd { return m.reloadApplier()(cfg) }

// reloadApplier reads what applying a configuration needs (whether MCP is
// on) now, on the UI's goroutine, for a command to apply one later.
func (m *Model) reloadApplier() func(*config.Config) tea.Cmd {
	rt, ctx := m.rt, m.ctx()
	on := m.c.snap != nil && m.c.snap.Enabled
	return func(cfg *config.Config) tea.Cmd {
		return func() tea.Msg {
			if !on {
				plan, err := rt.Configure(ctx, cfg)
				return reloadedMsg{plan: plan, err: err, cfg: cfg, configured: true}
			}
			plan, err := rt.Reload(ctx, cfg)
			return reloadedMsg{plan: plan, err: err, cfg: cfg}
		}
	}
}

// askReloadApproval holds a read configuration until its changed project
// files are approved.
func (m *Model) askReloadApproval(msg reloadedMsg) tea.Cmd {
	m.reloadCfg, m.reloadPending = msg.cfg, msg.pending
	m.busy["reload"] = true // until approved or declined
	m.setStatus(statusWarn, "reload waits: "+msg.pending[0].Path+" changed since it was approved")
	m.openModal(m.newReloadTrustDialog(msg.pending[0]))
	return nil
}

// reloadTrustAnswered saves a yes, or drops the whole reload on a no.
func (m *Model) reloadTrustAnswered(msg trustIntentMsg) tea.Cmd {
	if !msg.approve {
		m.declined[msg.file.Path] = true
		m.reloadCfg, m.reloadPending = nil, nil
		delete(m.busy, "reload")
		m.setStatus(statusWarn, "reload cancelled: "+msg.file.Path+" changed and is not approved; nothing from it was started, the running servers are unchanged")
		return nil
	}
	return m.trust(msg.file, true)
}

// reloadTrusted asks about the next changed file, or applies the reload
// once every one is approved.
func (m *Model) reloadTrusted(msg trustedMsg) tea.Cmd {
	if msg.err != nil {
		m.reloadCfg, m.reloadPending = nil, nil
		delete(m.busy, "reload")
		m.setStatus(statusError, "saving the approval of "+msg.file.Path+" failed: "+errText(msg.err)+"; the reload was not applied")
		return nil
	}
	delete(m.declined, msg.file.Path)
	m.reloadPending = slices.DeleteFunc(m.reloadPending, func(f config.File) bool { return f.Path == msg.file.Path })
	if len(m.reloadPending) > 0 {
		m.openModal(m.newReloadTrustDialog(m.reloadPending[0]))
		return nil
	}
	cfg := m.reloadCfg
	m.reloadCfg = nil
	m.setStatus(statusInfo, "approved "+msg.file.Path+"; reloading…")
	return m.applyReload(cfg)
}
