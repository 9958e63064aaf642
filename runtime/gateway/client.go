package gateway

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
)

// client is one attached client: a stdio peer, a legacy HTTP session, or
// the modern HTTP requests of one (name, version, address). Its fields
// under mu change as it talks; the rest are fixed when it attaches.
type client struct {
	g         *Gateway
	id        string
	transport Transport
	session   string // "stream", "session", "stateless"
	remote    string
	since     time.Time
	key       string // modern HTTP: the grouping key

	ctx    context.Context // ends when the client detaches
	cancel context.CancelFunc
	out    *outbox
	// conn is the JSON-RPC connection to the client (stdio, legacy HTTP
	// session); nil for modern HTTP, whose requests each have their own.
	conn *jsonrpc.Conn
	// closeTransport ends the client's transport (closes conn and
	// streams); set by the transport before the client is registered.
	closeTransport func()
	// routeRequest, when set (legacy HTTP sessions), learns the id of a
	// server→client request before it is sent and the client request it
	// relates to (nil for none), so the request travels on that request's
	// stream.
	routeRequest func(id uint64, related *call)
	slots        chan struct{} // the concurrency limit of the policy; under mu
	responder    *answers
	// listenEnded is signalled when a listen stream ends (Close waits).
	listenEnded chan struct{}

	mu          sync.Mutex
	name        string
	title       string
	version     string
	era         mcp.Era
	protocol    string
	initialized bool                   // legacy: notifications/initialized arrived
	caps        mcp.ClientCapabilities // legacy: declared in initialize
	level       int                    // legacy: index in mcp.LogLevels of the lowest level sent
	pol         *policy                // from the client's identity, else its name
	// identity is who the client's access token says it is (OAuth); nil
	// without. It is fixed when the client attaches.
	identity *Identity
	lastSeen time.Time
	calls    []*call           // in flight, oldest first
	listens  []*listen         // modern subscriptions/listen streams
	streams  int               // legacy HTTP: open GET streams
	parked   []*job            // modern requests waiting for the client's retry
	subs     map[string]string // legacy resources/subscribe: URI → server
	// rootsTo are the servers given this client's roots (roots/list
	// during its requests): its notifications/roots/list_changed goes
	// to them.
	rootsTo map[string]bool
	// elicits are the server URL elicitations (the server's
	// elicitationId and the client's) this 2025-11-25 client was sent,
	// oldest first, at most maxElicits: a server's
	// notifications/elicitation/complete for one goes to it.
	elicits  []elicitation
	offered  offer // what the client was last shown (list_changed)
	totals   Totals
	detached bool
	idle     *time.Timer // HTTP: detaches the client after idleness
	// finals are closed when the final answers of listen streams ended by
	// Close have been written.
	finals []<-chan struct{}
	// replyWait holds channels closed when the response to a request id is
	// written (replied); waiting counts them, for a lock-free fast path.
	replyWait map[string]chan struct{}
	waiting   atomic.Int32
	// lastEnv caches the envelope of the client's last modern request:
	// a client sends the same one every time.
	lastEnv atomic.Pointer[cachedEnvelope]
}

// defaultLevel is where a legacy client's logs start until it calls
// logging/setLevel: the runtime's own default, info.
const defaultLevel = 1

// newClient builds a client; the transport sets conn and closeTransport,
// then calls g.attach.
func (g *Gateway) newClient(transport Transport, session, remote string) *client {
	cl := &client{g: g, transport: transport, session: session, remote: remote, since: time.Now(), level: defaultLevel,
		subs: map[string]string{}, listenEnded: make(chan struct{}, 1), replyWait: map[string]chan struct{}{}}
	cl.responder = &answers{&responder{cl}, cl}
	cl.id = "c" + strconv.FormatUint(g.clientSeq.Add(1), 10)
	cl.ctx, cl.cancel = context.WithCancel(context.Background())
	cl.pol = newPolicy(g.opts.Config, "")
	cl.slots = make(chan struct{}, cl.pol.maxConcurrent())
	cl.lastSeen = cl.since
	cl.out = newOutbox(outboxSize)
	return cl
}

// identify records who the client says it is; the policy follows its name.
func (cl *client) identify(info *mcp.Implementation, era mcp.Era, protocol string) {
	cl.mu.Lock()
	changed := cl.era != era || cl.protocol != protocol
	if info != nil && (info.Name != cl.name || info.Version != cl.version || info.Title != cl.title) {
		changed = true
		if info.Name != cl.name && cl.identity == nil {
			cl.pol = newPolicy(cl.g.opts.Config, info.Name)
			// Requests in flight keep the slot of the old limit's channel.
			cl.slots = make(chan struct{}, cl.pol.maxConcurrent())
		}
		cl.name, cl.version, cl.title = info.Name, info.Version, info.Title
	}
	cl.era, cl.protocol = era, protocol
	cl.mu.Unlock()
	if changed {
		cl.g.ev.publish(ClientUpdated{Time: time.Now(), Client: cl.info()})
	}
}

func (cl *client) policy() *policy {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.pol
}

// info is the client as the Clients view shows it.
func (cl *client) info() ClientInfo {
	cl.mu.Lock()
	ci := ClientInfo{ID: cl.id, Name: cl.name, Title: cl.title, Version: cl.version, Era: cl.era, Protocol: cl.protocol,
		Transport: cl.transport, Remote: cl.remote, Session: cl.session, Since: cl.since, LastSeen: cl.lastSeen,
		Policy: cl.pol.field, Listens: len(cl.listens), Totals: cl.totals}
	if cl.identity != nil {
		ci.Identity = cl.identity.ID
	}
	for _, c := range cl.calls {
		ci.InFlight = append(ci.InFlight, c.info())
	}
	parked := slices.Clone(cl.parked)
	cl.mu.Unlock()
	ci.Totals.Dropped = cl.out.dropped.Load()
	for _, j := range parked {
		ci.InFlight = append(ci.InFlight, j.info())
	}
	slices.SortFunc(ci.InFlight, func(a, b Request) int { return a.Started.Compare(b.Started) })
	return ci
}

// setParked records a job waiting for the client's retry (or no longer),
// for the Clients view.
func (cl *client) setParked(j *job, on bool) {
	cl.mu.Lock()
	i := slices.Index(cl.parked, j)
	switch {
	case on && i < 0:
		cl.parked = append(cl.parked, j)
	case !on && i >= 0:
		cl.parked = slices.Delete(cl.parked, i, i+1)
	default:
		cl.mu.Unlock()
		return
	}
	cl.armIdle()
	cl.mu.Unlock()
	cl.g.ev.publish(ClientUpdated{Time: time.Now(), Client: cl.info()})
}

// begin records a request in flight.
func (cl *client) begin(c *call) {
	cl.mu.Lock()
	cl.calls = append(cl.calls, c)
	cl.lastSeen = c.started
	if cl.idle != nil {
		cl.idle.Stop()
	}
	cl.mu.Unlock()
	if cl.g.ev.active() {
		cl.g.ev.publish(RequestStarted{Time: c.started, Request: c.info()})
	}
}

// end records a request answered (or cancelled) and counts it.
func (cl *client) end(c *call, err error) {
	c.done.Store(true)
	now := time.Now()
	var fin RequestFinished
	if cl.g.ev.active() {
		fin = RequestFinished{Time: now, Request: c.info(), Duration: now.Sub(c.started)}
	}
	// Cancelled: by the client, or by its detaching (a modern job runs on
	// the client's ctx, so its end may be seen before the request's).
	cancelled := err != nil && (c.ctx.Err() != nil || cl.ctx.Err() != nil)
	var rpc *jsonrpc.Error
	if err != nil && !cancelled {
		fin.Err = err.Error()
		if errors.As(err, &rpc) && (rpc.Code == CodeRefused || rpc.Code == CodeBusy || rpc.Code == CodeRateLimited) {
			fin.Refused = true
		}
	}
	fin.Cancelled = cancelled
	if c.method == "tools/call" {
		cl.g.calls.Add(1)
	}
	cl.mu.Lock()
	if i := slices.Index(cl.calls, c); i >= 0 {
		cl.calls = slices.Delete(cl.calls, i, i+1)
	}
	cl.lastSeen = now
	cl.totals.Requests++
	switch {
	case cancelled:
		cl.totals.Cancelled++
	case fin.Refused:
		cl.totals.Refused++
		cl.totals.Errors++
	case err != nil:
		cl.totals.Errors++
	}
	cl.armIdle()
	cl.mu.Unlock()
	if cl.g.ev.active() {
		cl.g.ev.publish(fin)
	}
}

// touch notes activity that is not a request (a notification, a stream).
func (cl *client) touch() {
	cl.mu.Lock()
	cl.lastSeen = time.Now()
	cl.mu.Unlock()
}

// armIdle starts the idle timer of an HTTP client with nothing in flight:
// a client that vanished without a word is detached after idleTimeout.
// Called with mu held.
func (cl *client) armIdle() {
	if cl.transport != TransportHTTP || len(cl.calls) > 0 || len(cl.listens) > 0 || cl.streams > 0 || len(cl.parked) > 0 || cl.detached || cl.g.opts.IdleTimeout < 0 {
		return
	}
	d := cl.g.opts.IdleTimeout
	if cl.totals.Requests < 2 {
		// Only its first request so far (a session that only initialized):
		// a real client goes on at once, one that does not costs a slot.
		d = cl.g.opts.HandshakeTimeout
	}
	if cl.idle == nil {
		cl.idle = time.AfterFunc(d, func() { cl.g.detachIfIdle(cl) })
		return
	}
	cl.idle.Reset(d)
}

// busy reports whether the client has requests or streams open.
func (cl *client) busy() bool {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return len(cl.calls) > 0 || len(cl.listens) > 0 || cl.streams > 0 || len(cl.parked) > 0
}

// streamOpen counts a GET stream opening (+1) or closing (-1): a client
// holding one is attached, whatever it sends.
func (cl *client) streamOpen(delta int) {
	cl.mu.Lock()
	cl.streams += delta
	cl.lastSeen = time.Now()
	if cl.idle != nil && delta > 0 {
		cl.idle.Stop()
	}
	cl.armIdle()
	cl.mu.Unlock()
}

// notify sends a notification that belongs to no request (logs, list
// changes, resource updates) on the client's session, through its outbox.
func (cl *client) notify(method string, params any) {
	if cl.conn == nil {
		return
	}
	cl.out.push(func() { cl.send(cl.conn.Notify, method, params) })
}

// send sends one notification and counts it.
func (cl *client) send(notify func(context.Context, string, any) error, method string, params any) {
	if err := notify(cl.ctx, method, params); err == nil {
		cl.mu.Lock()
		cl.totals.Notifications++
		cl.mu.Unlock()
	}
}

// legacySession returns a legacy client's lowest log level, and whether
// it is an initialized legacy session (the only clients that get logs
// and list changes outside a request).
func (cl *client) legacySession() (int, bool) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.level, cl.initialized && cl.era == mcp.Legacy
}

// inflightOn returns the client's forwarded requests in flight to server.
func (cl *client) inflightOn(server string) []*call {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	var out []*call
	for _, c := range cl.calls {
		if c.server() == server {
			out = append(out, c)
		}
	}
	return out
}

// awaitReply returns a channel closed once the response to request id has
// been written to the client (replied).
func (cl *client) awaitReply(id string) <-chan struct{} {
	ch := make(chan struct{})
	cl.mu.Lock()
	cl.replyWait[id] = ch
	cl.mu.Unlock()
	cl.waiting.Add(1)
	return ch
}

// replied is told of every response frame a transport writes to the
// client; it costs nothing unless someone awaits a reply.
func (cl *client) replied(msg jsonrpc.Message) {
	if cl.waiting.Load() == 0 || !msg.IsResponse() {
		return
	}
	cl.mu.Lock()
	ch := cl.replyWait[msg.ID]
	delete(cl.replyWait, msg.ID)
	cl.mu.Unlock()
	if ch != nil {
		cl.waiting.Add(-1)
		close(ch)
	}
}
