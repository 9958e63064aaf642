package ui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/ui/present"
	"mcpdeck/ui/styles"

	"github.com/charmbracelet/x/ansi"
)

// Column widths of the servers pane; name, sparkline and the trailing
// target share what is left.
const (
	colTransport = 5
	colState     = 12
	colLatency   = 6
	colUptime    = 7
	colRestarts  = 3
	colTools     = 5
	colReqs      = 4
)

// noServersView is the servers pane without servers: what to do, and the
// configuration's warnings that say where the servers went (a server
// written outside "mcpServers"), wrapped into the rows there are.
func (m *Model) noServersView(w, h int) string {
	st := m.c.st
	lines := []string{st.Dim.Render("No servers configured: add one to mcp.json and press r.")}
	for _, d := range m.c.loudFile {
		for _, l := range wrap(present.Line("warning: "+d.String()), w) {
			lines = append(lines, st.Warning.Render(l))
		}
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	lines = lines[:max(h, 1)]
	for i, l := range lines {
		lines[i] = padRight(l, w)
	}
	return strings.Join(lines, "\n")
}

// serversView is the servers pane: a column header and one row per server.
// When the list is longer than the pane it scrolls with the selection, and
// the last row says how many servers are above and below.
func (m *Model) serversView(w, h int) string {
	st := m.c.st
	s := m.c.snap
	if s == nil || len(s.Servers) == 0 {
		return m.noServersView(w, h)
	}
	nameW, sparkW, targetW := serverColumns(s.Servers, w)

	rows := make([]string, 0, h)
	// The marker and icon columns, then the cells as in every row.
	head := "   " + serverCells(nameW, sparkW, "SERVER", "VIA", "STATE", "PING", "", "UPTIME", "↻", "TOOLS", "REQS")
	if targetW > 0 {
		head += "  " + "TARGET"
	}
	if m.focus == focusServers {
		head = "▸" + head[1:] // focus shows without colour too
	}
	rows = append(rows, st.ColumnHead.Render(padRight(head, w)))

	reqs := map[string]int{}
	for _, r := range m.c.reqs {
		reqs[r.Server]++
	}
	n := len(s.Servers)
	room := h - 1
	if n > room {
		room = max(room-1, 1) // the last row counts the hidden servers
	}
	sel, top := m.servers.window(n, room)
	now := m.c.now()
	for i := top; i < n && i < top+room; i++ {
		srv := s.Servers[i]
		rows = append(rows, m.serverRow(srv, i == sel, reqs[srv.Name], now, w, nameW, sparkW, targetW))
	}
	if hidden := n - room; hidden > 0 {
		above, below := top, n-top-room
		rows = append(rows, st.Dim.Render(padRight(fmt.Sprintf("   %s hidden: %d above, %d below (↑/↓ scroll)",
			present.Count(hidden, "server", "servers"), above, below), w)))
	}
	for len(rows) < h {
		rows = append(rows, strings.Repeat(" ", w))
	}
	return strings.Join(rows, "\n")
}

// serverColumns shares the width the fixed columns leave: names first (a
// cut name is a wrong name), then the sparkline, then the target.
func serverColumns(servers []runtime.ServerSnapshot, w int) (nameW, sparkW, targetW int) {
	// The marker and icon, and the columns with the space before each.
	fixed := 3 + 1 + 1 + colTransport + 1 + colState + 1 + colLatency + 1 + 1 + colUptime + 1 + colRestarts + 1 + colTools + 1 + colReqs
	rest := max(w-fixed, 0)
	longest := len("SERVER")
	for _, srv := range servers {
		longest = max(longest, ansi.StringWidth(srv.Name))
	}
	nameW = min(longest, maxNameWidth, max(rest, len("SERVER")))
	sparkW = min(max(rest-nameW, 0), maxSparkWidth)
	targetW = max(rest-nameW-sparkW-2, 0) // after two spaces
	return nameW, sparkW, targetW
}

// The widest a name and a sparkline get; the target takes what is left.
const (
	maxNameWidth  = 32
	maxSparkWidth = 24
)

func (m *Model) serverRow(srv runtime.ServerSnapshot, selected bool, reqs int, now time.Time, w, nameW, sparkW, targetW int) string {
	st := m.c.st
	state := m.c.stateWord(srv)
	latency, spark, uptime := "—", "", "—"
	if srv.State.Live() {
		latency = present.Millis(srv.Ping.Last)
		spark = sparkline(srv.Ping.Recent, sparkW)
		if !srv.StartedAt.IsZero() {
			uptime = present.Age(srv.Uptime(now))
		}
	}
	tools := "—"
	switch {
	case srv.HeldBack:
		tools = "…" // listed, published with the servers switched on with it
	case srv.State.Live():
		tools = fmt.Sprint(len(srv.Tools))
	}
	target, compact := srv.Target, srv.Transport == config.TransportStdio
	if invalid := m.c.invalidText(srv); invalid != "" {
		target = invalid
	} else if srv.State == runtime.StateFailed && srv.Reason != "" {
		target = srv.Reason
	} else if note := m.c.note(srv); note != "" {
		target = note
	}
	compact = compact && target == srv.Target
	restarts := ""
	if srv.Restarts > 0 {
		restarts = fmt.Sprint(srv.Restarts)
	}
	reqText := ""
	if reqs > 0 {
		reqText = fmt.Sprint(reqs)
	}
	marker := "  "
	if selected {
		marker = "› "
	}
	stStyle := st.State(srv.State)
	icon := styles.StateIcon(srv.State)
	if m.c.invalidText(srv) != "" {
		stStyle, icon = st.Error, styles.InvalidIcon
	}
	text := serverCells(nameW, sparkW, present.Line(srv.Name), srv.Transport.String(), state, latency, spark, uptime, restarts, tools, reqText)
	if targetW > 0 && compact {
		text += "  " + present.CompactCommandLine(present.Line(target), targetW)
	} else if targetW > 0 {
		text += "  " + present.Truncate(present.Line(target), targetW)
	}
	row := marker + icon + text
	switch {
	case selected:
		return st.Selected.Render(padRight(row, w))
	case m.c.invalidText(srv) != "" || srv.State == runtime.StateFailed:
		return st.Error.Render(padRight(row, w))
	case !srv.Enabled || srv.State == runtime.StateDisabled || srv.State == runtime.StateStopped:
		return st.Faint.Render(padRight(row, w))
	}
	// Only the icon and state carry colour on a healthy row; the rest stays
	// readable text.
	return marker + stStyle.Render(icon) + padRight(text, w-3)
}

// serverCells lays out one row's cells (or the heading's) after the
// marker and icon: a space, then each cell padded to its column, text
// left-aligned and numbers right-aligned. Widths are counted in terminal
// cells, not bytes: "—", "↻" and the sparkline are several bytes each, and
// fmt's widths would shift every column after them.
func serverCells(nameW, sparkW int, name, via, state, ping, spark, uptime, restarts, tools, reqs string) string {
	cells := []string{
		cellLeft(name, nameW), cellLeft(via, colTransport), cellLeft(state, colState), cellRight(ping, colLatency),
		cellLeft(spark, sparkW), cellRight(uptime, colUptime), cellRight(restarts, colRestarts),
		cellRight(tools, colTools), cellRight(reqs, colReqs),
	}
	return " " + strings.Join(cells, " ")
}

// cellLeft is s in w cells, left-aligned, cut with "…" when wider.
func cellLeft(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return padRight(s, w)
}

// cellRight is s in w cells, right-aligned, cut with "…" when wider.
func cellRight(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = present.Truncate(s, w)
	return strings.Repeat(" ", w-ansi.StringWidth(s)) + s
}

var sparkLevels = []rune("▁▂▃▄▅▆▇█")

// sparkline draws the most recent pings that fit in width cells, scaled to
// the largest of them.
func sparkline(d []time.Duration, width int) string {
	v := make([]float64, len(d))
	for i, x := range d {
		v[i] = float64(x)
	}
	return sparkValues(v, width)
}

// sparkValues is sparkline for values with gaps: NaN draws a blank (the
// fleet view's history, where a scrape found no health check).
func sparkValues(v []float64, width int) string {
	if width <= 0 || len(v) == 0 {
		return ""
	}
	if len(v) > width {
		v = v[len(v)-width:]
	}
	var hi float64
	for _, x := range v {
		if !math.IsNaN(x) {
			hi = max(hi, x)
		}
	}
	out := make([]rune, len(v))
	for i, x := range v {
		if math.IsNaN(x) {
			out[i] = ' '
			continue
		}
		lvl := 0
		if hi > 0 {
			lvl = int(x / hi * float64(len(sparkLevels)-1))
		}
		out[i] = sparkLevels[lvl]
	}
	return string(out)
}
