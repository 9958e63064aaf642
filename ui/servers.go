package ui

import (
	"fmt"
	"strings"
	"time"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
	"mcpdeck/ui/styles"
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

// serversView is the servers pane: a column header and one row per server.
func (m *Model) serversView(w, h int) string {
	st := m.c.st
	s := m.c.snap
	if s == nil || len(s.Servers) == 0 {
		return padRight(st.Dim.Render("No servers configured: add one to mcp.json and press r."), w) + strings.Repeat("\n", max(h-1, 0))
	}
	fixed := 3 + colTransport + 1 + colState + 1 + colLatency + 1 + colUptime + 1 + colRestarts + 1 + colTools + 1 + colReqs + 1
	rest := w - fixed
	nameW := min(max(rest/3, 10), 20)
	sparkW := min(max(rest-nameW-2, 0), 24)
	targetW := max(rest-nameW-sparkW-2, 0)

	rows := make([]string, 0, h)
	head := fmt.Sprintf("   %-*s %-*s %-*s %*s %-*s %*s %*s %*s %*s",
		nameW, "SERVER", colTransport, "VIA", colState, "STATE", colLatency, "PING", sparkW, "", colUptime, "UPTIME", colRestarts, "↻", colTools, "TOOLS", colReqs, "REQS")
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
	sel, top := m.servers.window(len(s.Servers), h-1)
	now := m.c.now()
	for i := top; i < len(s.Servers) && len(rows) < h; i++ {
		srv := s.Servers[i]
		rows = append(rows, m.serverRow(srv, i == sel, reqs[srv.Name], now, w, nameW, sparkW, targetW))
	}
	for len(rows) < h {
		rows = append(rows, strings.Repeat(" ", w))
	}
	return strings.Join(rows, "\n")
}

func (m *Model) serverRow(srv runtime.ServerSnapshot, selected bool, reqs int, now time.Time, w, nameW, sparkW, targetW int) string {
	st := m.c.st
	state := srv.State.String()
	if !srv.Enabled {
		state = "off"
	}
	latency, spark, uptime := "—", "", "—"
	if srv.State.Live() {
		if srv.Ping.Last > 0 {
			latency = present.Latency(srv.Ping.Last)
		}
		spark = sparkline(srv.Ping.Recent, sparkW)
		if !srv.StartedAt.IsZero() {
			uptime = present.Age(srv.Uptime(now))
		}
	}
	tools := "—"
	if srv.State.Live() {
		tools = fmt.Sprint(len(srv.Tools))
	}
	target := srv.Target
	if srv.State == runtime.StateFailed && srv.Reason != "" {
		target = srv.Reason
	} else if srv.Note != "" {
		target = srv.Note
	}
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
	text := fmt.Sprintf(" %-*s %-*s %-*s %*s %-*s %*s %*s %*s %*s",
		nameW, present.Truncate(srv.Name, nameW), colTransport, srv.Transport, colState, state, colLatency, latency,
		sparkW, spark, colUptime, uptime, colRestarts, restarts, colTools, tools, colReqs, reqText)
	if targetW > 0 {
		text += "  " + present.Truncate(present.Line(target), targetW)
	}
	row := marker + icon + text
	switch {
	case selected:
		return st.Selected.Render(padRight(row, w))
	case !srv.Enabled || srv.State == runtime.StateDisabled || srv.State == runtime.StateStopped:
		return st.Faint.Render(padRight(row, w))
	case srv.State == runtime.StateFailed:
		return st.Error.Render(padRight(row, w))
	}
	// Only the icon and state carry colour on a healthy row; the rest stays
	// readable text.
	return marker + stStyle.Render(icon) + padRight(text, w-3)
}

var sparkLevels = []rune("▁▂▃▄▅▆▇█")

// sparkline draws the most recent pings that fit in width cells, scaled to
// the largest of them.
func sparkline(d []time.Duration, width int) string {
	if width <= 0 || len(d) == 0 {
		return ""
	}
	if len(d) > width {
		d = d[len(d)-width:]
	}
	var hi time.Duration
	for _, v := range d {
		hi = max(hi, v)
	}
	out := make([]rune, len(d))
	for i, v := range d {
		lvl := 0
		if hi > 0 {
			lvl = int(float64(v) / float64(hi) * float64(len(sparkLevels)-1))
		}
		out[i] = sparkLevels[lvl]
	}
	return string(out)
}
