package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime/check"
	"mcpdeck/ui/present"
)

// The compatibility check runs in a command, on Options.Check. Its items
// come back one message at a time: progress hands each item to a waiting
// command over an unbuffered channel (so the check never runs ahead of
// the screen by more than one item), and every item message starts the
// next wait. A run number tells the messages of an old run from the
// current one's.

// checkItemMsg is one decided item of check run run; items is where the
// next one will come from.
type checkItemMsg struct {
	run   int
	item  check.Item
	items <-chan check.Item
}

// checkDoneMsg ends check run run.
type checkDoneMsg struct {
	run    int
	report check.Report
	err    error
}

// stopCheckMsg asks the root model to stop the running check (x).
type stopCheckMsg struct{}

// openCheckItemMsg asks the root model to show an item in full.
type openCheckItemMsg struct {
	server string
	item   check.Item
}

// startCheck runs the check of the selected server, unless one runs.
func (m *Model) startCheck() tea.Cmd {
	if m.opts.Check == nil {
		m.setStatus(statusWarn, ErrNoCheck.Error()+": run mcpdeck check "+m.c.server+" in a shell instead")
		return nil
	}
	srv, ok := m.c.selected()
	if !ok {
		m.setStatus(statusWarn, "no server selected: add one to mcp.json, then select it and press c")
		return nil
	}
	if m.unapproved(srv.Source) {
		how := "press m to review it"
		if m.declined[srv.Source] {
			how = "press r to review the change"
		}
		m.setStatus(statusWarn, "not checking "+srv.Name+": "+srv.Source+" is not approved, and the check would run its command; "+how)
		return nil
	}
	if e := m.c.invalidText(srv); e != "" {
		m.setStatus(statusWarn, "not checking "+srv.Name+": its configuration is invalid: "+e)
		return nil
	}
	m.active = tabCheck
	if m.check.running != "" {
		m.setStatus(statusWarn, "the check of "+m.check.running+" is still running: wait for it, or press x in the Check tab to stop it")
		return nil
	}
	m.checkRun++
	ctx, cancel := context.WithCancel(m.ctx())
	done := make(chan struct{})
	m.checkCancel, m.checkDone = cancel, done
	m.check.begin(srv.Name, srv.Transport.String())
	m.setStatus(statusInfo, "checking "+srv.Name+": the check starts its own copy of the server; the live connection is untouched")

	run, name, fn := m.checkRun, srv.Name, m.opts.Check
	items := make(chan check.Item)
	start := func() tea.Msg {
		defer close(done)
		defer close(items) // ends the wait for an item that will not come
		rep, err := fn(ctx, name, func(it check.Item) {
			select {
			case items <- it:
			case <-ctx.Done():
			}
		})
		return checkDoneMsg{run: run, report: rep, err: err}
	}
	return tea.Batch(start, waitCheckItem(run, items), m.check.spin.Tick)
}

// waitCheckItem waits for the check's next item.
func waitCheckItem(run int, items <-chan check.Item) tea.Cmd {
	return func() tea.Msg {
		it, ok := <-items
		if !ok {
			return nil
		}
		return checkItemMsg{run: run, item: it, items: items}
	}
}

// stopCheck cancels the running check; its done message still comes.
func (m *Model) stopCheck() {
	if m.checkCancel != nil {
		m.checkCancel()
		m.checkStopped = true
	}
}

// waitCheckEnd stops a check still running when the program has ended
// and waits, up to timeout, for it to return: the check's own server
// process must be stopped before mcpdeck exits.
func (m *Model) waitCheckEnd(timeout time.Duration) {
	if m.checkDone == nil {
		return
	}
	m.stopCheck()
	select {
	case <-m.checkDone:
	case <-time.After(timeout):
	}
}

// handleCheck applies the check's messages; it reports whether msg was
// one of them.
func (m *Model) handleCheck(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case checkItemMsg:
		if msg.run != m.checkRun || m.check.running == "" {
			return nil, true // a stale run's item; its channel is closed or closing
		}
		m.check.add(msg.item)
		return waitCheckItem(msg.run, msg.items), true
	case checkDoneMsg:
		if msg.run != m.checkRun {
			return nil, true
		}
		server, stopped := m.check.running, m.checkStopped
		m.check.finish(msg.report, msg.err, stopped)
		m.checkCancel()
		m.checkCancel, m.checkDone, m.checkStopped = nil, nil, false
		m.setStatus(m.checkVerdict(server, msg.report, msg.err, stopped))
		return nil, true
	case stopCheckMsg:
		if m.check.running != "" {
			m.stopCheck()
			m.setStatus(statusInfo, "stopping the check of "+m.check.running+"…")
		}
		return nil, true
	case openCheckItemMsg:
		m.openModal(newCheckItemView(m.c, msg.server, msg.item))
		return nil, true
	case spinner.TickMsg:
		if m.check.running == "" {
			return nil, true // let the spinner stop
		}
		var cmd tea.Cmd
		m.check.spin, cmd = m.check.spin.Update(msg)
		return cmd, true
	}
	return nil, false
}

// checkVerdict is the status line once a check ended.
func (m *Model) checkVerdict(server string, rep check.Report, err error, stopped bool) (statusKind, string) {
	switch {
	case err != nil:
		return statusError, "checking " + server + " failed: " + errText(err)
	case stopped:
		return statusWarn, "the check of " + server + " was stopped; press c to run it again"
	case rep.Failed():
		n := rep.Counts()[check.Fail]
		return statusError, fmt.Sprintf("%s failed %s: see the Check tab", server, present.Count(n, "check", "checks"))
	case rep.Worst() == check.Warn:
		return statusWarn, server + " passed the check with warnings: see the Check tab"
	}
	return statusInfo, server + " passed the check"
}

// checkItemView shows one check item in full: its reason is often longer
// than the Check tab's column.
type checkItemView struct {
	c      *common
	server string
	item   check.Item
	w, h   int
}

func newCheckItemView(c *common, server string, it check.Item) *checkItemView {
	return &checkItemView{c: c, server: server, item: it}
}

func (v *checkItemView) SetSize(w, h int) { v.w, v.h = min(max(w-10, 40), 90), h }

func (v *checkItemView) Help() []key.Binding { return []key.Binding{v.c.keys.Close} }

func (v *checkItemView) Update(msg tea.KeyMsg) (modal, tea.Cmd) {
	if key.Matches(msg, v.c.keys.Close) {
		return nil, nil
	}
	return v, nil
}

func (v *checkItemView) View() string {
	st := v.c.st
	it := v.item
	meta := []string{"id " + it.ID}
	if it.Duration > 0 {
		meta = append(meta, "took "+checkDuration(it.Duration))
	}
	body := []string{st.CheckStatus(it.Status).Render(it.Status.String()) + "  " + st.Dim.Render(strings.Join(meta, " · ")), ""}
	for _, l := range wrap(present.Line(it.Reason), v.w-4) {
		body = append(body, st.Text.Render(l))
	}
	body = append(body, "", st.Dim.Render("esc to close"))
	return modalBox(v.c, v.server+" › "+it.Name, body, 0, v.w, min(v.h, len(body)+3))
}

// unapproved reports whether path is a project file the person has not
// approved (yet, or after it changed): nothing from it may run.
func (m *Model) unapproved(path string) bool {
	if m.declined[path] {
		return true
	}
	for _, f := range m.untrusted {
		if f.Path == path {
			return true
		}
	}
	return false
}
