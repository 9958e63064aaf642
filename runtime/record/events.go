package record

import (
	"encoding/json"
	"time"

	"mcpdeck/runtime"
)

// Gap stands where the recorder's buffer dropped events because the disk
// could not keep up: Dropped events are missing just before this point.
type Gap struct {
	runtime.EventHeader
	Dropped uint64
}

// Live is a sample of what Controller.Snapshot lays over the latest
// publication: each server's pings, counters, outstanding requests, PID,
// stderr tail, and (since format 1.1) the log level in force, the
// resources subscribed to, the roots offered and the listen stream, and
// the events the bus dropped. The recorder writes one after every
// publication and, while anything changes, about once a second, so a
// replay shows the session as Snapshot did, not only as published.
type Live struct {
	runtime.EventHeader
	Servers []LiveServer
	// DroppedEvents is Snapshot.DroppedEvents (1.1).
	DroppedEvents uint64
}

// LiveServer is one server's part of a Live sample.
type LiveServer struct {
	Name        string
	PID         int
	StartedAt   time.Time
	Ping        runtime.PingStats
	Counters    runtime.Counters
	Outstanding []runtime.RequestInfo
	Stderr      []string
	// The rest is in files of format 1.1 on; older samples leave the
	// published values alone.
	LogLevel      string
	Subscriptions []string
	Roots         []runtime.Root
	Listen        *runtime.ListenInfo
}

// ReloadPlanned is the runtime's event of a configuration reload.
type ReloadPlanned = runtime.ReloadPlanned

// Unknown is an event of a kind this mcpdeck does not know (written by a
// newer minor version, or an event type missing from the registry): its
// header is decoded, the rest kept as it was written.
type Unknown struct {
	runtime.EventHeader
	Kind string
	Raw  json.RawMessage
}

// liveOf extracts the live part of a snapshot.
func liveOf(s *runtime.Snapshot) Live {
	l := Live{EventHeader: runtime.EventHeader{Time: s.At}, DroppedEvents: s.DroppedEvents}
	for _, v := range s.Servers {
		l.Servers = append(l.Servers, LiveServer{Name: v.Name, PID: v.PID, StartedAt: v.StartedAt, Ping: v.Ping,
			Counters: v.Counters, Outstanding: v.Outstanding, Stderr: v.Stderr,
			LogLevel: v.LogLevel, Subscriptions: v.Subscriptions, Roots: v.Roots, Listen: v.Listen})
	}
	return l
}

// apply lays the sample over a published snapshot's servers.
func (l Live) apply(s *runtime.Snapshot) {
	by := make(map[string]*LiveServer, len(l.Servers))
	for i := range l.Servers {
		by[l.Servers[i].Name] = &l.Servers[i]
	}
	for i := range s.Servers {
		v := &s.Servers[i]
		ls := by[v.Name]
		if ls == nil {
			continue
		}
		v.PID, v.Ping, v.Counters, v.Outstanding = ls.PID, ls.Ping, ls.Counters, ls.Outstanding
		if !ls.StartedAt.IsZero() {
			v.StartedAt = ls.StartedAt
		}
		if len(ls.Stderr) > 0 {
			v.Stderr = ls.Stderr
		}
		// A publication has the configured level; the one in force is
		// only in samples (never "" when a level was configured).
		if ls.LogLevel != "" {
			v.LogLevel = ls.LogLevel
		}
		// Publications never carry these: a sample's are the session's.
		v.Subscriptions, v.Roots, v.Listen = ls.Subscriptions, ls.Roots, ls.Listen
	}
	s.DroppedEvents = max(s.DroppedEvents, l.DroppedEvents)
}
