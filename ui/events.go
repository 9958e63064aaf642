package ui

import (
	"fmt"

	"mcpdeck/runtime"
)

// applyEvents folds a batch of runtime events into the stores, then the
// snapshot that came with it, then tells the tabs once.
func (m *Model) applyEvents(msg eventsMsg) {
	c := m.c
	for _, e := range msg.events {
		switch e := e.(type) {
		// Each notification arrives as exactly one of these five events.
		case runtime.NotificationReceived:
			c.notes.push(newNote(e))
		case runtime.LogMessage:
			c.notes.push(logNote(e))
		case runtime.ListChanged:
			c.notes.push(finishNote(note{at: e.Time, server: e.Server, method: "notifications/" + e.Kind + "/list_changed", text: e.Kind + " refetched"}))
		case runtime.ResourceUpdated:
			c.notes.push(finishNote(note{at: e.Time, server: e.Server, method: "notifications/resources/updated", text: e.URI}))
		case runtime.StderrLine:
			c.logs.push(newLogLine(e.Time, e.Server, "stderr", e.Line))
		case runtime.StdoutNoise:
			text := e.Line
			if e.Detail != "" {
				text += "  (" + e.Detail + ")"
			}
			c.logs.push(newLogLine(e.Time, e.Server, "stdout", text))
		case runtime.StateChanged:
			text := e.From.String() + " → " + e.To.String()
			if e.Reason != "" {
				text += ": " + e.Reason
			}
			c.logs.push(newLogLine(e.Time, e.Server, "state", text))
		case runtime.ProtocolAnomaly:
			c.logs.push(newLogLine(e.Time, e.Server, "anomaly", fmt.Sprintf("%s id=%s %s", e.Kind, e.ID, e.Detail)))
		case runtime.TrafficFrame:
			c.traffic.push(newFrame(e))
		case runtime.RequestStarted:
			c.reqs[e.ID] = &runtime.RequestInfo{ID: e.ID, Server: e.Server, Method: e.Method, Tool: e.Tool, Started: e.Time}
		case runtime.Progress:
			c.notes.push(progressEventNote(e))
			if r := c.reqs[e.RequestID]; r != nil {
				r.Progress = &runtime.ProgressInfo{Progress: e.Progress, Total: e.Total, Message: e.Message, At: e.Time}
			}
		case runtime.RequestFinished:
			delete(c.reqs, e.ID)
		case runtime.RequestCancelled:
			delete(c.reqs, e.ID)
		}
	}
	if msg.snap != nil {
		m.setSnapshot(msg.snap)
	}
	for _, t := range m.tabs {
		t.DataChanged()
	}
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
	c.snap = s
	listed := map[uint64]bool{}
	for _, srv := range s.Servers {
		for _, r := range srv.Outstanding {
			listed[r.ID] = true
			have := c.reqs[r.ID]
			r := r
			if have != nil && have.Progress != nil && (r.Progress == nil || have.Progress.At.After(r.Progress.At)) {
				r.Progress = have.Progress
			}
			c.reqs[r.ID] = &r
		}
	}
	for id, r := range c.reqs {
		if !listed[id] && !r.Started.After(s.At) {
			delete(c.reqs, id)
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
