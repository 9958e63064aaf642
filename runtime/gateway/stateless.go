package gateway

import (
	"net"
	"slices"
	"time"

	"mcpdeck/runtime/mcp"
)

// A 2026-07-28 client over HTTP has no session: every request stands
// alone, and nothing in one says which process sent it. The gateway
// tells clients apart by the connections they send on:
//
//   - a request on a connection the gateway has seen belongs to that
//     connection's client;
//   - a new connection whose first request is server/discover is a new
//     client: that is how a client starts (the TypeScript SDK's and
//     mcpdeck's own do), so two processes with the same clientInfo on the
//     same address are two clients, each its own row;
//   - any other new connection belongs to a client of the same name,
//     version, address and identity that has every connection of its own
//     busy (an HTTP client opens another connection only then; one idle
//     for longer than wireIdleGone counts as closed), the most recently
//     active first; else to the most recently active one of them; else it
//     is a new client.
//
// Two such clients both idle, one of which then opens a connection, may
// have that connection counted as the other's: nothing on the wire tells.
// A connection is forgotten with its client (detach).

// wireIdleGone is how long an idle connection is taken to be still open
// when a new one comes: clients close idle keep-alive connections after a
// few seconds (Node's fetch after 4 s).
const wireIdleGone = 5 * time.Second

// wire is one connection of a modern HTTP client.
type wire struct {
	cl       *client
	inFlight int       // requests being served on it; under Gateway.mu
	last     time.Time // when its last request came
	idleFrom time.Time // when inFlight last dropped to 0
}

// statelessClient finds or attaches the client a modern HTTP request
// belongs to (see above): its method, the connection's remote address,
// its clientInfo and verified identity (nil without OAuth). done must be
// called once the request is served.
func (g *Gateway) statelessClient(env *envelope, method, remote string, id *Identity) (*client, func(), error) {
	host := remote
	if h, _, err := net.SplitHostPort(remote); err == nil {
		host = h
	}
	var name, version string
	if env.info != nil {
		name, version = env.info.Name, env.info.Version
	}
	key := name + "\x00" + version + "\x00" + host
	if id != nil {
		key += "\x00" + id.ID
	}
	g.mu.Lock()
	w := g.wires[remote]
	if w != nil && w.cl.key != key {
		w = nil // the connection now says another name: another client
	}
	if w == nil && method != mcp.MethodDiscover {
		if cl := g.wireOwner(key); cl != nil {
			w = &wire{cl: cl}
			g.wires[remote] = w
		}
	}
	if w != nil {
		w.inFlight++
		w.last = time.Now()
		g.mu.Unlock()
		return w.cl, g.wireDone(w), nil
	}
	g.mu.Unlock()

	cl := g.newClient(TransportHTTP, "stateless", remote)
	cl.key = key
	cl.setIdentity(id)
	cl.closeTransport = func() {} // its requests watch cl.ctx
	cl.identify(env.info, mcp.Modern, env.version)
	if err := g.attach(cl); err != nil {
		cl.out.stop()
		return nil, nil, err
	}
	w = &wire{cl: cl, inFlight: 1, last: time.Now()}
	g.mu.Lock()
	g.wires[remote] = w
	g.mu.Unlock()
	return cl, g.wireDone(w), nil
}

// wireDone is the end of a request served on w.
func (g *Gateway) wireDone(w *wire) func() {
	return func() {
		g.mu.Lock()
		if w.inFlight--; w.inFlight == 0 {
			w.idleFrom = time.Now()
		}
		g.mu.Unlock()
	}
}

// wireOwner is the client a new connection of key belongs to (see the
// rules above), nil for a new one. Under g.mu.
func (g *Gateway) wireOwner(key string) *client {
	if len(g.stateless[key]) == 0 {
		return nil
	}
	now := time.Now()
	type standing struct {
		last time.Time // its latest request
		full bool      // no connection of its own it would have used
	}
	of := map[*client]*standing{}
	for _, cl := range g.stateless[key] {
		of[cl] = &standing{full: true}
	}
	for _, w := range g.wires {
		st := of[w.cl]
		if st == nil {
			continue
		}
		if w.last.After(st.last) {
			st.last = w.last
		}
		if w.inFlight == 0 && now.Sub(w.idleFrom) < wireIdleGone {
			st.full = false
		}
	}
	var busy, any *client
	for _, cl := range g.stateless[key] {
		st := of[cl]
		if st.full && (busy == nil || st.last.After(of[busy].last)) {
			busy = cl
		}
		if any == nil || st.last.After(of[any].last) {
			any = cl
		}
	}
	if busy != nil {
		return busy
	}
	return any
}

// forgetStateless drops a detached modern client and its connections.
// Under g.mu.
func (g *Gateway) forgetStateless(cl *client) {
	g.stateless[cl.key] = slices.DeleteFunc(g.stateless[cl.key], func(c *client) bool { return c == cl })
	if len(g.stateless[cl.key]) == 0 {
		delete(g.stateless, cl.key)
	}
	for remote, w := range g.wires {
		if w.cl == cl {
			delete(g.wires, remote)
		}
	}
}
