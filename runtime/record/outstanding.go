package record

import (
	"sort"

	"mcpdeck/runtime"
)

// A replay shows the requests in flight at its position, as the live
// session's Requests view did. Publications do not list them (the live
// runtime lays them over its snapshot when asked) and a Live sample is
// taken only now and then, so they are rebuilt from the request events:
// a request is in flight from its RequestStarted until the RequestFinished
// that does not continue it (a retried round, a task followed) or its
// RequestCancelled.

// inFlight is one request and the entries it was in flight over.
type inFlight struct {
	from, to int // entries [from, to); to is len(Entries) if it never ended
	at       []inFlightState
}

// inFlightState is the request as it stood from entry at on: the round in
// flight, its last progress, the task it follows.
type inFlightState struct {
	at   int
	info runtime.RequestInfo
}

// indexRequests rebuilds the requests in flight from the entries.
func (rec *Recording) indexRequests() {
	type key struct {
		server string
		row    uint64
	}
	open := map[key]*inFlight{}
	byWire := map[key]key{} // a round's wire id → its row
	update := func(k key, i int, f func(*runtime.RequestInfo)) {
		r := open[k]
		if r == nil {
			return
		}
		info := r.at[len(r.at)-1].info
		f(&info)
		if last := &r.at[len(r.at)-1]; last.at == i {
			last.info = info
		} else {
			r.at = append(r.at, inFlightState{at: i, info: info})
		}
	}
	end := func(k key, i int) {
		if r := open[k]; r != nil {
			r.to = i
			delete(open, k)
		}
	}
	for i, e := range rec.Entries {
		switch ev := e.Event.(type) {
		case runtime.RequestStarted:
			k := key{ev.Server, rowOf(ev.FirstID, ev.ID)}
			byWire[key{ev.Server, ev.ID}] = k
			if open[k] != nil { // the next round of a request: the same row
				update(k, i, func(r *runtime.RequestInfo) { r.ID, r.Round = ev.ID, ev.Round })
				continue
			}
			r := &inFlight{from: i, to: len(rec.Entries)}
			r.at = []inFlightState{{at: i, info: runtime.RequestInfo{ID: ev.ID, FirstID: ev.FirstID, Round: ev.Round,
				Server: ev.Server, Method: ev.Method, Tool: ev.Tool, Started: ev.Time}}}
			open[k] = r
			rec.requests = append(rec.requests, r)
		case runtime.RequestFinished:
			if ev.Continues == "" {
				end(key{ev.Server, rowOf(ev.FirstID, ev.ID)}, i)
			}
		case runtime.RequestCancelled:
			end(key{ev.Server, rowOf(ev.FirstID, ev.ID)}, i)
		case runtime.Progress:
			if k, ok := byWire[key{ev.Server, ev.RequestID}]; ok && ev.RequestID != 0 {
				p := &runtime.ProgressInfo{Progress: ev.Progress, Total: ev.Total, Message: ev.Message, At: ev.Time}
				update(k, i, func(r *runtime.RequestInfo) { r.Progress = p })
			}
		case runtime.TaskUpdated:
			task := ev.Task
			update(key{ev.Server, ev.RequestID}, i, func(r *runtime.RequestInfo) { r.Task = &task })
		}
	}
}

// OutstandingAt is every request in flight after entry i, by server, as
// it stood then (its round, progress and task); the copies are the
// caller's.
func (rec *Recording) OutstandingAt(i int) map[string][]runtime.RequestInfo {
	out := map[string][]runtime.RequestInfo{}
	for _, r := range rec.requests {
		if r.from > i || i >= r.to {
			continue
		}
		k := sort.Search(len(r.at), func(k int) bool { return r.at[k].at > i }) - 1
		info := r.at[k].info
		out[info.Server] = append(out[info.Server], info)
	}
	return out
}
