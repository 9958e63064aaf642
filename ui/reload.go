package ui

import (
	"errors"
	"fmt"
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// A reload reads the configuration again. A project file whose content
// changed since it was approved (a server added, a command edited) is
// asked about again before anything from it starts: the dialog says what
// is new, the approval is saved only on yes, and on no nothing changes.

// reloadConfig reads the configuration and applies it, unless a project
// file in it needs approval first.
func (m *Model) reloadConfig() tea.Cmd {
	if m.busy["reload"] {
		// The file may have changed again since the running reload read
		// it; that reload waits for the servers it starts.
		m.reloadAgain = true
		m.setStatus(statusInfo, "still reloading: reloads again when it ends")
		return nil
	}
	read, pending := m.opts.Reload, m.opts.Pending
	m.setStatus(statusInfo, "reloading configuration…")
	apply := m.applier()
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
		return apply(cfg)
	})
}

// reloaded shows what a reload did, and starts the one asked for while it
// ran.
func (m *Model) reloaded(msg reloadedMsg) tea.Cmd {
	delete(m.busy, "reload")
	again := m.reloadAgain
	m.reloadAgain = false
	if len(msg.pending) > 0 {
		return m.askReloadApproval(msg) // once approved, the file is read again anyway
	}
	if msg.err == nil && msg.cfg != nil {
		m.setApplied(msg.cfg)
	}
	switch {
	case errors.Is(msg.err, runtime.ErrNotEnabled), errors.Is(msg.err, runtime.ErrRefused):
		m.setStatus(statusWarn, "MCP was switched on or off meanwhile: press r again")
	case msg.err == nil && msg.configured:
		m.setStatus(statusInfo, "configuration read (MCP is off, nothing started): "+present.PlanSummary(msg.plan)+"; m switches MCP on")
	case msg.err != nil:
		m.setStatus(statusError, "reload failed: "+errText(msg.err)+"; fix the file and press r again")
	default:
		m.setStatus(statusInfo, "configuration reloaded: "+present.PlanSummary(msg.plan))
		m.openModal(newPlanDialog(m.c, msg.plan))
	}
	if again {
		return m.reloadConfig()
	}
	return nil
}

// applier hands a configuration to the runtime: a reload of the running
// set while MCP is on, else a new configuration for when it is switched
// on. What it needs of the model is taken now, on the model's goroutine;
// the returned function runs on a command's.
func (m *Model) applier() func(*config.Config) tea.Msg {
	rt, ctx := m.rt, m.ctx()
	on := m.c.snap != nil && m.c.snap.Enabled
	return func(cfg *config.Config) tea.Msg {
		if !on {
			plan, err := rt.Configure(ctx, cfg)
			return reloadedMsg{plan: plan, err: err, cfg: cfg, configured: true}
		}
		plan, err := rt.Reload(ctx, cfg)
		return reloadedMsg{plan: plan, err: err, cfg: cfg}
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

// reloadTrusted asks about the next changed file, or, once every one is
// approved, reads the configuration again and applies that: the copy read
// before the approval was read for the prompt only (its envFile unread, its
// servers marked Unapproved), and applying it would stop every server of
// the file as "not approved" although the approval is saved. Read again, a
// server whose definition did not change keeps its connection. A file that
// changed once more meanwhile is asked about again.
func (m *Model) reloadTrusted(msg trustedMsg) tea.Cmd {
	if msg.err != nil {
		m.reloadCfg, m.reloadPending = nil, nil
		delete(m.busy, "reload")
		m.setStatus(statusError, "saving the approval of "+msg.file.Path+" failed: "+errText(msg.err)+"; the reload was not applied")
		return nil
	}
	delete(m.declined, msg.file.Path)
	m.approvedFile(msg.file.Path)
	m.reloadPending = slices.DeleteFunc(m.reloadPending, func(f config.File) bool { return f.Path == msg.file.Path })
	if len(m.reloadPending) > 0 {
		m.openModal(m.newReloadTrustDialog(m.reloadPending[0]))
		return nil
	}
	m.reloadCfg = nil
	delete(m.busy, "reload")
	cmd := m.reloadConfig()
	m.setStatus(statusInfo, "approved "+msg.file.Path+"; reading it again in full and reloading…")
	return cmd
}

// approvedFile forgets a file the person approved from the files still
// waiting for approval before MCP may start: approved on a reload, it is
// not asked about again by m.
func (m *Model) approvedFile(path string) {
	m.untrusted = slices.DeleteFunc(m.untrusted, func(f config.File) bool { return f.Path == path })
}

// setApplied records cfg as the configuration the runtime holds, and the
// warnings of its servers the Overview shows.
func (m *Model) setApplied(cfg *config.Config) {
	m.applied = cfg
	m.c.loud, m.c.loudFile = nil, nil
	if cfg == nil {
		return
	}
	m.c.loudFile = cfg.LoudFile()
	for _, s := range cfg.Servers {
		if d := cfg.Loud(s); len(d) > 0 {
			if m.c.loud == nil {
				m.c.loud = map[string][]config.Diagnostic{}
			}
			m.c.loud[s.Name] = d
		}
	}
}
