// Package gateway is mcpdeck's MCP server: it serves the live, aggregated
// capabilities of a runtime.Controller — tools and prompts as
// server__name, resources under their own URIs, instructions composed from
// the servers' — to any number of clients, over stdio (ServeStdio) and
// Streamable HTTP (Handler). Every request goes through the controller's
// existing sessions, so one server process serves however many clients
// attach, and switching MCP, a server, a reload or a reconnect changes what
// every client sees, announced with list_changed (legacy clients) or on
// their subscriptions/listen streams (2026-07-28 clients).
//
// Both protocol eras are served towards clients, whatever the servers
// speak: the session revisions 2024-11-05 … 2025-11-25 (initialize,
// list_changed, server→client requests) and the stateless 2026-07-28
// (server/discover, a _meta envelope on every request, resultType, MRTR
// input_required, subscriptions/listen). A request carrying
// _meta["io.modelcontextprotocol/protocolVersion"] is modern; anything else
// belongs to an initialize session.
//
// Forwarding goes both ways: a client's progress token is mapped to the
// runtime's request and its notifications/progress come back under the
// client's token; the servers' log messages reach legacy clients at their
// level and modern requests that asked for them; a client's cancellation
// cancels the runtime request, which tells the server; and an elicitation
// or roots question a server asks during a client's request goes to that
// client (runtime.WithResponder): as a server→client request to a legacy
// client, as an input_required answer to a modern one, whose retry then
// continues the server's exchange.
//
// The servers are declared what the clients may answer, not what mcpdeck
// has: roots and URL-mode elicitation always (runtime.Options.Relay, which
// `mcpdeck gateway` and `mcpdeck --serve` set), since servers offer tools
// by what their client declares; a 2026-07-28 request declares its own
// client's (runtime.WithCallerCapabilities). One connection serves every
// client, so a client's roots are given only during its own requests; a
// client without roots gets
// mcpdeck's configured roots or none, a question no one client's request
// can be tied to the configured roots or an error (never a made-up empty
// list a server would keep), a client without URL mode -32602 (under the
// TUI, the operator's dialog: runtime.Options.Operator), and a client's
// roots/list_changed goes to the servers given its roots.
//
// The package never writes to the terminal. Each client's notifications
// run on its own goroutine (outbox), so a client that stops reading stalls
// only itself.
package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// Options configure a Gateway.
type Options struct {
	// Config is the gateway block of mcp.json (policy, timeouts, limits);
	// nil means the defaults: everything allowed, 60 s per request, 16 in
	// flight per client.
	Config *config.Gateway
	// Version is sent as serverInfo.version.
	Version string
	// Ready, when set, holds list and forwarding requests until it is
	// closed: a headless gateway closes it once its first enable settled,
	// so a client that attaches at once does not see an empty offer.
	Ready <-chan struct{}
	// IdleTimeout detaches an HTTP client that has had nothing in flight
	// for this long (a legacy session that was never DELETEd, a stateless
	// client that went quiet); default 30 minutes, negative never.
	IdleTimeout time.Duration
	// HandshakeTimeout is the idle timeout of an HTTP client that has
	// made no request but its first (a session that only initialized):
	// default 1 minute (or IdleTimeout, if shorter).
	HandshakeTimeout time.Duration
	// MaxHTTPClients bounds the HTTP sessions and stateless clients kept
	// at once (default 256; negative: no bound). One more is refused with
	// 503 and the reason, until one ends or idles out.
	MaxHTTPClients int
	// InputTimeout bounds how long a modern client may take to retry after
	// an input_required answer before the server's question is cancelled;
	// default: the client's callTimeout.
	InputTimeout time.Duration
	// Audit, when set, logs every forwarded request (audit.go). The
	// caller closes it after the gateway.
	Audit *Audit
	// TaskAfter is how long a call of a client that declared the tasks
	// extension runs before it is answered with a task (default 1 s);
	// TaskTTL how long an ended task is kept (default 10 minutes). See
	// tasks.go.
	TaskAfter, TaskTTL time.Duration
	// Transparent serves the one server behind the gateway as itself
	// rather than as mcpdeck's gateway (transparent.go): its own tool and
	// prompt names, its serverInfo, capabilities and instructions, its
	// log messages under its own logger names. `replay --serve` serves a
	// recording this way. With no server, or several, ready, the gateway
	// answers as itself.
	Transparent bool
}

// Defaults of Options.
const (
	// DefaultIdleTimeout is Options.IdleTimeout's default.
	DefaultIdleTimeout = 30 * time.Minute
	// DefaultHandshakeTimeout is Options.HandshakeTimeout's default.
	DefaultHandshakeTimeout = time.Minute
	// DefaultMaxHTTPClients is Options.MaxHTTPClients's default.
	DefaultMaxHTTPClients = 256
)

// Gateway serves a controller's capabilities to clients. Its methods are
// safe for concurrent use.
type Gateway struct {
	rt   *runtime.Controller
	opts Options
	cat  atomic.Pointer[catalog]
	ev   events
	// infoMeta is the _meta of every modern result: serverInfo.
	infoMeta json.RawMessage

	appr      approvals // calls waiting for the operator (approval.go)
	clientSeq atomic.Uint64
	// calls counts the tools/call requests answered, for telemetry.
	calls atomic.Uint64
	// lim holds the clients' rate-limit buckets (ratelimit.go).
	lim       limits
	closing   chan struct{} // closed when Close begins
	pumpDone  chan struct{}
	stopPump  func()
	closeOnce sync.Once
	closeDone chan struct{} // closed when Close has finished
	readyOnce sync.Once

	// mu guards the tables below; transports and the event pump touch them.
	mu        sync.Mutex
	clients   map[string]*client
	stateless map[string][]*client    // modern HTTP clients by grouping key, oldest first (stateless.go)
	wires     map[string]*wire        // modern HTTP connections by remote address (stateless.go)
	forwards  map[fwdKey]*forward     // runtime requests in flight, by server and runtime id
	parked    map[string]*job         // modern requests waiting for the client's retry, by requestState
	subRefs   map[subKey]*subRef      // upstream resource subscriptions held for clients
	sessions  map[string]*httpSession // legacy HTTP sessions by Mcp-Session-Id
	tasks     map[string]*task        // the tasks extension's tasks, by id (tasks.go)
	closed    bool
	wg        sync.WaitGroup // modern jobs and requests being handled; Close waits for them
}

// New builds a gateway over rt and starts following its publications.
// Close it before shutting rt down (or after: clients are then told the
// offer is empty).
func New(rt *runtime.Controller, opts Options) *Gateway {
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.HandshakeTimeout <= 0 {
		opts.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if opts.IdleTimeout > 0 {
		opts.HandshakeTimeout = min(opts.HandshakeTimeout, opts.IdleTimeout)
	}
	if opts.MaxHTTPClients == 0 {
		opts.MaxHTTPClients = DefaultMaxHTTPClients
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	g := &Gateway{rt: rt, opts: opts, closing: make(chan struct{}), pumpDone: make(chan struct{}),
		clients: map[string]*client{}, stateless: map[string][]*client{}, wires: map[string]*wire{}, forwards: map[fwdKey]*forward{},
		parked: map[string]*job{}, subRefs: map[subKey]*subRef{}}
	// Subscribe before reading the snapshot, so no publication falls
	// between the two.
	events, cancel := rt.SubscribeBatches(runtime.SubscribeOptions{Buffer: 1 << 14})
	g.stopPump = cancel
	g.infoMeta, _ = json.Marshal(map[string]any{mcp.MetaServerInfo: g.implementation()})
	g.cat.Store(g.newCatalog(rt.Snapshot()))
	go g.pump(events)
	return g
}

// pump follows the runtime's events, a burst at a time: publications
// change the offer, logs and resource updates go to the clients they
// concern. (Progress does not come this way: see hear.)
func (g *Gateway) pump(batches <-chan []runtime.Event) {
	defer close(g.pumpDone)
	for batch := range batches {
		for _, e := range batch {
			switch e := e.(type) {
			case runtime.Published:
				if e.Snapshot != nil {
					g.republish(e.Snapshot)
				}
			case runtime.LogMessage:
				g.logMessage(e)
			case runtime.ResourceUpdated:
				g.resourceUpdated(e)
			case runtime.NotificationReceived:
				if e.Method == mcp.NotificationElicitationComplete {
					g.elicitationComplete(e)
				}
			}
		}
	}
}

func (g *Gateway) catalog() *catalog { return g.cat.Load() }

// waitReady holds a request until the first enable settled (Options.Ready).
// The publication that enable made may still be on its way through the
// event pump, so the catalog is brought up to date once, right then.
func (g *Gateway) waitReady(ctx context.Context) error {
	if g.opts.Ready == nil {
		return nil
	}
	select {
	case <-g.opts.Ready:
		g.readyOnce.Do(func() { g.store(g.newCatalog(g.rt.Snapshot())) })
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// refresh brings the catalog up to the runtime's newest publication, for
// a request that missed in a catalog the event pump has not updated yet.
func (g *Gateway) refresh() *catalog {
	g.store(g.newCatalog(g.rt.Snapshot()))
	return g.catalog()
}

// store swaps in cat unless a newer publication is in already; it
// reports whether it did.
func (g *Gateway) store(cat *catalog) bool {
	for {
		old := g.cat.Load()
		if old != nil && old.generation > cat.generation {
			return false
		}
		if g.cat.CompareAndSwap(old, cat) {
			return true
		}
	}
}

// attach registers a client whose transport is set up. It fails when the
// gateway is closing.
func (g *Gateway) attach(cl *client) error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return ErrClosed
	}
	if max := g.opts.MaxHTTPClients; cl.transport == TransportHTTP && max > 0 {
		n := 0
		for _, c := range g.clients {
			if c.transport == TransportHTTP {
				n++
			}
		}
		if n >= max {
			g.mu.Unlock()
			return fmt.Errorf("%w: mcpdeck's gateway keeps %d HTTP sessions and clients at most and has them all; end sessions you no longer use (DELETE), or wait: an idle one ends after %s, one that only initialized after %s", ErrTooManyClients, max, g.opts.IdleTimeout, g.opts.HandshakeTimeout)
		}
	}
	g.clients[cl.id] = cl
	if cl.key != "" {
		g.stateless[cl.key] = append(g.stateless[cl.key], cl)
	}
	g.mu.Unlock()
	cl.mu.Lock()
	cl.offered = g.offerFor(cl.pol, g.catalog())
	cl.mu.Unlock()
	g.ev.publish(ClientAttached{Time: time.Now(), Client: cl.info()})
	return nil
}

// detach ends a client: its requests are cancelled, its streams and
// connection closed, its upstream subscriptions released. Idempotent.
func (g *Gateway) detach(cl *client, reason string) {
	cl.mu.Lock()
	if cl.detached {
		cl.mu.Unlock()
		return
	}
	cl.detached = true
	if cl.idle != nil {
		cl.idle.Stop()
	}
	subs := cl.subs
	cl.subs = map[string]string{}
	cl.mu.Unlock()
	g.mu.Lock()
	delete(g.clients, cl.id)
	if cl.key != "" {
		g.forgetStateless(cl)
	}
	for state, j := range g.parked {
		if j.cl == cl {
			delete(g.parked, state)
			j.abandon()
		}
	}
	g.mu.Unlock()
	cl.cancel()
	if cl.closeTransport != nil {
		cl.closeTransport()
	}
	cl.out.stop()
	for uri, server := range subs {
		g.releaseSub(server, uri)
	}
	g.ev.publish(ClientDetached{Time: time.Now(), Client: cl.info(), Reason: reason})
}

// detachIfIdle detaches an HTTP client that stayed idle (its timer fired).
func (g *Gateway) detachIfIdle(cl *client) {
	if cl.busy() {
		return
	}
	g.detach(cl, "idle for "+g.opts.IdleTimeout.String())
}

// Clients returns every attached client, oldest first.
func (g *Gateway) Clients() []ClientInfo {
	cls := g.clientList()
	out := make([]ClientInfo, 0, len(cls))
	for _, cl := range cls {
		out = append(out, cl.info())
	}
	slices.SortFunc(out, func(a, b ClientInfo) int { return a.Since.Compare(b.Since) })
	return out
}

// ReasonOperator is ClientDetached.Reason when Disconnect ended the
// client, so a console that did it can tell its own doing from the rest.
const ReasonOperator = "disconnected by the operator"

// Calls counts the tools/call requests clients made that the gateway
// answered since New, whatever the answer (a result, an error, a refusal,
// a cancellation): mcpdeck_gateway_calls_total.
func (g *Gateway) Calls() uint64 { return g.calls.Load() }

// Disconnect ends the client with id: its requests in flight are
// cancelled (the servers are told), its streams and connection closed. A
// stateless HTTP client that sends again comes back under a new ID. It
// reports whether such a client was attached.
func (g *Gateway) Disconnect(id string) bool {
	g.mu.Lock()
	cl := g.clients[id]
	g.mu.Unlock()
	if cl == nil {
		return false
	}
	g.detach(cl, ReasonOperator)
	return true
}

// Subscribe returns the gateway's events (clients coming and going, their
// requests) and a cancel func. A subscriber that falls behind loses
// events rather than slowing anyone; Dropped counts them.
func (g *Gateway) Subscribe() (<-chan Event, func()) { return g.ev.subscribe() }

// Dropped counts events lost by slow subscribers.
func (g *Gateway) Dropped() uint64 { return g.ev.dropped.Load() }

// RequestOf attributes one of the runtime's outstanding requests (a
// server and the runtime's request id, as in ServerSnapshot.Outstanding)
// to the gateway client request it serves, for the Requests view.
func (g *Gateway) RequestOf(server string, upstreamID uint64) (Request, bool) {
	g.mu.Lock()
	f := g.forwards[fwdKey{server, upstreamID}]
	g.mu.Unlock()
	if f == nil {
		return Request{}, false
	}
	c := f.target.Load()
	if c == nil {
		return Request{}, false
	}
	return c.info(), true
}

// Close ends every client cleanly: subscriptions/listen streams get their
// final answer, sessions and streams close, requests in flight are
// cancelled; then the gateway stops following the runtime. Later clients
// are refused. Idempotent. ctx bounds the whole: when it ends first, Close
// returns its error and leaves what is still closing (a read of a stdin
// that cannot be interrupted) to finish on its own.
func (g *Gateway) Close(ctx context.Context) error {
	g.closeOnce.Do(func() {
		g.closeDone = make(chan struct{})
		g.mu.Lock()
		g.closed = true
		close(g.closing)
		cls := g.clientListLocked()
		g.mu.Unlock()
		go func() {
			defer close(g.closeDone)
			// Listen streams answer their final result on g.closing; the
			// transports close once those answers are written.
			for _, cl := range cls {
				cl.endListens(ctx)
			}
			var wg sync.WaitGroup
			for _, cl := range cls {
				wg.Go(func() { g.detach(cl, "the gateway shut down") })
			}
			wg.Wait()
			g.wg.Wait()
			g.stopTasks()
			g.stopPump()
			<-g.pumpDone
			g.ev.close()
		}()
	})
	select {
	case <-g.closeDone:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("closing the gateway: %w", ctx.Err())
	}
}
