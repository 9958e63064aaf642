package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/config"
	"mcpdeck/runtime/registry"
	"mcpdeck/ui/present"
)

// The servers pane's a, e and D, and what happens after: the file is
// written in a command (no I/O in Update), then the configuration is read
// again through the normal reload, so the runtime's plan starts an added
// server, restarts an edited one and stops a removed one.

// Manage lets the servers pane change configuration files: a adds a
// server with a form, e edits the selected one, D removes it, b browses
// the MCP Registry. Every change is written to the file (patched in
// place: comments and formatting stay) and then read back through the
// normal reload, so a server added while MCP is on starts at once.
type Manage struct {
	// Files are where a new server may go, the default first.
	Files []ManageFile
	// Try runs a copy of a server the add form describes, on its own,
	// until it is ready or fails, stops it, and says how it went
	// ("ready: 12 tools, 2025-11-25"). It must end when ctx does.
	Try func(ctx context.Context, s config.Server) (string, error)
	// Registry reads the MCP Registry for b; nil leaves b unavailable.
	Registry *registry.Client
	// Trusted reports whether a project file's content is approved
	// (TrustStore.Trusted): an approved file changed here stays approved,
	// through Options.Trust.
	Trusted func(config.File) bool
}

// ManageFile is a file a new server may go to.
type ManageFile struct {
	Label string // "user", "project", "--config"
	Path  string
	// Shared: a project file, shared with the project (created 0644) and
	// approved before its servers start.
	Shared bool
}

// ErrNoManage: a, e, D or b was pressed but the session cannot change
// files (no Options.Manage: an ad-hoc server, a replay).
var ErrNoManage = errors.New("servers cannot be changed in this session")

// serverSavedMsg is the end of a form's save.
type serverSavedMsg struct {
	form  *serverForm
	name  string
	path  string
	verb  string // "added", "changed"
	notes []config.Notice
	unset []string
	err   error
}

// serverTriedMsg is the end of a form's try.
type serverTriedMsg struct {
	form    *serverForm
	summary string
	err     error
}

// editLoadedMsg carries a server's definition read for e.
type editLoadedMsg struct {
	name  string
	file  ManageFile
	entry config.Entry
	err   error
}

// removeServerMsg is a confirmed D.
type removeServerMsg struct {
	name string
	file ManageFile
}

// serverRemovedMsg is the end of a removal.
type serverRemovedMsg struct {
	name, path string
	err        error
}

// canManage reports whether servers can be changed here, and says why
// not.
func (m *Model) canManage() bool {
	switch {
	case m.opts.Replay != nil:
		m.setStatus(statusWarn, ErrReadOnlyReplay.Error())
	case m.opts.Manage == nil || m.opts.Reload == nil:
		m.setStatus(statusWarn, ErrNoManage.Error()+": the configuration came from the command line")
	default:
		return true
	}
	return false
}

// addServer opens the add form.
func (m *Model) addServer() tea.Cmd {
	if !m.canManage() {
		return nil
	}
	m.openModal(m.newServerForm(m.opts.Manage.Files, m.serverNames()))
	return nil
}

func (m *Model) newServerForm(files []ManageFile, taken []string) *serverForm {
	f := newServerForm(m.c, files, taken)
	f.save, f.try = m.saveServer, m.tryServer
	return f
}

func (m *Model) serverNames() []string {
	var out []string
	if m.c.snap != nil {
		for _, s := range m.c.snap.Servers {
			out = append(out, s.Name)
		}
	}
	return out
}

// selectedFile is the file that defines the selected server, or false
// (with a status) when it is in none.
func (m *Model) selectedFile() (string, ManageFile, bool) {
	srv, ok := m.c.selected()
	if !ok || !m.canManage() {
		return "", ManageFile{}, false
	}
	if srv.Scope == config.ScopeDefault || srv.Source == "" || srv.Scope == config.ScopeExplicit && srv.Source == "command line" {
		m.setStatus(statusWarn, srv.Name+" is in no file (the built-in default): add a server of your own with a")
		return "", ManageFile{}, false
	}
	return srv.Name, ManageFile{Label: string(srv.Scope), Path: srv.Source, Shared: srv.Scope == config.ScopeProject}, true
}

// editServer reads the selected server's definition for the edit form.
func (m *Model) editServer() tea.Cmd {
	name, file, ok := m.selectedFile()
	if !ok {
		return nil
	}
	return func() tea.Msg {
		d, c, err := config.OpenServerFile(file.Path, file.Shared)
		if err != nil {
			return editLoadedMsg{name: name, file: file, err: err}
		}
		e, ok := d.Entry(name)
		if !ok {
			return editLoadedMsg{name: name, file: file, err: fmt.Errorf("%s no longer defines %q; press r", file.Path, name)}
		}
		e, _ = c.Import(name, e)
		return editLoadedMsg{name: name, file: file, entry: e}
	}
}

// removeServer asks before removing the selected server from its file.
func (m *Model) removeServer() tea.Cmd {
	name, file, ok := m.selectedFile()
	if !ok {
		return nil
	}
	d := &dialog{c: m.c, title: "Remove " + name + "?", yes: func() tea.Msg { return removeServerMsg{name: name, file: file} }}
	d.wrapBody(fmt.Sprintf("%s is removed from %s (its comments too; the rest of the file stays as it is), and stops if it runs.", name, file.Path))
	m.openModal(d)
	return nil
}

// saveServer writes a form's server and answers serverSavedMsg.
func (m *Model) saveServer(in serverIntent) tea.Cmd {
	keep := m.keepApproval()
	return func() tea.Msg {
		out := serverSavedMsg{form: in.form, name: in.name, path: in.file.Path, verb: "added"}
		if in.edit {
			out.verb = "changed"
		}
		d, c, err := config.OpenServerFile(in.file.Path, in.file.Shared)
		if err != nil {
			out.err = err
			return out
		}
		if out.notes, err = config.PutServer(d, c, in.name, in.entry, in.secrets, in.edit, in.inputs); err != nil {
			out.err = err
			return out
		}
		saved, err := d.Save()
		out.err, out.unset = err, saved.Unset
		if err == nil {
			keep(in.file, saved)
		}
		return out
	}
}

// keepApproval returns what carries a project file's approval over to the
// content this session wrote (config.Saved.Approval): the person created
// the file here, or approved the old content and made the change.
func (m *Model) keepApproval() func(ManageFile, config.Saved) {
	trusted, trust := m.opts.Manage.Trusted, m.opts.Trust
	return func(f ManageFile, s config.Saved) {
		if !f.Shared || trusted == nil || trust == nil {
			return
		}
		if file, ok := s.Approval(f.Path, trusted); ok {
			_ = trust(file)
		}
	}
}

// tryServer runs Manage.Try for a form.
func (m *Model) tryServer(f *serverForm, srv config.Server) tea.Cmd {
	try, ctx := m.opts.Manage.Try, m.ctx()
	if try == nil {
		f.busy = false
		f.status, f.bad = "trying is not available in this session", true
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, srv.StartupTimeout+10*time.Second)
	f.stopTry = cancel // esc ends the try, and the copy it started
	return func() tea.Msg {
		defer cancel()
		summary, err := try(ctx, srv)
		return serverTriedMsg{form: f, summary: summary, err: err}
	}
}

// handleManage handles the answers of the commands above and of the
// registry browser.
func (m *Model) handleManage(msg tea.Msg) (tea.Cmd, bool) {
	if cmd, ok := m.handleRegistry(msg); ok {
		return cmd, true
	}
	switch msg := msg.(type) {
	case serverTriedMsg:
		msg.form.tried(msg.summary, msg.err)
	case serverSavedMsg:
		if msg.err != nil {
			msg.form.failed(msg.err)
			m.setStatus(statusError, msg.name+" was not saved: "+errText(msg.err))
			return nil, true
		}
		if m.modal == msg.form {
			m.closeModal()
		}
		return m.changed(fmt.Sprintf("%s %s in %s", msg.verb, msg.name, msg.path), msg.notes, msg.unset), true
	case editLoadedMsg:
		if msg.err != nil {
			m.setStatus(statusError, "reading "+msg.name+": "+errText(msg.err))
			return nil, true
		}
		f := m.newServerForm([]ManageFile{msg.file}, nil)
		f.edit = msg.name
		f.fill("", msg.entry)
		f.setFocus(0)
		m.openModal(f)
	case removeServerMsg:
		keep := m.keepApproval()
		return func() tea.Msg {
			d, _, err := config.OpenServerFile(msg.file.Path, msg.file.Shared)
			if err == nil {
				err = d.Remove(msg.name)
			}
			if err == nil {
				var saved config.Saved
				if saved, err = d.Save(); err == nil {
					keep(msg.file, saved)
				}
			}
			return serverRemovedMsg{name: msg.name, path: msg.file.Path, err: err}
		}, true
	case serverRemovedMsg:
		if msg.err != nil {
			m.setStatus(statusError, "removing "+msg.name+" failed: "+errText(msg.err))
			return nil, true
		}
		return m.changed("removed "+msg.name+" from "+msg.path, nil, nil), true
	default:
		return nil, false
	}
	return nil, true
}

// changed says what was written and reads the configuration again, so
// the runtime applies it. What the person must do (a variable to set)
// opens in a dialog: the reload's own status line would cover it.
func (m *Model) changed(what string, notes []config.Notice, unset []string) tea.Cmd {
	var more []string
	for _, n := range notes {
		more = append(more, n.Message)
	}
	for _, v := range unset {
		more = append(more, v+" is not set in mcpdeck's environment: the server does not start until it is")
	}
	cmd := m.reloadConfig()
	m.setStatus(statusInfo, present.OneLine(what, 300)+"; reloading…")
	if len(more) > 0 {
		d := &dialog{c: m.c, title: "Saved"}
		d.wrapBody(present.Line(what) + ".")
		for _, line := range more {
			d.wrapBody("• " + present.Line(line))
		}
		m.openModal(d)
	}
	return cmd
}
