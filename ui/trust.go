package ui

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// Approving a project file is approving what it runs: the dialogs that ask
// (at start, on m, and on a reload after the file changed) show, for each
// server the file defines, the command line it would run (shell-quoted,
// each word cleaned: the file may be hostile) and its working directory,
// or the URL it would connect to. Secrets stay redacted, as everywhere.

// trustDialogWidth is the text width of the approval dialogs.
const trustDialogWidth = 66

// newTrustDialog asks to approve a project configuration file before any
// of its commands run.
func (m *Model) newTrustDialog(f config.File) *dialog {
	d := &dialog{c: m.c, title: "Approve project configuration?", approvesStart: true,
		yes: func() tea.Msg { return trustIntentMsg{file: f, approve: true} },
		no:  func() tea.Msg { return trustIntentMsg{file: f, approve: false} },
	}
	d.wrapBody(present.Line(f.Path))
	d.body = append(d.body, "")
	if len(f.Servers) == 0 {
		d.body = append(d.body, "It defines no servers.")
	} else {
		d.body = append(d.body, "It would run:")
		d.body = append(d.body, m.runLines(f, m.applied, nil, nil)...)
	}
	d.body = append(d.body, "")
	d.wrapBody("These servers came with this project. Approve to let MCP start them (remembered until the file changes), or keep MCP off.")
	return d
}

// newReloadTrustDialog asks to approve a project file that changed, showing
// what each of its servers would run now, which of them are new, which
// the file no longer defines (they stop), and for a server that changed,
// what changed in it (env and header names, never values).
func (m *Model) newReloadTrustDialog(f config.File) *dialog {
	d := &dialog{c: m.c, title: "Approve the changed project configuration?",
		yes: func() tea.Msg { return trustIntentMsg{file: f, approve: true, reload: true} },
		no:  func() tea.Msg { return trustIntentMsg{file: f, approve: false, reload: true} },
	}
	var added []string
	for _, name := range f.Servers {
		if _, ok := snapshotServer(m.c.snap, name); !ok {
			added = append(added, name)
		}
	}
	removed := m.removedFrom(f)
	d.wrapBody(present.Line(f.Path) + "\n\nchanged since you approved it.")
	if len(added) > 0 {
		d.wrapBody("\nnew servers: " + present.Line(strings.Join(added, ", ")))
	}
	if len(removed) > 0 {
		d.wrapBody("\nremoved: " + present.Line(strings.Join(removed, ", ")))
	}
	d.body = append(d.body, "", "With it, these would run:")
	d.body = append(d.body, m.runLines(f, m.reloadCfg, m.applied, m.c.snap)...)
	for _, name := range removed {
		srv, ok := snapshotServer(m.c.snap, name)
		if !ok || !srv.State.Live() {
			d.body = append(d.body, "  "+m.c.st.Accent.Render(present.Line(name))+" "+m.c.st.Warning.Render("removed"))
			continue
		}
		d.body = append(d.body, "  "+m.c.st.Accent.Render(present.Line(name))+" "+m.c.st.Warning.Render("removed: it stops"),
			"    "+m.c.st.Label.Render("now ")+"  "+present.Line(srv.Target))
	}
	d.body = append(d.body, "")
	d.wrapBody("Approve to reload with it (remembered until the file changes again), or keep what runs now and start nothing from it.")
	return d
}

// removedFrom is the servers that came from f as it was applied (or as
// they run) and that f no longer defines.
func (m *Model) removedFrom(f config.File) []string {
	var out []string
	gone := func(name, source string) {
		if source == f.Path && !slices.Contains(f.Servers, name) && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	if m.c.snap != nil {
		for _, s := range m.c.snap.Servers {
			gone(s.Name, s.Source)
		}
	}
	if m.applied != nil {
		for _, s := range m.applied.Servers {
			gone(s.Name, s.Source)
		}
	}
	slices.Sort(out)
	return out
}

// runLines shows, for each server f defines, what it would run: from the
// file's own definitions in cfg (a shadowed one included) when cfg is
// known, else from the snapshot (the command line or URL; the working
// directory is not in it), and the names of the env keys it sets. An
// invalid server shows why it is invalid. With old (the definitions
// applied now) or running, a server of f's that changed is marked so,
// with what runs now and what changed.
func (m *Model) runLines(f config.File, cfg, old *config.Config, running *runtime.Snapshot) []string {
	st := m.c.st
	var out []string
	// words is one labelled value, wrapped under itself between words: a
	// command line is shown whole, however long, and a quoted word is
	// broken only when it is longer than a line.
	const labelW = 4
	words := func(label string, ws []string) {
		for i, l := range packWords(ws, trustDialogWidth-labelW-6) {
			if i == 0 {
				out = append(out, "    "+st.Label.Render(fmt.Sprintf("%-*s", labelW, label))+"  "+l)
			} else {
				out = append(out, strings.Repeat(" ", 4+labelW+2)+l)
			}
		}
	}
	value := func(label, v string) { words(label, strings.Fields(v)) }
	head := func(name, note string) string {
		return "  " + st.Accent.Render(present.Line(name)) + st.Dim.Render(" "+note)
	}
	for _, name := range f.Servers {
		def, ok := definition(cfg, f.Path, name)
		if !ok {
			srv, known := snapshotServer(m.c.snap, name)
			switch {
			case !known || srv.Source != f.Path:
				out = append(out, head(name, "(its definition was not read)"))
			case srv.State == runtime.StateInvalid:
				out = append(out, head(name, "(invalid)"))
				value("err", present.Line(srv.Note))
			case srv.Transport == config.TransportStdio:
				out = append(out, head(name, "("+srv.Transport.String()+")"))
				value("run", present.Line(srv.Target))
			default:
				out = append(out, head(name, "("+srv.Transport.String()+")"))
				value("url", present.Line(srv.Target))
			}
			continue
		}
		red := def.Redacted()
		kind := "(" + red.Transport.String() + ")"
		if red.Invalid != nil {
			kind = "(invalid)"
		}
		line := head(name, kind)
		if !red.Enabled {
			line += st.Dim.Render(" · disabled in the file")
		}
		now, changes := "", []string(nil)
		if srv, ok := snapshotServer(running, name); ok && srv.Source == f.Path {
			now = srv.Target
			if was, ok := definition(old, f.Path, name); ok {
				changes = def.Changes(was)
			} else if srv.Target != targetOf(red) {
				changes = []string{"command line"}
			}
		}
		if len(changes) > 0 {
			line += " " + st.Warning.Render("changed")
		}
		out = append(out, line)
		switch {
		case red.Invalid != nil:
			value("err", present.Line(red.Invalid.Error()))
			continue
		case red.Transport == config.TransportStdio:
			words("run", present.CommandWords(red.Command, red.Args))
			if red.Cwd != "" {
				value("cwd", config.ShellQuote(present.Line(red.Cwd)))
			}
			if len(red.Env) > 0 {
				value("env", present.Line(strings.Join(slices.Sorted(maps.Keys(red.Env)), " "))+" (values hidden)")
			}
			if red.EnvFile != "" {
				value("file", config.ShellQuote(present.Line(red.EnvFile))+" (env file, read once approved)")
			}
		default:
			value("url", present.Line(red.URL))
			if len(red.Headers) > 0 {
				value("hdrs", present.Line(strings.Join(slices.Sorted(maps.Keys(red.Headers)), " "))+" (values hidden)")
			}
		}
		if len(changes) > 0 {
			if slices.Contains(changes, "command line") || slices.Contains(changes, "url") {
				value("now", present.Line(now))
			}
			value("diff", present.Line(strings.Join(changes, "; ")))
		}
	}
	return out
}

// packWords lays words out in lines of at most width cells, a space
// between two; a word wider than a line is cut into pieces of width.
func packWords(words []string, width int) []string {
	width = max(width, 10)
	var lines []string
	cur := ""
	for _, w := range words {
		for ansi.StringWidth(w) > width {
			if cur != "" {
				lines, cur = append(lines, cur), ""
			}
			head := ansi.Truncate(w, width, "")
			lines, w = append(lines, head), w[len(head):]
		}
		switch {
		case cur == "":
			cur = w
		case ansi.StringWidth(cur)+1+ansi.StringWidth(w) <= width:
			cur += " " + w
		default:
			lines, cur = append(lines, cur), w
		}
	}
	if cur != "" || len(lines) == 0 {
		lines = append(lines, cur)
	}
	return lines
}

// snapshotServer is the server named name in snap, if snap is known.
func snapshotServer(snap *runtime.Snapshot, name string) (runtime.ServerSnapshot, bool) {
	if snap == nil {
		return runtime.ServerSnapshot{}, false
	}
	return snap.Server(name)
}

// definition is the definition of name that file path holds in cfg: the
// one in effect, or one a nearer file shadows.
func definition(cfg *config.Config, path, name string) (config.Server, bool) {
	if cfg == nil {
		return config.Server{}, false
	}
	for _, s := range cfg.Servers {
		if s.Name == name && s.Source == path {
			return s, true
		}
	}
	for _, sh := range cfg.Shadowed {
		if sh.Name == name && sh.Server.Source == path {
			return sh.Server, true
		}
	}
	return config.Server{}, false
}

// targetOf is a redacted server's target as the snapshot words it: the
// command line, or the URL.
func targetOf(s config.Server) string {
	if s.Transport == config.TransportStdio {
		return s.CommandLine()
	}
	return s.URL
}
