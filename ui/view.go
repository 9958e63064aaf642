package ui

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"

	"mcpdeck/ui/present"
)

// Layout rows outside the two panes: header and help bar, plus the status
// line's rows (one, or two for a long message).
const chromeRows = 2

// maxStatusRows bounds the status line: a long error wraps once, at a word
// boundary, and the rest is cut at a word boundary too.
const maxStatusRows = 2

// layout hands every pane its size after a resize.
func (m *Model) layout() {
	_, detailH := m.paneHeights()
	inner := m.width - 2
	for _, t := range m.tabs {
		t.SetSize(inner, max(detailH-3, 1)) // border and tab bar
		if in := t.Filter(); in != nil {
			setLineWidth(in, m.width-1) // the status line
		}
	}
	m.layoutModal()
}

// layoutModal sizes the open modals, those waiting under the one in
// front too, so each is drawn at the terminal's size when it is shown
// again.
func (m *Model) layoutModal() {
	for _, md := range m.openModals() {
		m.sizeModal(md)
	}
}

// sizeModal gives md the body's size.
func (m *Model) sizeModal(md modal) { md.SetSize(m.width, m.bodyHeight()) }

// bodyHeight is the height between the header and the status line.
func (m *Model) bodyHeight() int { return max(m.height-chromeRows-len(m.statusRows()), 1) }

// paneHeights splits the body: the servers pane gets one row per server
// (plus its column header and border) up to a third of the body; without
// servers, the rows for the warnings that say where they went
// (noServersView).
func (m *Model) paneHeights() (servers, detail int) {
	body := m.bodyHeight()
	want := m.serverCount() + 3
	if m.serverCount() == 0 {
		want += 3 * len(m.c.loudFile)
	}
	servers = min(max(want, 4), max(body/3, 6))
	return servers, max(body-servers, 4)
}

// render draws the whole screen; only View calls it.
func (m *Model) render() string {
	if m.width == 0 || m.height == 0 {
		return ""
	}
	if m.width < minWidth || m.height < minHeight {
		return m.tooSmall()
	}
	var body string
	if m.modal != nil {
		body = lipgloss.Place(m.width, m.bodyHeight(), lipgloss.Center, lipgloss.Center, m.modal.View())
	} else {
		sh, dh := m.paneHeights()
		servers := m.paneStyle(focusServers).Width(m.width - 2).Height(sh - 2).Render(clip(m.serversView(m.width-2, sh-2), sh-2))
		detail := m.paneStyle(focusDetail).Width(m.width - 2).Height(dh - 2).Render(clip(m.detailView(m.width-2, dh-2), dh-2))
		body = servers + "\n" + detail
	}
	rows := append([]string{m.header(), body}, m.statusRows()...)
	return strings.Join(append(rows, m.helpBar()), "\n")
}

// clip keeps the first h lines of s: a pane never grows its box, so no
// frame is ever taller than the terminal, whatever a pane drew.
func clip(s string, h int) string {
	if h < 1 {
		return ""
	}
	i, n := 0, 0
	for ; i < len(s); i++ {
		if s[i] == '\n' {
			n++
			if n == h {
				return s[:i]
			}
		}
	}
	return s
}

func (m *Model) paneStyle(f focusArea) lipgloss.Style {
	if m.focus == f {
		return m.c.st.PaneFocused
	}
	return m.c.st.Pane
}

func (m *Model) tooSmall() string {
	st := m.c.st
	msg := st.Warning.Render("Terminal too small") + "\n" +
		st.Text.Render(fmt.Sprintf("mcpdeck needs %d×%d; this one is %d×%d.", minWidth, minHeight, m.width, m.height)) + "\n" +
		st.Dim.Render("Enlarge the window, or press q to quit.")
	return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, msg)
}

// header: the MCP badge, counts and the configuration sources.
func (m *Model) header() string {
	st := m.c.st
	s := m.c.snap
	badge := st.MCPOff.Render(" ○ MCP OFF ")
	var ready, total, tools, outstanding int
	var dropped uint64
	if s != nil {
		if s.Enabled {
			badge = st.MCPOn.Render(" ● MCP ON ")
		}
		ready, total, tools, _ = s.Counts()
		dropped = s.DroppedEvents
	}
	outstanding = len(m.c.reqs)
	dropped += m.c.notes.dropped()
	parts := []string{
		fmt.Sprintf("servers %d/%d ready", ready, total),
		fmt.Sprintf("tools %d", tools),
		fmt.Sprintf("requests %d", outstanding),
	}
	if gw := m.c.gw; gw != nil {
		clients := fmt.Sprintf("clients %d", len(gw.clients))
		// Where the gateway listens, when the header has room for it
		// beside the rest; the Clients tab always says.
		if at := clients + " @ " + gw.hostPort(); lipgloss.Width(strings.Join(parts, " · "))+lipgloss.Width(at)+30 < m.width {
			clients = at
		}
		parts = append(parts, clients)
	}
	if b := m.replayBadge(); b != "" {
		badge = b + " " + badge
	}
	line := badge + " " + st.Text.Render(strings.Join(parts, " · "))
	if b := m.recordBadge(); b != "" {
		line += " " + b
	}
	if dropped > 0 {
		line += st.Dim.Render(" · ") + st.Warning.Render(fmt.Sprintf("dropped %d", dropped))
	}
	if src := m.sources(); src != "" {
		room := m.width - lipgloss.Width(line) - 3
		if room > 8 {
			line += st.Faint.Render(" │ ") + st.Dim.Render(present.Truncate(src, room))
		}
	}
	return padRight(line, m.width)
}

// sources names the configuration files by their last two path elements:
// enough to tell ~/.config/mcpdeck/mcp.json from proj/.mcp.json.
func (m *Model) sources() string {
	src := m.opts.Sources
	if len(src) == 0 && m.c.snap != nil {
		src = m.c.snap.Sources
	}
	short := make([]string, 0, len(src))
	for _, p := range src {
		dir, file := filepath.Split(filepath.Clean(p))
		if d := filepath.Base(dir); d != "." && d != string(filepath.Separator) {
			file = d + "/" + file
		}
		short = append(short, file)
	}
	return strings.Join(short, ", ")
}

// statusRows is the status line: the filter being typed, the last status
// message, or what to do next. A long message wraps at word boundaries
// onto a second row, and what does not fit that is cut at a word too.
func (m *Model) statusRows() []string {
	st := m.c.st
	if m.width <= 0 {
		return []string{""}
	}
	if m.filtering {
		return []string{padRight(lineView(m.activeTab().Filter(), m.width-1), m.width)}
	}
	msg, style := m.status, st.Status
	switch m.statusKind {
	case statusWarn:
		style = st.Warning
	case statusError:
		style = st.Error
	}
	switch {
	case msg != "" || m.c.snap == nil || m.c.snap.Enabled:
	case m.c.replay:
		msg, style = replayMCPOff, st.Dim
	default:
		msg, style = "MCP is off: nothing runs until you press m", st.Dim
	}
	lines := present.Wrap(msg, m.width)
	if len(lines) > maxStatusRows {
		rest := strings.Join(lines[maxStatusRows-1:], " ")
		lines = append(lines[:maxStatusRows-1], present.TruncateWords(rest, m.width))
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = padRight(style.Render(l), m.width)
	}
	return out
}

func (m *Model) helpBar() string {
	m.help.Width = m.width
	return padRight(m.help.ShortHelpView(onceEach(m.shortHelp())), m.width)
}

// onceEach keeps the first of bindings that read the same in the help bar:
// a modal lists its important keys first, for narrow bars, and may list
// them again among the keys it shares.
func onceEach(bs []key.Binding) []key.Binding {
	seen := make(map[key.Help]bool, len(bs))
	out := bs[:0:0]
	for _, b := range bs {
		if h := b.Help(); !seen[h] {
			seen[h] = true
			out = append(out, b)
		}
	}
	return out
}

// detailView is the tab bar plus the active tab.
func (m *Model) detailView(w, h int) string {
	st := m.c.st
	// Nine tabs do not fit an 80-column terminal: tighten the separators
	// first, then shorten the titles of the tabs not shown, rather than
	// cut the last tab off.
	sep := " │ "
	titles, width := m.tabTitles(false)
	if width+3*(len(titles)-1)+1 > w {
		sep = " "
	}
	if width+len(titles) > w {
		titles, width = m.tabTitles(true)
	}
	if width+len(titles) > w {
		titles, _ = m.tinyTabTitles()
	}
	var tabs []string
	for i, title := range titles {
		if i == m.active {
			tabs = append(tabs, st.TabActive.Render(title))
		} else {
			tabs = append(tabs, st.TabInactive.Render(title))
		}
	}
	bar := strings.Join(tabs, st.Faint.Render(sep))
	if m.focus == focusDetail {
		bar = st.Accent.Render("▸") + bar // focus shows without colour too
	} else {
		bar = " " + bar
	}
	if m.c.server != "" {
		name := st.Dim.Render(present.Truncate(present.Line(m.c.server), 20))
		if gap := w - lipgloss.Width(bar) - lipgloss.Width(name); gap >= 2 {
			bar += strings.Repeat(" ", gap) + name
		}
	}
	return padRight(bar, w) + "\n" + m.activeTab().View()
}

// shortTitles name the tabs on narrow terminals, where the active tab
// alone keeps its full title.
var shortTitles = [...]string{"Ovw", "Tools", "Reqs", "Notes", "Logs", "Traf", "Check", "Res", "Prompts", "Cli"}

// tinyTitles are the last resort, when ten tabs (Clients too) do not fit
// with the short titles.
var tinyTitles = [...]string{"Ovw", "Tool", "Req", "Note", "Log", "Traf", "Chk", "Res", "Prm", "Cli"}

// tabTitles are the tab bar's titles and their width. The active tab is
// marked in text as well as colour, for NO_COLOR terminals and screen
// readers.
func (m *Model) tabTitles(short bool) ([]string, int) {
	names := shortTitles[:]
	if !short {
		names = nil
	}
	return m.titlesFrom(names)
}

// tinyTabTitles are tabTitles with the tiniest names.
func (m *Model) tinyTabTitles() ([]string, int) { return m.titlesFrom(tinyTitles[:]) }

// titlesFrom names the tabs other than the active one from names (their
// own titles when nil), each with the digit that jumps to it.
func (m *Model) titlesFrom(names []string) ([]string, int) {
	out := make([]string, len(m.tabs))
	width := 0
	for i, t := range m.tabs {
		name := t.Title()
		if i != m.active && i < len(names) {
			name = names[i]
		}
		out[i] = fmt.Sprintf("%d %s", (i+1)%10, name)
		if i == m.active {
			out[i] = "[" + out[i] + "]"
		}
		width += lipgloss.Width(out[i])
	}
	return out, width
}
