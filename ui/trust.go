package ui

import (
	"fmt"
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
	d := &dialog{c: m.c, title: "Approve project configuration?",
		yes: func() tea.Msg { return trustIntentMsg{file: f, approve: true} },
		no:  func() tea.Msg { return trustIntentMsg{file: f, approve: false} },
	}
	d.wrapBody(present.Line(f.Path))
	d.body = append(d.body, "")
	if len(f.Servers) == 0 {
		d.body = append(d.body, "It defines no servers.")
	} else {
		d.body = append(d.body, "It would run:")
		d.body = append(d.body, m.runLines(f, m.opts.Config, nil)...)
	}
	d.body = append(d.body, "")
	d.wrapBody("These servers came with this project. Approve to let MCP start them (remembered until the file changes), or keep MCP off.")
	return d
}

// newReloadTrustDialog asks to approve a project file that changed, showing
// what each of its servers would run now and which of them are new or run
// something else than what runs now.
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
	d.wrapBody(present.Line(f.Path) + "\n\nchanged since you approved it.")
	if len(added) > 0 {
		d.wrapBody("\nnew servers: " + present.Line(strings.Join(added, ", ")))
	}
	d.body = append(d.body, "", "With it, these would run:")
	d.body = append(d.body, m.runLines(f, m.reloadCfg, m.c.snap)...)
	d.body = append(d.body, "")
	d.wrapBody("Approve to reload with it (remembered until the file changes again), or keep what runs now and start nothing from it.")
	return d
}

// runLines shows, for each server f defines, what it would run: from the
// file's own definitions in cfg (a shadowed one included) when cfg is
// known, else from the snapshot (the command line or URL; the working
// directory is not in it). With running, a server of f's that runs
// something else now is marked changed, with what runs now.
func (m *Model) runLines(f config.File, cfg *config.Config, running *runtime.Snapshot) []string {
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
			if !known || srv.Source != f.Path {
				out = append(out, head(name, "(its definition was not read)"))
				continue
			}
			out = append(out, head(name, "("+srv.Transport.String()+")"))
			if srv.Transport == config.TransportStdio {
				value("run", present.Line(srv.Target))
			} else {
				value("url", present.Line(srv.Target))
			}
			continue
		}
		red := def.Redacted()
		line := head(name, "("+red.Transport.String()+")")
		if !red.Enabled {
			line += st.Dim.Render(" · disabled in the file")
		}
		now, changed := "", false
		if srv, ok := snapshotServer(running, name); ok && srv.Source == f.Path {
			now, changed = srv.Target, srv.Target != targetOf(red)
		}
		if changed {
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
			if red.EnvFile != "" {
				value("env", config.ShellQuote(present.Line(red.EnvFile))+" (read once approved)")
			}
		default:
			value("url", present.Line(red.URL))
		}
		if changed {
			value("now", present.Line(now))
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
