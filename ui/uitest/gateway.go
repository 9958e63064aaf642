package uitest

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"

	"mcpdeck/runtime/gateway"
)

// Gateway is an in-memory gateway for the Clients tab (ui.Gateway). It
// follows the real gateway's rules: clients are numbered c1, c2, … in the
// order they attach and listed oldest first; requests in flight are
// listed oldest first and attributed to runtime requests once forwarded;
// Disconnect cancels the client's requests (each finishes cancelled and is
// counted) before the client is detached with gateway.ReasonOperator;
// subscribers are lossy and closed by Close.
type Gateway struct {
	mu      sync.Mutex
	seq     int
	clients map[string]*gateway.ClientInfo
	// Approvals: the calls waiting (Ask), the decisions made (Decisions),
	// and how many approvers are attached.
	pending   []gateway.Approval
	decisions []Decision
	approvers int
	subs      map[chan gateway.Event]struct{}
	closed    bool
	dropped   uint64
	now       func() time.Time
}

// NewGateway returns an empty gateway whose clock is now (Now for
// goldens; nil means time.Now).
func NewGateway(now func() time.Time) *Gateway {
	if now == nil {
		now = time.Now
	}
	return &Gateway{clients: map[string]*gateway.ClientInfo{}, subs: map[chan gateway.Event]struct{}{}, now: now}
}

// Attach adds a client as it says who it is (its ID is assigned here;
// Since defaults to now) and returns its ID.
func (g *Gateway) Attach(c gateway.ClientInfo) string {
	g.mu.Lock()
	g.seq++
	c.ID = "c" + strconv.Itoa(g.seq)
	if c.Since.IsZero() {
		c.Since = g.now()
	}
	if c.LastSeen.IsZero() {
		c.LastSeen = c.Since
	}
	c.InFlight = nil
	g.clients[c.ID] = &c
	info := clone(c)
	g.mu.Unlock()
	g.publish(gateway.ClientAttached{Time: c.Since, Client: info})
	return c.ID
}

// Start records a request of client in flight (not yet forwarded).
func (g *Gateway) Start(client string, r gateway.Request) {
	g.mu.Lock()
	c := g.clients[client]
	if c == nil {
		g.mu.Unlock()
		return
	}
	r.Client = client
	if r.Started.IsZero() {
		r.Started = g.now()
	}
	c.InFlight = append(c.InFlight, r)
	slices.SortStableFunc(c.InFlight, func(a, b gateway.Request) int { return a.Started.Compare(b.Started) })
	c.LastSeen = r.Started
	g.mu.Unlock()
	g.publish(gateway.RequestStarted{Time: r.Started, Request: r})
}

// Forward records that request id of client was sent to server as the
// runtime's request upstream, so RequestOf attributes it.
func (g *Gateway) Forward(client, id, server string, upstream uint64) {
	g.mu.Lock()
	c := g.clients[client]
	if c == nil {
		g.mu.Unlock()
		return
	}
	i := slices.IndexFunc(c.InFlight, func(r gateway.Request) bool { return r.ID == id })
	if i < 0 {
		g.mu.Unlock()
		return
	}
	c.InFlight[i].Server, c.InFlight[i].UpstreamID = server, upstream
	r := c.InFlight[i]
	g.mu.Unlock()
	g.publish(gateway.RequestForwarded{Time: g.now(), Request: r})
}

// Finish answers request id of client: with an error when errText is
// not "".
func (g *Gateway) Finish(client, id, errText string) {
	g.mu.Lock()
	c := g.clients[client]
	if c == nil {
		g.mu.Unlock()
		return
	}
	fin, ok := g.end(c, id, false, errText)
	g.mu.Unlock()
	if ok {
		g.publish(fin)
	}
}

// end removes a request from c and counts it, as the real gateway's
// client.end does. Called with mu held.
func (g *Gateway) end(c *gateway.ClientInfo, id string, cancelled bool, errText string) (gateway.RequestFinished, bool) {
	i := slices.IndexFunc(c.InFlight, func(r gateway.Request) bool { return r.ID == id })
	if i < 0 {
		return gateway.RequestFinished{}, false
	}
	r := c.InFlight[i]
	c.InFlight = slices.Delete(c.InFlight, i, i+1)
	now := g.now()
	c.LastSeen = now
	c.Totals.Requests++
	switch {
	case cancelled:
		c.Totals.Cancelled++
	case errText != "":
		c.Totals.Errors++
	}
	return gateway.RequestFinished{Time: now, Request: r, Duration: now.Sub(r.Started), Err: errText, Cancelled: cancelled}, true
}

// Clients implements ui.Gateway: oldest first.
func (g *Gateway) Clients() []gateway.ClientInfo {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]gateway.ClientInfo, 0, len(g.clients))
	for _, c := range g.clients {
		out = append(out, clone(*c))
	}
	slices.SortFunc(out, func(a, b gateway.ClientInfo) int {
		if n := a.Since.Compare(b.Since); n != 0 {
			return n
		}
		return idOrder(a.ID, b.ID)
	})
	return out
}

// idOrder orders c2 before c10.
func idOrder(a, b string) int {
	x, _ := strconv.Atoi(a[1:])
	y, _ := strconv.Atoi(b[1:])
	return x - y
}

// Disconnect implements ui.Gateway: the client's requests finish
// cancelled, then it is detached by the operator.
func (g *Gateway) Disconnect(id string) bool {
	g.mu.Lock()
	c := g.clients[id]
	if c == nil {
		g.mu.Unlock()
		return false
	}
	var events []gateway.Event
	for len(c.InFlight) > 0 {
		fin, _ := g.end(c, c.InFlight[0].ID, true, "")
		events = append(events, fin)
	}
	delete(g.clients, id)
	events = append(events, gateway.ClientDetached{Time: g.now(), Client: clone(*c), Reason: gateway.ReasonOperator})
	g.mu.Unlock()
	g.publish(events...)
	return true
}

// Leave detaches a client for a reason of its own (it closed its session,
// it went idle).
func (g *Gateway) Leave(id, reason string) {
	g.mu.Lock()
	c := g.clients[id]
	delete(g.clients, id)
	g.mu.Unlock()
	if c != nil {
		g.publish(gateway.ClientDetached{Time: g.now(), Client: clone(*c), Reason: reason})
	}
}

// RequestOf implements ui.Gateway: the forwarded request in flight that
// went to server as upstreamID.
func (g *Gateway) RequestOf(server string, upstreamID uint64) (gateway.Request, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range g.clients {
		for _, r := range c.InFlight {
			if r.Server == server && r.UpstreamID == upstreamID && upstreamID != 0 {
				return r, true
			}
		}
	}
	return gateway.Request{}, false
}

// Subscribe implements ui.Gateway: a lossy subscription, closed by
// cancel or Close.
func (g *Gateway) Subscribe() (<-chan gateway.Event, func()) {
	ch := make(chan gateway.Event, 1024)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		close(ch)
		return ch, func() {}
	}
	g.subs[ch] = struct{}{}
	return ch, func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if _, ok := g.subs[ch]; ok {
			delete(g.subs, ch)
			close(ch)
		}
	}
}

// Close implements ui.Gateway: every client is detached ("the gateway
// shut down"), then every subscription ends, as the real gateway's Close
// does. Closed reports it happened.
func (g *Gateway) Close(context.Context) error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	var ids []string
	for id := range g.clients {
		ids = append(ids, id)
	}
	g.mu.Unlock()
	for _, id := range ids {
		g.Leave(id, "the gateway shut down")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	for ch := range g.subs {
		close(ch)
	}
	g.subs = map[chan gateway.Event]struct{}{}
	return nil
}

// Closed reports whether Close was called.
func (g *Gateway) Closed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closed
}

func (g *Gateway) publish(events ...gateway.Event) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, e := range events {
		for ch := range g.subs {
			select {
			case ch <- e:
			default:
				g.dropped++
			}
		}
	}
}

// Decision is one answer Decide was given.
type Decision struct {
	ID         string
	Approve    bool
	By, Reason string
}

// Ask makes a call wait for approval, as a rule of the real gateway does,
// and announces it.
func (g *Gateway) Ask(a gateway.Approval) {
	g.mu.Lock()
	g.pending = append(g.pending, a)
	g.mu.Unlock()
	g.publish(gateway.ApprovalRequested{Time: g.now(), Approval: a})
}

// Withdraw ends a waiting call undecided (it timed out, the client gave
// up), as the real gateway does.
func (g *Gateway) Withdraw(id, decision string) {
	g.mu.Lock()
	i := slices.IndexFunc(g.pending, func(a gateway.Approval) bool { return a.ID == id })
	if i < 0 {
		g.mu.Unlock()
		return
	}
	a := g.pending[i]
	g.pending = slices.Delete(g.pending, i, i+1)
	g.mu.Unlock()
	g.publish(gateway.ApprovalDecided{Time: g.now(), Approval: a, Decision: decision, By: "the timeout"})
}

// AttachApprover implements ui.Gateway.
func (g *Gateway) AttachApprover() func() {
	g.mu.Lock()
	g.approvers++
	g.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			g.approvers--
			g.mu.Unlock()
		})
	}
}

// Approvers counts the attached approvers.
func (g *Gateway) Approvers() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.approvers
}

// Pending implements ui.Gateway.
func (g *Gateway) Pending() []gateway.Approval {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.pending)
}

// Decide implements ui.Gateway: the call stops waiting and the decision
// is kept for Decisions.
func (g *Gateway) Decide(id string, approve bool, by, reason string) error {
	g.mu.Lock()
	i := slices.IndexFunc(g.pending, func(a gateway.Approval) bool { return a.ID == id })
	if i < 0 {
		g.mu.Unlock()
		return gateway.ErrNoSuchApproval
	}
	a := g.pending[i]
	g.pending = slices.Delete(g.pending, i, i+1)
	g.decisions = append(g.decisions, Decision{ID: id, Approve: approve, By: by, Reason: reason})
	g.mu.Unlock()
	decision := gateway.Denied
	if approve {
		decision = gateway.Approved
	}
	g.publish(gateway.ApprovalDecided{Time: g.now(), Approval: a, Decision: decision, By: by, Reason: reason})
	return nil
}

// Decisions are the answers given so far.
func (g *Gateway) Decisions() []Decision {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.decisions)
}

// clone copies a client so callers never share its InFlight slice.
func clone(c gateway.ClientInfo) gateway.ClientInfo {
	c.InFlight = slices.Clone(c.InFlight)
	return c
}
