package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// applyEvents folds a batch of runtime events into the stores, then the
// snapshot that came with it, then tells the tabs once. Updates of
// subscribed resources come back as reads to run.
func (m *Model) applyEvents(msg eventsMsg) tea.Cmd {
	c := m.c
	var updated []runtime.ResourceUpdated
	started := false // a new request: a gateway client's, perhaps
	for _, e := range msg.events {
		if l, ok := present.Describe(e); ok {
			if l.Notification() {
				c.notes.push(newNote(e, l))
			} else {
				c.logs.push(newLogLine(e.Header().Time, e.Header().Server, l.Kind, l.Text))
			}
		}
		switch e := e.(type) {
		case runtime.TrafficFrame:
			c.traffic.push(newFrame(e))
		case runtime.AppMessage:
			c.traffic.push(newAppFrame(e))
		case runtime.RequestStarted:
			k := reqKey{e.Server, rowID(e.FirstID, e.ID)}
			if r := c.reqs[k]; r != nil { // the next round of a request: one row
				r.ID, r.Round = e.ID, e.Round
				break
			}
			c.reqs[k] = &runtime.RequestInfo{ID: e.ID, FirstID: e.FirstID, Round: e.Round, Server: e.Server, Method: e.Method, Tool: e.Tool, Started: e.Time}
			started = true
		case runtime.Progress:
			if r := c.reqByWireID(e.Server, e.RequestID); r != nil {
				r.Progress = &runtime.ProgressInfo{Progress: e.Progress, Total: e.Total, Message: e.Message, At: e.Time}
			}
		case runtime.TaskUpdated:
			if r := c.reqs[reqKey{e.Server, e.RequestID}]; r != nil {
				task := e.Task
				r.Task = &task
			}
		case runtime.RequestFinished:
			if e.Continues != "" {
				break // input_required or a task: the request goes on in the same row
			}
			delete(c.reqs, reqKey{e.Server, rowID(e.FirstID, e.ID)})
			m.historyStale = m.historyStale || e.Method == "tools/call"
		case runtime.RequestCancelled:
			delete(c.reqs, reqKey{e.Server, rowID(e.FirstID, e.ID)})
			m.historyStale = m.historyStale || e.Method == "tools/call"
		case runtime.ResourceUpdated:
			updated = append(updated, e)
		}
	}
	if msg.snap != nil {
		m.setSnapshot(msg.snap)
		if v, ok := m.modal.(*resourceViewer); ok {
			v.refresh() // a subscription begun or ended shows at once
		}
	}
	for _, t := range m.tabs {
		t.DataChanged()
	}
	// After the snapshot: a subscription it announces counts.
	var cmds []tea.Cmd
	if started || msg.snap != nil {
		cmds = append(cmds, m.attribute())
	}
	seen := map[resKey]bool{}
	for _, e := range updated {
		if k := (resKey{e.Server, e.URI}); !seen[k] {
			seen[k] = true
			cmds = append(cmds, m.resourceUpdated(e))
		}
	}
	return tea.Batch(cmds...)
}

// setSnapshot adopts a new snapshot: the selection follows the server by
// name, and the outstanding requests it lists are merged with those
// learned from events (a request the snapshot no longer lists is gone only
// if it started before the snapshot was taken).
func (m *Model) setSnapshot(s *runtime.Snapshot) {
	if s == nil {
		return
	}
	c := m.c
	servers := m.serverCount()
	c.snap = s
	if m.serverCount() != servers && m.width > 0 {
		// The servers pane grows or shrinks with the list: every pane
		// below it gets a new size, or the frame would outgrow the terminal.
		defer m.layout()
	}
	listed := map[reqKey]bool{}
	for _, srv := range s.Servers {
		for _, r := range srv.Outstanding {
			k := reqKey{srv.Name, rowID(r.FirstID, r.ID)}
			listed[k] = true
			have := c.reqs[k]
			r := r
			if have != nil && have.Progress != nil && (r.Progress == nil || have.Progress.At.After(r.Progress.At)) {
				r.Progress = have.Progress
			}
			if r.Server == "" {
				r.Server = srv.Name
			}
			c.reqs[k] = &r
		}
	}
	for k, r := range c.reqs {
		if !listed[k] && !r.Started.After(s.At) {
			delete(c.reqs, k)
		}
	}
	sel := 0
	for i, srv := range s.Servers {
		if srv.Name == c.server {
			sel = i
		}
	}
	m.selectServer(sel)
}

// rowID is the id a request's row is kept under: its first round's id, so
// the rounds of an input_required exchange and a task's polls stay one row.
func rowID(first, id uint64) uint64 {
	if first != 0 {
		return first
	}
	return id
}

// reqByWireID finds the outstanding request whose current round has id.
func (c *common) reqByWireID(server string, id uint64) *runtime.RequestInfo {
	if r := c.reqs[reqKey{server, id}]; r != nil {
		return r
	}
	for k, r := range c.reqs {
		if k.server == server && r.ID == id {
			return r
		}
	}
	return nil
}
