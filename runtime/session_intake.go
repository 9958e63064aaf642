package runtime

import (
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
)

// intake is the part of a session that takes in what the server sends
// besides answers: notifications (routed, then published), anomalies,
// traffic frames and stderr lines, each turned into an event on the bus,
// secrets scrubbed. The connection's goroutines call it: the dispatcher
// (notifications, in arrival order), the read loop and senders (frames,
// anomalies), the stderr drain. The counters are atomics; noise has its
// own lock.
type intake struct {
	s               *session
	notifications   atomic.Uint64
	completed, errs atomic.Uint64 // callers' round trips that completed, and those that failed

	// noise is what the server wrote on stdout that is not JSON-RPC: how
	// many lines, and the last (cut), for a startup that never answers.
	noise struct {
		mu    sync.Mutex
		lines int
		last  string
	}
}

// onNotification routes one notification; it runs on the connection's
// dispatcher goroutine, in arrival order. It first waits for a lagging
// lossless subscriber (watch): that wait is what slows the server's stream.
func (in *intake) onNotification(n jsonrpc.Notification) {
	s := in.s
	s.c.bus.waitRoom(s.ctx)
	in.notifications.Add(1)
	if s.modern() && s.router.Route(n) {
		return // a listen stream's: deliverListen has it
	}
	in.dispatch(n)
}

// deliverListen handles a notification of the listen stream (a list
// change, a resource update), in arrival order.
func (in *intake) deliverListen(n jsonrpc.Notification) { in.dispatch(n) }

// dispatch turns a notification into runtime behaviour and events.
func (in *intake) dispatch(n jsonrpc.Notification) {
	s := in.s
	h := EventHeader{Time: n.Received, Server: s.name}
	switch n.Method {
	case mcp.NotificationMessage:
		var p mcp.LoggingMessageParams
		mcp.ReadLoggingMessage(n.Params, &p)
		s.c.bus.publish(LogMessage{EventHeader: h, Level: string(p.Level), Logger: p.Logger, Data: p.Data})
	case mcp.NotificationProgress:
		ev, hear := in.routeProgress(h, n.Params)
		s.c.bus.publish(ev)
		if hear != nil {
			hear(ev)
		}
	case mcp.NotificationToolsChanged, mcp.NotificationPromptsChanged, mcp.NotificationResourcesChanged:
		s.lists.changed(strings.TrimSuffix(strings.TrimPrefix(n.Method, "notifications/"), "/list_changed"))
		s.c.send(s.ctx, msgListChanged{name: s.name, gen: s.gen})
	case mcp.NotificationResourceUpdated:
		var p mcp.URIParams
		_ = json.Unmarshal(n.Params, &p)
		s.c.bus.publish(ResourceUpdated{EventHeader: h, URI: p.URI})
	case mcp.NotificationCancelled:
		// On stdio a modern server ends a subscription this way.
		if id, ok := mcp.CancelledRequest(n.Params); ok && s.modern() {
			s.listen.serverEnded(id)
		}
		s.c.bus.publish(NotificationReceived{EventHeader: h, Method: n.Method, Params: n.Params})
	case mcp.NotificationTasksStatus:
		s.inflight.taskStatus(n.Params)
		s.c.bus.publish(NotificationReceived{EventHeader: h, Method: n.Method, Params: n.Params})
	default:
		s.c.bus.publish(NotificationReceived{EventHeader: h, Method: n.Method, Params: n.Params})
	}
}

// routeProgress matches a progress notification to its request, which
// records it and extends its timeout; hear is the request's caller's hook
// (WithProgress), if any.
func (in *intake) routeProgress(h EventHeader, params json.RawMessage) (ev Progress, hear func(Progress)) {
	s := in.s
	var p mcp.ProgressParams
	_ = json.Unmarshal(params, &p)
	ev = Progress{EventHeader: h, Token: p.TokenString(), Progress: p.Progress, Total: p.Total, Message: p.Message}
	hear = s.inflight.progressed(&ev, ProgressInfo{Progress: p.Progress, Total: p.Total, Message: p.Message, At: h.Time})
	return ev, hear
}

func (in *intake) onAnomaly(a jsonrpc.Anomaly) {
	s := in.s
	h := EventHeader{Time: a.Time, Server: s.name}
	switch a.Kind {
	case jsonrpc.AnomalyNoise, jsonrpc.AnomalyInvalid:
		in.noise.mu.Lock()
		in.noise.lines++
		in.noise.last = cutRunes(string(a.Raw), 2*noiseQuote)
		in.noise.mu.Unlock()
		s.c.bus.publish(StdoutNoise{EventHeader: h, Line: string(a.Raw), Detail: a.Kind.String()})
	default:
		s.c.bus.publish(ProtocolAnomaly{EventHeader: h, Kind: a.Kind.String(), ID: a.ID, Detail: a.Detail})
	}
}

func (in *intake) onTrace(f jsonrpc.Frame) {
	s := in.s
	if f.Dir == jsonrpc.Out { // what comes in passed the intake
		f.Raw = s.redact.bytes(f.Raw)
	}
	s.c.bus.publish(TrafficFrame{EventHeader: EventHeader{Time: f.Time, Server: s.name}, Frame: f})
}

func (in *intake) onStderr(line string) {
	s := in.s
	s.c.bus.waitRoom(s.ctx) // as for notifications: a lossless subscriber slows the server's stderr
	s.c.bus.publish(StderrLine{EventHeader: EventHeader{Time: time.Now(), Server: s.name}, Line: line})
}
