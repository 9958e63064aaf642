package ui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/ui/present"
	"mcpdeck/ui/styles"
)

// overviewTab is everything known about the selected server: identity,
// protocol, capabilities, process and the last error with its hint.
type overviewTab struct {
	base
	top int
}

func newOverviewTab(c *common) *overviewTab { return &overviewTab{base: base{c: c}} }

func (t *overviewTab) Title() string { return "Overview" }

func (t *overviewTab) ShortHelp() []key.Binding {
	k := t.c.keys
	return []key.Binding{k.Up, k.Down, k.ToggleServer, k.Reconnect}
}

func (t *overviewTab) ServerChanged() { t.top = 0 }

func (t *overviewTab) Update(msg tea.KeyMsg) tea.Cmd {
	n := len(t.lines())
	cur := cursor{sel: t.top}
	if navKeys(t.c, msg, &cur, max(n-t.h+1, 1), t.h) {
		t.top = cur.sel
	}
	return nil
}

func (t *overviewTab) lines() []string {
	st := t.c.st
	srv, ok := t.c.selected()
	if !ok {
		return []string{st.Dim.Render("No server selected.")}
	}
	now := t.c.now()
	var out []string
	kv := func(k, v string) {
		out = append(out, st.Label.Render(fmt.Sprintf("%-13s", k))+v)
	}
	// warn is a warning under label k, wrapped to the tab's width.
	warn := func(k, text string) {
		for i, l := range wrap(text, t.w-15) {
			if i > 0 {
				k = ""
			}
			kv(k, st.Warning.Render(l))
		}
	}
	word := t.c.stateWord(srv)
	state := st.State(srv.State).Render(word)
	switch {
	case t.c.invalidText(srv) != "":
		state = st.Error.Render("invalid") + st.Faint.Render("  (never started: fix its configuration and press r)")
	case !srv.Enabled:
		state += st.Faint.Render("  " + t.c.offText(srv))
	case word == wordMCPOff && t.c.replay:
		state += st.Faint.Render("  (" + replayMCPOff + ")")
	case word == wordMCPOff:
		state += st.Faint.Render("  (enabled: it starts when MCP is switched on with m)")
	case word == wordNotStarted && srv.Note == "":
		state += st.Faint.Render("  (enabled, not started yet)")
	}
	if srv.State.Live() {
		state += st.Dim.Render("  up " + present.Age(srv.Uptime(now)))
	}
	kv("state", state)
	if srv.State == runtime.StateNeedsLogin {
		for _, l := range wrap(needsLoginText(srv), t.w-15) {
			kv("login", st.Warning.Render(l))
		}
	}
	switch {
	case srv.State.Live() && srv.LastError != nil:
		// An earlier failure it recovered from: history, not a state,
		// and no hint to act on.
		kv("recovered", st.Faint.Render(present.Line(srv.LastError.Message)+t.ago(srv.LastError.At)))
	case !srv.State.Live() && (srv.LastError != nil || srv.State == runtime.StateFailed):
		out = append(out, t.errorLines(srv)...)
	}
	if note := t.c.note(srv); note != "" {
		warn("note", note)
	}
	for _, d := range t.c.loud[srv.Name] {
		// The Overview is the server's own; the place comes last, after
		// what to do, since a long path wraps.
		pos := d.Pos.String()
		d.Server, d.Pos = "", config.Position{}
		warn("warning", present.Line(d.String()+" (at "+pos+")"))
	}
	if srv.ServerInfo.Name != "" {
		info := srv.ServerInfo.Name + " " + srv.ServerInfo.Version
		if srv.ServerInfo.Title != "" {
			info += " (" + srv.ServerInfo.Title + ")"
		}
		kv("server", present.Line(info))
	}
	if srv.ProtocolVersion != "" {
		// The era, how it was decided, and why in the server's own terms,
		// wrapped: a switched or remembered era's reason runs long.
		proto := strings.TrimPrefix(srv.Era.String()+" ", "unknown ") + srv.ProtocolVersion + suffixIf(" · ", present.EraDecision(srv.EraDecision))
		kv("protocol", present.Line(proto))
		if srv.EraReason != "" {
			label := "era reason"
			for _, l := range wrap(present.Line(srv.EraReason), t.w-15) {
				kv(label, st.Faint.Render(l))
				label = ""
			}
		}
	}
	if l := srv.Listen; l != nil {
		kv("listen", l.State+" · "+runtime.FilterString(l.Granted)+st.Faint.Render(present.Line(suffixIf(" · ", l.Err))))
	}
	for _, d := range srv.DroppedTools {
		kv("dropped", st.Warning.Render(present.Line(d.Name+": "+d.Reason)))
	}
	if caps := capabilityList(srv.Capabilities); caps != "" {
		kv("capabilities", caps)
	}
	if t.c.invalidText(srv) != "" {
		if srv.Source != "" {
			kv("config", present.Line(srv.Source))
		}
		return out // nothing else about it can be trusted
	}
	kv("transport", srv.Transport.String())
	if srv.Transport == "stdio" {
		kv("command", present.Line(srv.Target))
	} else {
		kv("url", present.Line(srv.Target))
	}
	if srv.PID > 0 {
		kv("pid", fmt.Sprint(srv.PID))
	}
	if srv.Fallback != "" {
		kv("fallback", present.Line(srv.Fallback))
	}
	if srv.Source != "" {
		kv("config", present.Line(srv.Source)+st.Faint.Render(" ("+srv.Scope.String()+")"))
	}
	if a := t.authLine(srv); a != "" {
		kv("auth", a)
	}
	t.primitiveLines(srv, kv)
	if srv.State.Live() {
		p := srv.Ping
		kv("ping", fmt.Sprintf("last %s · avg %s · p95 %s · missed %d", present.Latency(p.Last), present.Latency(p.EWMA), present.Latency(p.P95), p.Missed))
		kv("offers", present.Count(len(srv.Tools), "tool", "tools")+" · "+present.Count(len(srv.Prompts), "prompt", "prompts")+" · "+present.Count(len(srv.Resources), "resource", "resources")+" · "+present.Count(len(srv.Templates), "template", "templates"))
		if srv.ToolCost.Bytes > 0 {
			kv("tool cost", toolCostLine(st, srv))
		}
	}
	cn := srv.Counters
	kv("counters", strings.Join([]string{
		counted(cn.Calls, "call", "calls"), counted(cn.Errors, "error", "errors"), counted(cn.Notifications, "notification", "notifications"),
		counted(cn.DroppedEvents, "dropped", "dropped"), counted(cn.LateResponses, "late", "late"), counted(cn.NoiseLines, "noise", "noise"),
	}, " · "))
	if srv.Restarts > 0 || srv.Attempts > 0 {
		r := present.Count(srv.Restarts, "restart", "restarts")
		if !srv.NextRetry.IsZero() {
			r += fmt.Sprintf(" · retry %d in %s", srv.Attempts+1, present.Age(srv.NextRetry.Sub(now)))
		}
		kv("restarts", r)
	}
	if srv.Instructions != "" {
		out = append(out, st.Label.Render("instructions"))
		for _, l := range wrap(present.Block(srv.Instructions), t.w-2) {
			out = append(out, "  "+l)
		}
	}
	return out
}

// errorLines shows what failed, where, and what to do.
func (t *overviewTab) errorLines(srv runtime.ServerSnapshot) []string {
	st := t.c.st
	var out []string
	msg := srv.Reason
	if msg == "" {
		msg = "failed; the runtime gave no reason (see the Logs tab)"
	}
	where := ""
	hint := ""
	if e := srv.LastError; e != nil {
		msg = e.Message
		if e.Method != "" {
			where = " during " + e.Method
		}
		if e.Code != 0 {
			where += fmt.Sprintf(" (code %d)", e.Code)
		}
		where += t.ago(e.At)
		hint = present.Hint(e, present.TUI)
	}
	for i, l := range wrap(present.Line("✗ "+msg+where), t.w-15) {
		lead := strings.Repeat(" ", 13)
		if i == 0 {
			lead = st.Label.Render(fmt.Sprintf("%-13s", "error"))
		}
		out = append(out, lead+st.Error.Render(l))
	}
	if hint != "" {
		for i, l := range wrap(present.Line(hint), t.w-15) {
			lead := "             "
			if i == 0 {
				lead = st.Label.Render(fmt.Sprintf("%-13s", "hint"))
			}
			out = append(out, lead+st.Warning.Render(l))
		}
	}
	switch {
	case srv.GaveUp:
		out = append(out, strings.Repeat(" ", 13)+st.Warning.Render(fmt.Sprintf("gave up reconnecting after %s: press R to try again",
			present.Count(srv.Attempts, "attempt", "attempts"))))
	case srv.Reconnectable:
		out = append(out, strings.Repeat(" ", 13)+st.Dim.Render("press R to reconnect"))
	}
	return out
}

// ago is ", 3m ago" for a moment, "" when unknown.
func (t *overviewTab) ago(at time.Time) string {
	if at.IsZero() {
		return ""
	}
	return ", " + present.Age(t.c.now().Sub(at)) + " ago"
}

func (t *overviewTab) View() string {
	lines := t.lines()
	top := min(t.top, max(len(lines)-t.h, 0))
	rows := make([]string, 0, t.h)
	for _, l := range lines[top:] {
		rows = append(rows, padRight(l, t.w))
	}
	return t.fill(rows)
}

// capabilityList names the declared capabilities and their flags:
// "logging, tools(listChanged), resources(subscribe)".
func capabilityList(raw []byte) string {
	var caps map[string]map[string]any
	if len(raw) == 0 || jsonUnmarshal(raw, &caps) != nil {
		return ""
	}
	names := make([]string, 0, len(caps))
	for name, flags := range caps {
		var on []string
		for f, v := range flags {
			if b, ok := v.(bool); ok && b {
				on = append(on, f)
			}
		}
		sort.Strings(on)
		if len(on) > 0 {
			name += "(" + strings.Join(on, ",") + ")"
		}
		names = append(names, name)
	}
	sort.Strings(names)
	return present.Line(strings.Join(names, ", "))
}

// wrap breaks text into lines of at most width cells.
func wrap(text string, width int) []string {
	if width < 10 {
		width = 10
	}
	return strings.Split(lipgloss.NewStyle().Width(width).Render(text), "\n")
}

// toolCostLine is what the server's tools cost an agent's context, all of
// them and after the switches, with how many are off and changed.
func toolCostLine(st styles.Styles, srv runtime.ServerSnapshot) string {
	off, changed := 0, 0
	for _, t := range srv.Tools {
		if t.Disabled {
			off++
		}
		if t.Changed != nil {
			changed++
		}
	}
	line := present.ToolCost(srv.ToolCost)
	if off > 0 {
		line += " · " + present.ToolCost(srv.ToolCostOn) + " after switches (" + present.Count(off, "tool", "tools") + " off)"
	}
	if changed > 0 {
		line += " · " + st.Warning.Render(present.Count(changed, "tool", "tools")+" changed since approved (Tools tab)")
	}
	return line
}

// suffixIf returns sep+s, or "" when s is empty.
func suffixIf(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}

// counted is present.Count for a counter.
func counted(n uint64, one, many string) string { return present.Count(int(n), one, many) }

// primitiveLines are the overview's lines about what a person chose for
// the server: the log level in force, the roots it is offered, the
// resources subscribed to.
func (t *overviewTab) primitiveLines(srv runtime.ServerSnapshot, kv func(k, v string)) {
	st := t.c.st
	if strings.Contains(string(srv.Capabilities), `"logging"`) || srv.LogLevel != "" {
		kv("log level", present.OrDash(present.Line(srv.LogLevel))+st.Faint.Render("  (L changes it)"))
	}
	if len(srv.Roots) == 0 {
		kv("roots", st.Dim.Render("none offered: the roots capability is not declared")+st.Faint.Render("  (o adds some)"))
	} else {
		for i, r := range srv.Roots {
			label := ""
			if i == 0 {
				label = "roots"
			}
			v := present.Line(rootPath(r))
			if i == len(srv.Roots)-1 {
				v += st.Faint.Render("  (o edits them)")
			}
			kv(label, v)
		}
	}
	if n := len(srv.Subscriptions); n > 0 {
		kv("subscribed", present.Line(strings.Join(srv.Subscriptions, ", ")))
	}
}
