package jsonrpc

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// recentMemory bounds how many recent anomalies a connection remembers for
// explaining a request that never got its response.
const recentMemory = 16

// recent remembers the last anomalies that could have been meant as a
// response: a response with an unknown id, an error with a null id, a
// message that could not be decoded. A request that times out names them,
// so "timed out" becomes "timed out; meanwhile the server answered id
// 1003, which nobody asked". It also counts notifications, since a server
// that notifies instead of answering looks just like a slow one.
type recent struct {
	mu    sync.Mutex
	ring  [recentMemory]Anomaly
	next  int
	count int

	notes    atomic.Uint64          // notifications received, ever
	lastNote atomic.Pointer[string] // method of the latest; shares the decoder's string
}

func (r *recent) add(a Anomaly) {
	r.mu.Lock()
	r.ring[r.next] = a
	r.next = (r.next + 1) % recentMemory
	r.count = min(r.count+1, recentMemory)
	r.mu.Unlock()
}

// noted records a notification; it runs on the read loop for every
// notification, so it only stores a pointer.
func (r *recent) noted(method *string) {
	r.notes.Add(1)
	r.lastNote.Store(method)
}

// since returns the anomalies recorded at or after t, oldest first.
func (r *recent) since(t time.Time) []Anomaly {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Anomaly
	for i := range r.count {
		a := r.ring[(r.next-r.count+i+recentMemory)%recentMemory]
		if !a.Time.Before(t) {
			out = append(out, a)
		}
	}
	return out
}

// Arrivals is what came from the peer while a request waited in vain: the
// anomalies that may have been its answer and the notifications received.
type Arrivals struct {
	Anomalies     []Anomaly
	Notifications uint64 // notifications received while the request waited
	LastMethod    string // the latest notification's method
}

// Empty reports whether nothing arrived.
func (a Arrivals) Empty() bool { return len(a.Anomalies) == 0 && a.Notifications == 0 }

// String says what arrived, for the end of an error message.
func (a Arrivals) String() string {
	var parts []string
	for _, an := range a.Anomalies {
		switch an.Kind {
		case AnomalyUnknownResponse:
			parts = append(parts, fmt.Sprintf("a response with id %s, which matches no request", an.ID))
		case AnomalyNullID:
			parts = append(parts, "an error with a null id ("+an.Detail+")")
		case AnomalyUndecodable:
			parts = append(parts, "a response it could not decode ("+an.Detail+")")
		case AnomalyInvalid:
			parts = append(parts, "an invalid message ("+an.Detail+")")
		default:
			parts = append(parts, an.Kind.String())
		}
	}
	if a.Notifications > 0 {
		n := strconv.FormatUint(a.Notifications, 10) + " notification"
		if a.Notifications > 1 {
			n += "s"
		}
		if a.LastMethod != "" {
			n += " (the last " + a.LastMethod + ")"
		}
		parts = append(parts, n+", which never answer a request")
	}
	return strings.Join(parts, "; ")
}

// arrivedSince gathers what arrived since a call started.
func (c *Conn) arrivedSince(start time.Time, notesBefore uint64) Arrivals {
	a := Arrivals{Anomalies: c.recent.since(start), Notifications: c.recent.notes.Load() - notesBefore}
	if a.Notifications > 0 {
		if m := c.recent.lastNote.Load(); m != nil {
			a.LastMethod = *m
		}
	}
	return a
}
