package ui

import (
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// rootsEditor edits the directories a server is offered (roots/list) for
// the session: + (or a) adds one, typed on the line below; - (or d)
// removes the selected one; enter applies (SetRoots), esc leaves them as
// they were. No roots means the capability is not declared at all.
type rootsEditor struct {
	c      *common
	server string
	dirs   []string
	cur    cursor
	adding bool
	in     textinput.Model
	err    string
	w, h   int
}

func newRootsEditor(c *common, srv runtime.ServerSnapshot) *rootsEditor {
	e := &rootsEditor{c: c, server: srv.Name, in: newLineInput(c.st)}
	for _, r := range srv.Roots {
		e.dirs = append(e.dirs, rootPath(r))
	}
	e.in.Placeholder = "/path/to/a/directory"
	return e
}

// rootPath is the directory of a file:// root.
func rootPath(r runtime.Root) string {
	if u, err := url.Parse(r.URI); err == nil && u.Scheme == "file" {
		return filepath.FromSlash(u.Path)
	}
	return r.URI
}

func (e *rootsEditor) SetSize(w, h int) {
	e.w, e.h = min(max(w-10, 44), 90), h
	setLineWidth(&e.in, e.w-8)
}

func (e *rootsEditor) Help() []key.Binding {
	k := e.c.keys
	if e.adding {
		return []key.Binding{keysRelabel(k.ApplyFilter, "add it"), keysRelabel(k.ClearFilter, "don't add")}
	}
	return []key.Binding{k.Up, k.Down, keysRelabel(k.Add, "add a root"), keysRelabel(k.Remove, "remove it"), keysRelabel(k.Select, "apply"), k.Back}
}

func (e *rootsEditor) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	k := e.c.keys
	if e.adding {
		switch {
		case key.Matches(msg, k.ApplyFilter):
			dir := strings.TrimSpace(e.in.Value())
			if dir == "" {
				e.err = "type a directory, or esc"
				return e, nil
			}
			if abs, err := filepath.Abs(expandHome(dir)); err == nil {
				dir = abs
			}
			if !slices.Contains(e.dirs, dir) {
				e.dirs = append(e.dirs, dir)
			}
			e.cur.sel = slices.Index(e.dirs, dir)
			e.adding, e.err = false, ""
			e.in.SetValue("")
			e.in.Blur()
		case key.Matches(msg, k.ClearFilter):
			e.adding, e.err = false, ""
			e.in.SetValue("")
			e.in.Blur()
		default:
			editLine(&e.in, msg)
		}
		return e, nil
	}
	switch {
	case key.Matches(msg, k.Back):
		return nil, nil
	case key.Matches(msg, k.Add):
		e.adding = true
		e.in.Focus()
	case key.Matches(msg, k.Remove):
		if sel, _ := e.cur.window(len(e.dirs), len(e.dirs)); sel >= 0 {
			e.dirs = slices.Delete(e.dirs, sel, sel+1)
		}
	case key.Matches(msg, k.Select):
		intent := rootsIntentMsg{server: e.server, dirs: slices.Clone(e.dirs)}
		return nil, func() tea.Msg { return intent }
	default:
		navKeys(e.c, msg, &e.cur, len(e.dirs), len(e.dirs))
	}
	return e, nil
}

// expandHome expands a leading ~ as a shell would.
func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := userHome(); err == nil {
			return filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	return p
}

func (e *rootsEditor) View() string {
	st := e.c.st
	body := []string{st.Dim.Render("Directories " + e.server + " may work in (roots/list), for this session."), ""}
	if len(e.dirs) == 0 {
		body = append(body, st.Faint.Render("No roots: the roots capability is not declared, so the server keeps the"),
			st.Faint.Render("directories it was started with."))
	}
	sel, _ := e.cur.window(len(e.dirs), len(e.dirs))
	for i, d := range e.dirs {
		line := "  " + present.Line(d)
		if i == sel && !e.adding {
			line = st.Selected.Render(padRight("› "+present.Line(d), e.w-4))
		}
		body = append(body, line)
	}
	body = append(body, "")
	if e.adding {
		body = append(body, st.Label.Render("add: ")+lineView(&e.in, e.w-10))
	} else {
		body = append(body, st.Dim.Render("+ add · - remove · enter applies · esc keeps them as they were"))
	}
	if e.err != "" {
		body = append(body, st.Error.Render("✗ "+e.err))
	}
	return modalBox(e.c, "Roots of "+e.server, body, 0, e.w, min(e.h, len(body)+3))
}

// editRoots opens the roots editor for the selected server.
func (m *Model) editRoots() tea.Cmd {
	srv, ok := m.c.selected()
	if !ok {
		return nil
	}
	if m.opts.Replay != nil {
		m.setStatus(statusWarn, ErrReadOnlyReplay.Error())
		return nil
	}
	m.openModal(newRootsEditor(m.c, srv))
	return nil
}
