package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime/gateway"
	"mcpdeck/runtime/mcp"
	"mcpdeck/ui/keys"
	"mcpdeck/ui/present"
)

// clientsTab is the gateway's clients (--serve): where it listens and
// the token's fingerprint, every attached client (name, version, era,
// transport, since when, requests in flight and totals), and the
// selected one's requests in flight. D disconnects the selected client,
// y copies the token. It exists only while the session serves.
type clientsTab struct {
	base
	cur cursor
	// sel is the selected client's ID: the selection follows the client
	// as others come and go.
	sel string
}

func newClientsTab(c *common) *clientsTab { return &clientsTab{base: base{c: c}} }

func (t *clientsTab) Title() string { return "Clients" }

func (t *clientsTab) ShortHelp() []key.Binding {
	k := t.c.keys
	return []key.Binding{k.Up, k.Down, k.Disconnect, keys.Relabel(k.Copy, "copy the token")}
}

// DataChanged keeps the selection on the same client.
func (t *clientsTab) DataChanged() {
	for i, c := range t.clients() {
		if c.ID == t.sel {
			t.cur.sel = i
			return
		}
	}
	t.remember()
}

func (t *clientsTab) clients() []gateway.ClientInfo {
	if t.c.gw == nil {
		return nil
	}
	return t.c.gw.clients
}

// selected is the selected client.
func (t *clientsTab) selected() (gateway.ClientInfo, bool) {
	cls := t.clients()
	sel, _ := t.cur.window(len(cls), t.listRows())
	if sel < 0 {
		return gateway.ClientInfo{}, false
	}
	return cls[sel], true
}

// remember notes the client under the cursor.
func (t *clientsTab) remember() {
	t.sel = ""
	if c, ok := t.selected(); ok {
		t.sel = c.ID
	}
}

// listRows is the room for the client list: at most half the tab, the
// rest is the selected client's detail.
func (t *clientsTab) listRows() int { return max(min(len(t.clients()), (t.h-2)/2), 1) }

func (t *clientsTab) Update(msg tea.KeyMsg) tea.Cmd {
	k := t.c.keys
	switch {
	case key.Matches(msg, k.Disconnect):
		if c, ok := t.selected(); ok {
			return func() tea.Msg { return disconnectIntentMsg{client: c} }
		}
		return nil
	case key.Matches(msg, k.Copy):
		if gw := t.c.gw; gw != nil && gw.token != "" {
			token := gw.token
			return func() tea.Msg { return copyTextMsg{what: "gateway token", text: token} }
		}
		return nil
	}
	if navKeys(t.c, msg, &t.cur, len(t.clients()), t.listRows()) {
		t.remember()
	}
	return nil
}

func (t *clientsTab) View() string {
	gw := t.c.gw
	if gw == nil {
		return t.empty("This session serves no MCP clients: start mcpdeck with --serve ADDR.")
	}
	st := t.c.st
	cls := t.clients()
	head := present.Count(len(cls), "client", "clients") + " · " + gw.url + " · token " + gw.fingerprint + " (y copies)"
	rows := []string{padRight(st.Label.Render(head), t.w)}
	if len(cls) == 0 {
		rows = append(rows, padRight(st.Faint.Render("No client attached. Point one at the URL above with the header Authorization: Bearer TOKEN."), t.w))
		return t.fill(rows)
	}
	wide := t.w >= 110
	rows = append(rows, st.ColumnHead.Render(padRight(t.row(wide, "ID", "CLIENT", "VERSION", "ERA", "VIA", "SINCE", "NOW", "REQS", "ERRS"), t.w)))
	sel, top := t.cur.window(len(cls), t.listRows())
	now := t.c.now()
	for i := top; i < len(cls) && i < top+t.listRows(); i++ {
		c := cls[i]
		line := t.row(wide, c.ID, nameOf(c, wide), present.Line(c.Version), eraOf(c, wide), viaOf(c), present.Age(now.Sub(c.Since)),
			fmt.Sprint(len(c.InFlight)), fmt.Sprint(c.Totals.Requests), fmt.Sprint(c.Totals.Errors))
		if i == sel {
			rows = append(rows, st.Selected.Render(padRight("›"+line[1:], t.w)))
			continue
		}
		rows = append(rows, padRight(line, t.w))
	}
	if c, ok := t.selected(); ok {
		rows = append(rows, "")
		rows = append(rows, t.detail(c)...)
	}
	return t.fill(rows)
}

// row lays out one line of the client list; narrow terminals fold the
// version into the name.
func (t *clientsTab) row(wide bool, id, name, version, era, via, since, now, reqs, errs string) string {
	col := func(s string, w int) string { return padRight(present.Truncate(s, w), w) }
	if wide {
		return " " + col(id, 4) + " " + col(name, min(40, max(t.w-77, 24))) + " " + col(version, 10) + " " + col(era, 17) + " " + col(via, 14) + " " +
			fmt.Sprintf("%7s %4s %6s %5s", since, now, reqs, errs)
	}
	if version != "VERSION" && version != "" {
		name += " " + version
	}
	return " " + col(id, 4) + " " + col(name, 22) + " " + col(era, 6) + " " + col(via, 14) + " " +
		fmt.Sprintf("%6s %4s %5s %5s", since, now, reqs, errs)
}

// nameOf is a client's self-reported name (its title beside it when
// there is room), sanitised: it is whatever the client sent.
func nameOf(c gateway.ClientInfo, wide bool) string {
	name := present.Line(c.Name)
	if name == "" {
		name = "(not said yet)"
	}
	if wide && c.Title != "" && c.Title != c.Name {
		name += " · " + present.Line(c.Title)
	}
	return name
}

// eraOf is the client's era, with its revision when there is room.
func eraOf(c gateway.ClientInfo, wide bool) string {
	if c.Era == mcp.Unknown {
		return "—"
	}
	if wide && c.Protocol != "" {
		return c.Era.String() + " " + present.Line(c.Protocol)
	}
	return c.Era.String()
}

// viaOf is how the client is attached: stdio, an HTTP session, or
// stateless HTTP requests.
func viaOf(c gateway.ClientInfo) string {
	if c.Transport == gateway.TransportHTTP && c.Session != "" {
		return "http " + c.Session
	}
	return string(c.Transport)
}

// detail is the selected client: where from, its policy, totals and its
// requests in flight.
func (t *clientsTab) detail(c gateway.ClientInfo) []string {
	st := t.c.st
	now := t.c.now()
	who := clientName(c)
	if c.Version != "" {
		who += " " + present.Line(c.Version)
	}
	parts := []string{who}
	if c.Identity != "" {
		parts = append(parts, "identity "+present.Line(c.Identity)+" (from its access token)")
	}
	if c.Protocol != "" {
		parts = append(parts, c.Era.String()+" "+present.Line(c.Protocol))
	}
	via := viaOf(c)
	if c.Remote != "" {
		via += " from " + c.Remote
	}
	parts = append(parts, via)
	policy := "policy: top level"
	if c.Policy != "" {
		policy = "policy: " + c.Policy
	}
	parts = append(parts, policy)
	if c.Listens > 0 {
		parts = append(parts, present.Count(c.Listens, "listen stream", "listen streams"))
	}
	var out []string
	for _, l := range wrap(strings.Join(parts, " · "), t.w) {
		out = append(out, padRight(st.Bold.Render(l), t.w))
	}
	tot := c.Totals
	totals := fmt.Sprintf("%s · %d errors · %d refused · %d cancelled · %s sent",
		present.Count(int(tot.Requests), "request", "requests"), tot.Errors, tot.Refused, tot.Cancelled,
		present.Count(int(tot.Notifications), "notification", "notifications"))
	if tot.Dropped > 0 {
		totals += fmt.Sprintf(" · %d dropped (it reads too slowly)", tot.Dropped)
	}
	totals += " · last seen " + present.Age(now.Sub(c.LastSeen)) + " ago"
	for _, l := range wrap(totals, t.w) {
		out = append(out, padRight(st.Dim.Render(l), t.w))
	}
	if len(c.InFlight) == 0 {
		return append(out, padRight(st.Faint.Render("Nothing in flight."), t.w))
	}
	nameW := min(40, max(t.w/4, 14))
	out = append(out, st.ColumnHead.Render(padRight(fmt.Sprintf(" %-6s %-12s %-*s %-12s %-8s %6s  %s", "ID", "METHOD", nameW, "NAME", "SERVER", "UPSTREAM", "AGE", "STATE"), t.w)))
	for _, r := range c.InFlight {
		state, upstream := "running", "—"
		switch {
		case r.WaitingForInput:
			state = "waiting for the client's input"
		case r.Server == "":
			state = "resolving"
		}
		if r.UpstreamID != 0 {
			upstream = fmt.Sprintf("#%d", r.UpstreamID)
		}
		out = append(out, padRight(" "+padRight(present.Truncate(present.Line(r.ID), 6), 6)+" "+padRight(present.Truncate(present.Line(r.Method), 12), 12)+" "+
			padRight(present.Truncate(present.Line(r.Name), nameW), nameW)+" "+padRight(present.Truncate(r.Server, 12), 12)+" "+padRight(upstream, 8)+" "+
			fmt.Sprintf("%6s  %s", present.Age(now.Sub(r.Started)), state), t.w))
	}
	return out
}
