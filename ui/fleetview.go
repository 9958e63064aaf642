package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"mcpdeck/runtime"
	"mcpdeck/runtime/fleet"
	"mcpdeck/ui/present"
	"mcpdeck/ui/styles"
)

// fleetDetailRows is the inside of the detail pane: the selected server.
const fleetDetailRows = 4

// paneHeights splits the body between the list and the detail panes,
// borders included.
func (m *fleetModel) paneHeights() (list, detail int) {
	body := max(m.height-3, 1) // header, status line, help bar
	detail = fleetDetailRows + 2
	if m.showHelp {
		detail = max(body/2, detail)
	}
	return max(body-detail, 3), detail
}

// listRows is how many rows of hosts and servers the list pane shows.
func (m *fleetModel) listRows() int {
	l, _ := m.paneHeights()
	return max(l-3, 1) // border and column head
}

func (m *fleetModel) render() string {
	if m.width == 0 || m.height == 0 {
		return ""
	}
	st := m.st
	if m.width < minWidth || m.height < minHeight {
		msg := st.Warning.Render("Terminal too small") + "\n" +
			st.Text.Render(fmt.Sprintf("mcpdeck fleet needs %d×%d; this one is %d×%d.", minWidth, minHeight, m.width, m.height)) + "\n" +
			st.Dim.Render("Enlarge the window, or press q to quit.")
		return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, msg)
	}
	lh, dh := m.paneHeights()
	inner := m.width - 2
	list := st.PaneFocused.Width(inner).Height(lh - 2).Render(clip(m.listView(inner, lh-2), lh-2))
	var detail string
	if m.showHelp {
		detail = m.helpView(inner, dh-2)
	} else {
		detail = m.detailView(inner, dh-2)
	}
	detail = st.Pane.Width(inner).Height(dh - 2).Render(clip(detail, dh-2))
	return strings.Join([]string{m.headerView(), list, detail, m.statusView(), m.helpBar()}, "\n")
}

// headerView: what is shown, from where, and how fresh.
func (m *fleetModel) headerView() string {
	st := m.st
	parts := []string{st.Accent.Render(" FLEET "), present.Line(m.opts.URL)}
	if v := m.view; v != nil {
		hosts, servers, ready := v.Counts()
		parts = append(parts, present.Count(hosts, "host", "hosts"), fmt.Sprintf("servers %d/%d ready", ready, servers),
			"at "+v.At.In(m.opts.Now().Location()).Format("15:04:05"))
	}
	if m.loading {
		parts = append(parts, "refreshing…")
	} else {
		parts = append(parts, "every "+m.opts.Every.String())
	}
	parts = append(parts, "read-only")
	return padRight(strings.Join(parts, st.Dim.Render(" · ")), m.width)
}

// fleetColumns shares the row's width: names first, then the sparkline
// (a third of what is left, at most maxSparkWidth), then the last error.
func fleetColumns(rows []fleetRow, w int) (nameW, sparkW, errW int) {
	fixed := 3 + 1 + 1 + colTransport + 1 + colState + 1 + colLatency + 1 + 1 + colRestarts + 1 + colReqs
	rest := max(w-fixed, 0)
	longest := len("SERVER")
	for _, r := range rows {
		if r.srv != nil {
			longest = max(longest, ansi.StringWidth(present.Line(r.srv.Name)))
		}
	}
	nameW = min(longest, maxNameWidth, max(rest/3, len("SERVER")))
	sparkW = min(max(rest-nameW, 0)/3, maxSparkWidth)
	errW = max(rest-nameW-sparkW-2, 0)
	return nameW, sparkW, errW
}

// fleetCells lays out a server row's cells (or the heading's) after the
// marker and icon, as serverCells does for the servers pane.
func fleetCells(nameW, sparkW int, name, via, state, ping, spark, restarts, reqs string) string {
	cells := []string{cellLeft(name, nameW), cellLeft(via, colTransport), cellLeft(state, colState), cellRight(ping, colLatency),
		cellLeft(spark, sparkW), cellRight(restarts, colRestarts), cellRight(reqs, colReqs)}
	return " " + strings.Join(cells, " ")
}

func (m *fleetModel) listView(w, h int) string {
	st := m.st
	switch {
	case m.view == nil && m.err != nil:
		return padRight(st.Error.Render("Prometheus did not answer: see below."), w)
	case m.view == nil:
		return padRight(st.Dim.Render("Asking Prometheus…"), w)
	case len(m.view.Hosts) == 0:
		return padRight(st.Dim.Render("Prometheus has no mcpdeck metrics: is it scraping `mcpdeck monitor --metrics ADDR` on each host?"), w)
	}
	rows := m.rows()
	if len(rows) == 0 {
		return padRight(st.Dim.Render("No server matches the filter. Press esc to clear it."), w)
	}
	nameW, sparkW, errW := fleetColumns(rows, w)
	head := "   " + fleetCells(nameW, sparkW, "SERVER", "VIA", "STATE", "PING", "", "↻", "REQS")
	if errW > 0 {
		head += "  LAST ERROR"
	}
	out := []string{st.ColumnHead.Render(padRight("▸"+head[1:], w))}

	room := h - 1
	sel, _ := m.cur.window(len(m.servers()), room)
	// The selected server's row in the list, and the top that shows it
	// with its host's heading when that fits.
	selRow, si := 0, 0
	for i, r := range rows {
		if r.srv != nil {
			if si == sel {
				selRow = i
			}
			si++
		}
	}
	top := 0
	if selRow >= room {
		top = selRow - room + 1
	}
	now := m.opts.Now()
	si = 0
	for i, r := range rows {
		isSel := false
		if r.srv != nil {
			isSel = si == sel
			si++
		}
		if i < top || i >= top+room {
			continue
		}
		if r.srv == nil {
			out = append(out, m.hostRow(r.host, w))
			continue
		}
		out = append(out, m.fleetServerRow(r.srv, isSel, now, w, nameW, sparkW, errW))
	}
	if hidden := len(rows) - room; hidden > 0 {
		out[len(out)-1] = st.Dim.Render(padRight(fmt.Sprintf("   %s hidden: %d above, %d below (↑/↓ scroll)",
			present.Count(hidden, "row", "rows"), top, max(len(rows)-top-room, 0)), w))
	}
	return strings.Join(out, "\n")
}

// hostRow is a host's heading: its name, scrape health and counts.
func (m *fleetModel) hostRow(h *fleet.Host, w int) string {
	st := m.st
	ready := 0
	for _, s := range h.Servers {
		if s.State == "ready" || s.State == "degraded" {
			ready++
		}
	}
	name := st.Bold.Render(present.Line(h.Name))
	counts := fmt.Sprintf("%d/%d ready", ready, len(h.Servers))
	switch {
	case h.Up == nil:
		return padRight(name+st.Dim.Render(" · no scrape health (no up series) · "+counts), w)
	case !*h.Up:
		return padRight(name+" "+st.Error.Render("· DOWN: Prometheus cannot scrape it; servers as last seen"), w)
	}
	return padRight(name+st.Dim.Render(" · up · "+counts), w)
}

// fleetState is a fleet state as the runtime's, for its icon and style;
// ok is false for a state the runtime does not have (unknown).
func fleetState(s string) (runtime.State, bool) {
	var st runtime.State
	if s == fleet.StateUnknown || st.UnmarshalText([]byte(s)) != nil {
		return 0, false
	}
	return st, true
}

func (m *fleetModel) fleetServerRow(s *fleet.Server, selected bool, now time.Time, w, nameW, sparkW, errW int) string {
	st := m.st
	state, known := fleetState(s.State)
	icon, stStyle := "?", st.Faint
	if known {
		icon, stStyle = styles.StateIcon(state), st.State(state)
	}
	ping := "—"
	if s.Ping > 0 {
		ping = present.Millis(s.Ping)
	}
	restarts, reqs := "", ""
	if s.Restarts > 0 {
		restarts = fmt.Sprint(s.Restarts)
	}
	if s.Outstanding > 0 {
		reqs = fmt.Sprint(s.Outstanding)
	}
	text := fleetCells(nameW, sparkW, present.Line(s.Name), present.Line(s.Transport), present.Line(present.StateWord(s.State)), ping,
		sparkValues(s.Pings, sparkW), restarts, reqs)
	if errW > 0 && s.LastError != nil {
		text += "  " + present.Truncate(present.Age(now.Sub(s.LastError.At))+" ago: "+present.Line(s.LastError.Message), errW)
	}
	marker := "  "
	if selected {
		marker = "› "
	}
	row := marker + icon + text
	switch {
	case selected:
		return st.Selected.Render(padRight(row, w))
	case s.State == "failed":
		return st.Error.Render(padRight(row, w))
	case !known:
		return st.Faint.Render(padRight(row, w))
	}
	return marker + stStyle.Render(icon) + padRight(text, w-3)
}

// detailView is the selected server in full: where it runs, its protocol,
// its last error unabridged, and its counters.
func (m *fleetModel) detailView(w, h int) string {
	st := m.st
	servers := m.servers()
	sel, _ := m.cur.window(len(servers), m.listRows())
	if sel < 0 {
		return padRight(st.Dim.Render("Select a server with ↑/↓ to see its details."), w)
	}
	s := servers[sel]
	proto := present.OrDash(s.ProtocolVersion)
	if s.Era != "" {
		proto += " (" + s.Era + ")"
	}
	lines := []string{
		st.Bold.Render(present.Line(s.Host)+" › "+present.Line(s.Name)) + st.Dim.Render("  "+present.Line(present.StateWord(s.State))+" · "+present.OrDash(present.Line(s.Transport))+" · protocol "+present.Line(proto)),
	}
	if e := s.LastError; e != nil {
		lines = append(lines, st.Error.Render("last error "+present.Age(m.opts.Now().Sub(e.At))+" ago ("+present.Line(e.Kind)+"): ")+present.Line(e.Message))
	} else {
		lines = append(lines, st.Dim.Render("no error reported"))
	}
	ping := "—"
	if s.Ping > 0 {
		ping = present.Latency(s.Ping)
	}
	lines = append(lines, st.Dim.Render(fmt.Sprintf("ping %s (mean over the window) · missed checks %.1f/min · restarts %d · reconnect attempts %d · outstanding %d",
		ping, s.MissedPerMinute, s.Restarts, s.Attempts, s.Outstanding)))
	out := make([]string, 0, h)
	for _, l := range lines {
		for _, part := range present.Wrap(l, w) {
			if len(out) < h {
				out = append(out, padRight(part, w))
			}
		}
	}
	return strings.Join(out, "\n")
}

// helpView lists every key the fleet view answers, and the filter's words.
func (m *fleetModel) helpView(w, h int) string {
	st := m.st
	var out []string
	for _, b := range m.bindings() {
		out = append(out, padRight(st.HelpKey.Render(fmt.Sprintf("%-12s", b.Help().Key))+st.HelpDesc.Render(b.Help().Desc), w))
	}
	out = append(out, padRight(st.Dim.Render("Filters: words match anywhere; host:x, server:x and state:x match those fields."), w),
		padRight(st.Dim.Render("The view changes nothing: m, space, R and the other keys that act on servers are refused."), w))
	if len(out) > h {
		out = out[:h]
	}
	return strings.Join(out, "\n")
}

// bindings are the keys the fleet view answers, in help order.
func (m *fleetModel) bindings() []key.Binding {
	k := m.keys
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Filter, k.ClearFilter, m.refresh, k.Help, k.Quit}
}

func (m *fleetModel) statusView() string {
	st := m.st
	switch {
	case m.filtering:
		return padRight(m.filter.View(), m.width)
	case m.err != nil:
		msg := "Prometheus: " + present.Line(m.err.Error())
		if m.view != nil {
			msg += " (showing the last answer)"
		}
		return st.Error.Render(padRight(msg, m.width))
	case m.status != "":
		return st.Warning.Render(padRight(present.Line(m.status), m.width))
	}
	return padRight(strings.TrimPrefix(filterNote(st, &m.filter), st.Dim.Render(" · ")), m.width)
}

func (m *fleetModel) helpBar() string {
	k := m.keys
	var bs []key.Binding
	switch {
	case m.filtering:
		bs = []key.Binding{k.ApplyFilter, k.ClearFilter}
	case m.filter.Value() != "":
		bs = []key.Binding{k.ClearFilter, k.Up, k.Down, k.Filter, m.refresh, k.Help, k.Quit}
	default:
		bs = []key.Binding{k.Up, k.Down, k.Filter, m.refresh, k.Help, k.Quit}
	}
	m.help.Width = m.width
	return padRight(m.help.ShortHelpView(bs), m.width)
}
