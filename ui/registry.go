package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime/registry"
	"mcpdeck/ui/present"
)

// registryTimeout bounds one search of the registry.
const registryTimeout = 30 * time.Second

// registryBrowser is b on the servers pane: search the MCP Registry (type
// and press enter), move through the servers, enter shows one (what it
// runs as, what it asks for), ←/→ choose how to run it (a package or its
// remote), enter opens the add form filled in, to review and save.
type registryBrowser struct {
	c       *common
	url     string
	q       textinput.Model
	typing  bool
	results []registry.Entry
	next    string // cursor of the next page; "" at the end
	cur     cursor
	loading bool
	status  string
	bad     bool
	detail  *registry.Entry
	ways    []way
	way     int
	w, h    int
	search  func(b *registryBrowser, query, cursor string) tea.Cmd
	install func(b *registryBrowser, e registry.Entry, w way) tea.Cmd
}

// way is one way to run a server: a package type or its remote.
type way struct {
	opts registry.Options
	via  string
	err  error
}

// registryResultsMsg is one page of a search.
type registryResultsMsg struct {
	b      *registryBrowser
	query  string
	cursor string
	page   registry.Page
	err    error
}

func newRegistryBrowser(c *common, url string) *registryBrowser {
	b := &registryBrowser{c: c, url: url, q: newLineInput(c.st), typing: true}
	b.q.Placeholder = "search the registry (name or description); enter"
	b.q.Focus()
	return b
}

func (b *registryBrowser) SetSize(w, h int) {
	b.w, b.h = min(max(w-6, 50), 120), h
	setLineWidth(&b.q, b.w-14)
}

func (b *registryBrowser) rows() int { return max(b.h-10, 3) }

func (b *registryBrowser) Help() []key.Binding {
	k := b.c.keys
	switch {
	case b.detail != nil:
		return []key.Binding{keysRelabel(k.Select, "add it…"), keysRelabel(k.Toggle, "next way to run it"), keysRelabel(k.PrevChoice, "previous way"), k.Back}
	case b.typing:
		return []key.Binding{keysRelabel(k.ApplyFilter, "search"), keysRelabel(k.Down, "to the results"), k.Back}
	}
	return []key.Binding{k.Up, k.Down, keysRelabel(k.Select, "show"), keysRelabel(k.Search, "search again"), k.PageUp, k.PageDown, k.Top, k.Bottom, k.Back}
}

func (b *registryBrowser) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	k := b.c.keys
	switch {
	case b.detail != nil:
		switch {
		case key.Matches(msg, k.Back):
			b.detail = nil
		case key.Matches(msg, k.Toggle):
			b.way = cycle(b.way, 1, len(b.ways))
		case key.Matches(msg, k.PrevChoice):
			b.way = cycle(b.way, -1, len(b.ways))
		case key.Matches(msg, k.Select):
			if w := b.ways[b.way]; w.err == nil {
				return b, b.install(b, *b.detail, w)
			}
		}
		return b, nil
	case b.typing:
		switch {
		case key.Matches(msg, k.Back):
			return nil, nil
		case key.Matches(msg, k.ApplyFilter):
			return b, b.find("")
		case key.Matches(msg, k.Down) && len(b.results) > 0:
			b.typing = false
			b.q.Blur()
		default:
			editLine(&b.q, msg)
		}
		return b, nil
	}
	switch {
	case key.Matches(msg, k.Back):
		return nil, nil
	case key.Matches(msg, k.Search):
		b.typing = true
		b.q.Focus()
	case key.Matches(msg, k.Select):
		if sel, _ := b.cur.window(len(b.results), b.rows()); sel >= 0 {
			b.open(b.results[sel])
		}
	case key.Matches(msg, k.Down) && b.cur.sel == len(b.results)-1 && b.next != "" && !b.loading:
		return b, b.find(b.next) // the next page, appended
	default:
		navKeys(b.c, msg, &b.cur, len(b.results), b.rows())
	}
	return b, nil
}

// find asks for a page of results.
func (b *registryBrowser) find(cursor string) tea.Cmd {
	b.loading, b.status, b.bad = true, "searching "+b.url+"…", false
	return b.search(b, strings.TrimSpace(b.q.Value()), cursor)
}

// found takes a page.
func (b *registryBrowser) found(msg registryResultsMsg) {
	b.loading = false
	if msg.err != nil {
		b.status, b.bad = present.OneLine(msg.err.Error(), 300), true
		return
	}
	if msg.cursor == "" {
		b.results, b.cur = nil, cursor{}
	}
	b.results = append(b.results, msg.page.Servers...)
	b.next = msg.page.NextCursor
	b.status, b.bad = present.Count(len(b.results), "server", "servers"), false
	if b.next != "" {
		b.status += " (↓ at the end loads more)"
	}
	if len(b.results) == 0 {
		b.status = fmt.Sprintf("no server matches %q", msg.query)
		return
	}
	b.typing = false
	b.q.Blur()
}

// open shows one server and the ways it can run.
func (b *registryBrowser) open(e registry.Entry) {
	b.detail, b.ways, b.way = &e, nil, 0
	var opts []registry.Options
	seen := map[string]bool{}
	for _, p := range e.Server.Packages {
		if !seen[p.RegistryType] {
			seen[p.RegistryType] = true
			opts = append(opts, registry.Options{Package: p.RegistryType})
		}
	}
	if len(e.Server.Remotes) > 0 {
		opts = append(opts, registry.Options{Remote: true})
	}
	if len(opts) == 0 {
		opts = append(opts, registry.Options{})
	}
	for _, o := range opts {
		o.Name = registry.ShortName(e.Server.Name)
		inst, err := registry.Install(e.Server, o)
		b.ways = append(b.ways, way{opts: o, via: inst.Via, err: err})
	}
}

func (b *registryBrowser) View() string {
	st := b.c.st
	if b.detail != nil {
		return modalBox(b.c, "MCP Registry › "+present.Line(b.detail.Server.Name), b.detailLines(), 0, b.w, b.h)
	}
	body := []string{st.Label.Render("search ") + "[" + lineView(&b.q, b.w-14) + "]", ""}
	sel, top := b.cur.window(len(b.results), b.rows())
	for i := top; i < len(b.results) && i < top+b.rows(); i++ {
		s := b.results[i].Server
		line := padRight(present.Line(s.Name), 44) + " " + padRight(present.Line(s.Version), 10) + " " + present.Line(s.Description)
		if i == sel && !b.typing {
			body = append(body, st.Selected.Render(padRight("› "+line, b.w-4)))
		} else {
			body = append(body, "  "+present.Truncate(line, b.w-6))
		}
	}
	body = append(body, "")
	switch {
	case b.status == "":
		body = append(body, st.Dim.Render("from "+present.Line(b.url)))
	case b.bad:
		body = append(body, wrapStyled(st.Error.Render, b.status, b.w-6)...)
	default:
		body = append(body, st.Dim.Render(present.Line(b.status)+" · from "+present.Line(b.url)))
	}
	return modalBox(b.c, "MCP Registry", body, 0, b.w, min(b.h, len(body)+3))
}

// detailLines describe the server shown.
func (b *registryBrowser) detailLines() []string {
	st := b.c.st
	s := b.detail.Server
	var out []string
	field := func(name, value string) {
		if value != "" {
			out = append(out, st.Label.Render(padRight(name, 12))+present.Line(value))
		}
	}
	field("title", s.Title)
	field("version", s.Version)
	if o := b.detail.Meta.Official; o != nil && o.Status != "" && o.Status != "active" {
		out = append(out, st.Warning.Render(padRight("status", 12)+present.Line(o.Status+" "+o.StatusMessage)))
	}
	out = append(out, wrap(present.Line(s.Description), b.w-6)...)
	if s.Repository != nil {
		field("repository", s.Repository.URL)
	}
	field("website", s.WebsiteURL)
	out = append(out, "", st.Label.Render("runs as"))
	for i, w := range b.ways {
		text := w.via
		if w.err != nil {
			text = "✗ " + w.err.Error()
		}
		line := "  " + present.Truncate(present.Line(text), b.w-8)
		if i == b.way {
			line = st.Selected.Render(padRight("› "+present.Line(text), b.w-4))
		}
		out = append(out, line)
	}
	var needs []string
	for _, p := range s.Packages {
		for _, kv := range p.EnvironmentVariables {
			needs = append(needs, needLine("env "+kv.Name, kv.Input))
		}
		for _, a := range append(append([]registry.Argument{}, p.RuntimeArguments...), p.PackageArguments...) {
			if a.Value == "" {
				label := a.ValueHint
				if label == "" {
					label = a.Name
				}
				needs = append(needs, needLine("argument "+label, a.Input))
			}
		}
	}
	for _, r := range s.Remotes {
		for _, h := range r.Headers {
			needs = append(needs, needLine("header "+h.Name, h.Input))
		}
	}
	if len(needs) > 0 {
		out = append(out, "", st.Label.Render("asks for"))
		for _, n := range needs {
			out = append(out, "  "+present.Truncate(present.Line(n), b.w-8))
		}
	}
	out = append(out, "", st.Dim.Render("enter opens the add form filled in: review it, then save"))
	return out
}

// needLine is one declared value: "env BRAVE_API_KEY * secret — …".
func needLine(label string, in registry.Input) string {
	if in.IsRequired {
		label += " *"
	}
	if in.IsSecret {
		label += " secret"
	}
	if in.Default != "" {
		label += " (default " + in.Default + ")"
	}
	if in.Description != "" {
		label += " — " + in.Description
	}
	return label
}

// browseRegistry opens the browser.
func (m *Model) browseRegistry() tea.Cmd {
	if !m.canManage() {
		return nil
	}
	reg := m.opts.Manage.Registry
	if reg == nil {
		m.setStatus(statusWarn, "the MCP Registry is not available in this session")
		return nil
	}
	b := newRegistryBrowser(m.c, reg.URL())
	ctx := m.ctx()
	b.search = func(b *registryBrowser, query, cursor string) tea.Cmd {
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(ctx, registryTimeout)
			defer cancel()
			page, err := reg.Search(ctx, query, cursor, 30)
			return registryResultsMsg{b: b, query: query, cursor: cursor, page: page, err: err}
		}
	}
	b.install = m.installFromRegistry
	m.openModal(b)
	return nil
}

// registryInstallMsg asks for the add form of a registry server.
type registryInstallMsg struct {
	b *registryBrowser
	e registry.Entry
	w way
}

// installFromRegistry asks the root model for the add form (a modal does
// not open another from its own Update).
func (m *Model) installFromRegistry(b *registryBrowser, e registry.Entry, w way) tea.Cmd {
	return func() tea.Msg { return registryInstallMsg{b: b, e: e, w: w} }
}

// openInstallForm opens the add form over the browser, filled with the
// entry the chosen way makes: references (${env:…}) stand for what the
// server asks for, and the form says which to set.
func (m *Model) openInstallForm(b *registryBrowser, e registry.Entry, w way) {
	inst, err := registry.Install(e.Server, w.opts)
	if err != nil {
		b.status, b.bad = present.OneLine(err.Error(), 300), true
		return
	}
	f := m.newServerForm(m.opts.Manage.Files, m.serverNames())
	f.fill(w.opts.Name, inst.Entry)
	var notes []string
	for _, n := range inst.Notices {
		notes = append(notes, n.Message)
	}
	f.status = e.Server.Name + " " + e.Server.Version + " runs as " + inst.Via
	if len(notes) > 0 {
		f.status += " — " + strings.Join(notes, "; ")
	}
	f.setFocus(0)
	m.openOver(b, f)
}

// handleRegistry takes the browser's search results.
func (m *Model) handleRegistry(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case registryResultsMsg:
		msg.b.found(msg)
	case registryInstallMsg:
		m.openInstallForm(msg.b, msg.e, msg.w)
	default:
		return nil, false
	}
	return nil, true
}
