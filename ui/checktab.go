package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime/check"
	"mcpdeck/ui/present"
)

// checkTab shows the compatibility check of the selected server: the
// items decided so far, the ones still to come, a running line while the
// check runs and the summary once it ends. Runs are kept per server, so
// moving the selection shows that server's last check. Only the root
// model starts, feeds and ends runs (begin, add, finish); the tab draws.
type checkTab struct {
	base
	cur       cursor
	spin      spinner.Model
	available bool // Options.Check was given
	runs      map[string]*checkRun
	running   string // the server being checked, "" when none is
}

// checkRun is one check of one server.
type checkRun struct {
	server    string
	transport string
	items     []check.Item // decided so far, in report order
	done      bool
	stopped   bool  // the person stopped it before it ended
	err       error // the check could not run at all
}

func newCheckTab(c *common, available bool) *checkTab {
	return &checkTab{
		base:      base{c: c},
		spin:      spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(c.st.Info)),
		available: available,
		runs:      map[string]*checkRun{},
	}
}

func (t *checkTab) Title() string { return "Check" }

func (t *checkTab) ShortHelp() []key.Binding {
	k := t.c.keys
	if t.running != "" {
		return []key.Binding{k.Up, k.Down, k.Select, k.StopCheck}
	}
	return []key.Binding{k.Up, k.Down, k.Select, k.Check}
}

func (t *checkTab) ServerChanged() { t.cur = cursor{} }

// begin starts showing a new run of server.
func (t *checkTab) begin(server, transport string) {
	t.runs[server] = &checkRun{server: server, transport: transport}
	t.running = server
	if server == t.c.server {
		t.cur = cursor{}
	}
}

// add records an item of the running check; an item decided again
// replaces the first decision.
func (t *checkTab) add(it check.Item) {
	r := t.runs[t.running]
	if r == nil {
		return
	}
	for i := range r.items {
		if r.items[i].ID == it.ID {
			r.items[i] = it
			return
		}
	}
	r.items = append(r.items, it)
}

// finish ends the running check with its report: the report is the
// whole truth, items streamed or not.
func (t *checkTab) finish(rep check.Report, err error, stopped bool) {
	r := t.runs[t.running]
	t.running = ""
	if r == nil {
		return
	}
	r.done, r.err, r.stopped = true, err, stopped
	if len(rep.Items) > 0 {
		r.items = append([]check.Item(nil), rep.Items...)
	}
	if rep.Transport != "" {
		r.transport = rep.Transport
	}
}

// current is the selected server's last run, nil when there is none.
func (t *checkTab) current() *checkRun { return t.runs[t.c.server] }

// pending are the items a running check has still to decide, in report
// order.
func (r *checkRun) pending() []string {
	if r.done {
		return nil
	}
	seen := make(map[string]bool, len(r.items))
	for _, it := range r.items {
		seen[it.ID] = true
	}
	var out []string
	for _, id := range check.IDs() {
		if !seen[id] {
			out = append(out, id)
		}
	}
	return out
}

// listRows is how many item rows fit between the heading and the footer.
func (t *checkTab) listRows() int { return max(t.h-2, 1) }

func (t *checkTab) Update(msg tea.KeyMsg) tea.Cmd {
	r := t.current()
	if r == nil {
		return nil
	}
	n := len(r.items) + len(r.pending())
	switch {
	case key.Matches(msg, t.c.keys.StopCheck):
		if t.running == r.server {
			return func() tea.Msg { return stopCheckMsg{} }
		}
	case key.Matches(msg, t.c.keys.Select): // the item in full
		sel, _ := t.cur.window(n, t.listRows())
		if sel >= 0 && sel < len(r.items) {
			it, server := r.items[sel], r.server
			return func() tea.Msg { return openCheckItemMsg{server: server, item: it} }
		}
	default:
		navKeys(t.c, msg, &t.cur, n, t.listRows())
	}
	return nil
}

func (t *checkTab) View() string {
	r := t.current()
	if r == nil {
		return t.placeholder()
	}
	rows := append([]string{padRight(t.c.st.Dim.Render(t.heading(r)), t.w)}, t.itemRows(r)...)
	if t.h >= 2 {
		// The footer sits on the last row whatever the list's length, so
		// the verdict never scrolls away.
		for len(rows) < t.h-1 {
			rows = append(rows, padRight("", t.w))
		}
		rows = append(rows[:t.h-1], padRight(t.footer(r), t.w))
	}
	return t.fill(rows)
}

func (t *checkTab) heading(r *checkRun) string {
	var s string
	if r.done {
		s = fmt.Sprintf("check of %s (%s) · took %s", r.server, r.transport, checkDuration(r.took()))
	} else {
		s = fmt.Sprintf("checking %s (%s) on its own copy of the server, beside the live connection", r.server, r.transport)
	}
	// Say when the list scrolls: at 80×24 fourteen items do not fit.
	n := len(r.items) + len(r.pending())
	if _, top := t.cur.window(n, t.listRows()); n > t.listRows() {
		return fmt.Sprintf("%s · items %d–%d of %d", s, top+1, min(top+t.listRows(), n), n)
	}
	return s + " · " + present.Count(n, "item", "items")
}

// itemRows draws the decided items, then the pending ones (the first of
// them with the spinner), in at most listRows rows.
func (t *checkTab) itemRows(r *checkRun) []string {
	st := t.c.st
	pending := r.pending()
	n := len(r.items) + len(pending)
	sel, top := t.cur.window(n, t.listRows())
	nameW := t.nameWidth()
	out := make([]string, 0, t.listRows())
	for i := top; i < n && len(out) < t.listRows(); i++ {
		if i < len(r.items) {
			out = append(out, t.itemRow(r.items[i], nameW, i == sel))
			continue
		}
		id := pending[i-len(r.items)]
		status, name := st.Faint.Render("  · "), st.Faint.Render(check.Name(id))
		if i == len(r.items) {
			status, name = "  "+t.spin.View()+" ", st.Info.Render(check.Name(id)+"…")
		}
		out = append(out, padRight(marker(i == sel)+status+"  "+name, t.w))
	}
	return out
}

// itemRow is one decided item: status word, name, duration and reason.
func (t *checkTab) itemRow(it check.Item, nameW int, selected bool) string {
	st := t.c.st
	dur := ""
	if it.Duration > 0 {
		dur = checkDuration(it.Duration)
	}
	head := padRight(it.Name, nameW) + "  " + fmt.Sprintf("%6s", dur) + "  "
	reason := present.OneLine(it.Reason, 500)
	if selected {
		return st.Selected.Render(padRight(marker(true)+it.Status.String()+"  "+head+reason, t.w))
	}
	return padRight(marker(false)+st.CheckStatus(it.Status).Render(it.Status.String())+"  "+st.Text.Render(head)+st.Dim.Render(reason), t.w)
}

// nameWidth fits the longest item name, up to a third of the tab.
func (t *checkTab) nameWidth() int {
	w := 0
	for _, id := range check.IDs() {
		w = max(w, len(check.Name(id)))
	}
	return min(w, max(t.w/3, 12))
}

// footer is the running line or the verdict.
func (t *checkTab) footer(r *checkRun) string {
	st := t.c.st
	if !r.done {
		next := "the report"
		if p := r.pending(); len(p) > 0 {
			next = check.Name(p[0])
		}
		return t.spin.View() + st.Info.Render(fmt.Sprintf(" running %s… · %d of %d decided", strings.ToLower(next[:1])+next[1:], len(r.items), len(r.items)+len(r.pending()))) +
			st.Dim.Render(" · x stops the check")
	}
	if r.err != nil {
		return st.Error.Render("✗ the check could not run: "+errText(r.err)) + st.Dim.Render(" · press c to try again")
	}
	n := map[check.Status]int{}
	for _, it := range r.items {
		n[it.Status]++
	}
	counts := fmt.Sprintf("%d passed, %s, %d failed, %d skipped", n[check.Pass], present.Count(n[check.Warn], "warning", "warnings"), n[check.Fail], n[check.Skip])
	var verdict string
	switch {
	case r.stopped:
		verdict = st.Warning.Render("■ stopped before the end")
	case n[check.Fail] > 0:
		verdict = st.Error.Render(fmt.Sprintf("✗ %d failed", n[check.Fail]))
	case n[check.Warn] > 0:
		verdict = st.Warning.Render("✓ passed with " + present.Count(n[check.Warn], "warning", "warnings"))
	default:
		verdict = st.Success.Render("✓ passed")
	}
	return verdict + st.Dim.Render(" · "+counts+" · c runs it again")
}

// placeholder is the tab before the selected server was checked.
func (t *checkTab) placeholder() string {
	st := t.c.st
	var text string
	switch {
	case !t.available:
		text = ErrNoCheck.Error() + ": run mcpdeck check " + t.c.server + " in a shell instead."
	case t.c.server == "":
		text = "No server selected: add one to mcp.json, then select it and press c to check it."
	default:
		text = fmt.Sprintf("No check of %s yet. Press c to check that it is ready for clients: the check starts its own copy of the server, "+
			"beside the live connection, and runs %d checks on the transport its configuration declares.", t.c.server, len(check.IDs()))
		if t.running != "" {
			text += " A check of " + t.running + " is running now; select it to follow it."
		}
	}
	var rows []string
	for _, l := range wrap(text, t.w) {
		rows = append(rows, padRight(st.Dim.Render(l), t.w))
	}
	return t.fill(rows)
}

// took is the time the decided items took.
func (r *checkRun) took() time.Duration {
	var d time.Duration
	for _, it := range r.items {
		d += it.Duration
	}
	return d
}

// checkDuration is a step's duration: milliseconds under a second.
func checkDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return "<1ms"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return present.Age(d)
}

// marker shows the selection without colour too.
func marker(selected bool) string {
	if selected {
		return "› "
	}
	return "  "
}
