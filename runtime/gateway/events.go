package gateway

import (
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"mcpdeck/runtime/mcp"
)

// Transport is how a client is attached.
type Transport string

// The transports clients attach over.
const (
	TransportStdio Transport = "stdio"
	TransportHTTP  Transport = "http"
)

// ClientInfo is one attached client as the Clients view shows it, and
// as `mcpdeck gateway pending --json` prints it (camelCase keys, the era
// as a word).
type ClientInfo struct {
	ID   string `json:"id"`             // stable for the client's life: "c1", "c2", …
	Name string `json:"name,omitempty"` // clientInfo.name, self-reported; "" until it says
	// Identity is who the client's access token says it is (gateway.auth's
	// identity claim); "" without OAuth. Per-client rules match it.
	Identity  string    `json:"identity,omitempty"`
	Title     string    `json:"title,omitempty"`
	Version   string    `json:"version,omitempty"`
	Era       mcp.Era   `json:"-"`                  // Unknown until its first initialize or modern request; "era" in JSON
	Protocol  string    `json:"protocol,omitempty"` // the negotiated (legacy) or last requested (modern) revision
	Transport Transport `json:"transport"`
	// Remote is the peer's address, with the port of its first connection
	// (HTTP), or "" (stdio).
	Remote string `json:"remote,omitempty"`
	// Session says how the client is held: "session" (a legacy HTTP
	// session), "stateless" (modern HTTP: its connections, a new client
	// from each server/discover on a new connection; see stateless.go) or
	// "stream" (stdio).
	Session  string    `json:"session,omitempty"`
	Since    time.Time `json:"since"`
	LastSeen time.Time `json:"lastSeen"`
	// Policy names the gateway.clients entry in force, "" for the
	// top-level policy.
	Policy string `json:"policy,omitempty"`
	// Listens counts the client's open subscriptions/listen streams.
	Listens  int       `json:"listens,omitempty"`
	InFlight []Request `json:"inFlight,omitempty"` // oldest first
	Totals   Totals    `json:"totals"`
}

// clientInfoJSON is ClientInfo with its era as a word.
type clientInfoJSON struct {
	clientInfoFields
	Era string `json:"era"`
}

type clientInfoFields ClientInfo // without ClientInfo's methods

// MarshalJSON writes the era as "legacy", "modern" or "unknown".
func (ci ClientInfo) MarshalJSON() ([]byte, error) {
	return json.Marshal(clientInfoJSON{clientInfoFields(ci), ci.Era.String()})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (ci *ClientInfo) UnmarshalJSON(data []byte) error {
	var v clientInfoJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*ci = ClientInfo(v.clientInfoFields)
	switch v.Era {
	case mcp.Legacy.String():
		ci.Era = mcp.Legacy
	case mcp.Modern.String():
		ci.Era = mcp.Modern
	}
	return nil
}

// Totals count a client's traffic since it attached.
type Totals struct {
	Requests      uint64 `json:"requests"`      // requests answered (any method)
	Errors        uint64 `json:"errors"`        // of those, answered with an error
	Refused       uint64 `json:"refused"`       // refused by the policy or the concurrency limit
	Cancelled     uint64 `json:"cancelled"`     // cancelled by the client
	Notifications uint64 `json:"notifications"` // notifications sent to the client
	Dropped       uint64 `json:"dropped"`       // notifications dropped because the client read too slowly
}

// Request is one request of a client in flight, for the Clients view and
// for attributing the runtime's outstanding requests (RequestOf).
type Request struct {
	Client string `json:"client"` // the client's ID
	ID     string `json:"id"`     // the client's request id as on the wire
	Method string `json:"method"`
	Name   string `json:"name,omitempty"`   // tools/call, prompts/get: the bridged name; resources/read: the URI
	Server string `json:"server,omitempty"` // the server it went to; "" before it is resolved
	// UpstreamID is the runtime's request id towards Server once sent;
	// Snapshot().Servers[…].Outstanding lists the same id.
	UpstreamID uint64    `json:"upstreamId,omitempty"`
	Started    time.Time `json:"started"`
	// WaitingForInput is set while a modern client holds an input_required
	// answer and mcpdeck waits for its retry.
	WaitingForInput bool `json:"waitingForInput,omitempty"`
}

// Event is something the Clients view wants to know; switch on the type.
type Event interface{ eventTime() time.Time }

// ClientAttached: a client connected (stdio), opened a session or sent its
// first request (HTTP).
type ClientAttached struct {
	Time   time.Time
	Client ClientInfo
}

// ClientUpdated: a client said who it is (initialize, or a modern
// request's clientInfo), its era was decided, or it opened or closed a
// listen stream.
type ClientUpdated struct {
	Time   time.Time
	Client ClientInfo
}

// ClientDetached: a client went away, was disconnected, or the gateway
// shut down.
type ClientDetached struct {
	Time   time.Time
	Client ClientInfo
	Reason string
}

// RequestStarted: a client's request reached the gateway.
type RequestStarted struct {
	Time    time.Time
	Request Request
}

// RequestForwarded: a client's request was sent to its server; UpstreamID
// is the runtime's request id, as the server's Outstanding list and the
// runtime's request events show it.
type RequestForwarded struct {
	Time    time.Time
	Request Request
}

// RequestFinished: the gateway answered a client's request (or the client
// cancelled it).
type RequestFinished struct {
	Time     time.Time
	Request  Request
	Duration time.Duration
	// Err is the error answered, "" for a result; Refused says the policy
	// or the concurrency limit refused it; Cancelled that the client did,
	// or that it was disconnected (or the gateway shut down) meanwhile.
	Err       string
	Refused   bool
	Cancelled bool
}

func (e ClientAttached) eventTime() time.Time   { return e.Time }
func (e ClientUpdated) eventTime() time.Time    { return e.Time }
func (e ClientDetached) eventTime() time.Time   { return e.Time }
func (e RequestStarted) eventTime() time.Time   { return e.Time }
func (e RequestFinished) eventTime() time.Time  { return e.Time }
func (e RequestForwarded) eventTime() time.Time { return e.Time }

// events fans gateway events out to subscribers. A subscriber that does not
// keep up loses events (counted), never slows a client.
type events struct {
	mu      sync.Mutex
	subs    map[chan Event]struct{}
	closed  bool
	dropped atomic.Uint64
	n       atomic.Int32 // subscribers, so nobody builds an event no one reads
}

// active reports whether anyone subscribes.
func (b *events) active() bool { return b.n.Load() > 0 }

// eventBuffer is each subscriber's channel capacity.
const eventBuffer = 1024

func (b *events) subscribe() (<-chan Event, func()) {
	ch := make(chan Event, eventBuffer)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		close(ch)
		return ch, func() {}
	}
	if b.subs == nil {
		b.subs = map[chan Event]struct{}{}
	}
	b.subs[ch] = struct{}{}
	b.n.Add(1)
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			if _, ok := b.subs[ch]; ok {
				delete(b.subs, ch)
				b.n.Add(-1)
				close(ch)
			}
		})
	}
}

func (b *events) publish(e Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- e:
		default:
			b.dropped.Add(1)
		}
	}
}

// close ends every subscription.
func (b *events) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	for ch := range b.subs {
		close(ch)
	}
	b.subs = nil
	b.n.Store(0)
}
