package gateway

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// subKey names an upstream resource subscription.
type subKey struct{ server, uri string }

// subRef counts the clients (legacy subscriptions and listen streams) that
// hold an upstream subscription. owned says the gateway made it: a
// subscription the operator made in the TUI is left alone when the last
// client lets go.
type subRef struct {
	count int
	owned bool
}

// holdSub makes sure server sends notifications/resources/updated for uri
// and counts one more holder.
func (g *Gateway) holdSub(ctx context.Context, server, uri string) error {
	k := subKey{server, uri}
	g.mu.Lock()
	if ref := g.subRefs[k]; ref != nil {
		ref.count++
		g.mu.Unlock()
		return nil
	}
	g.mu.Unlock()
	owned := false
	if v, ok := g.rt.Snapshot().Server(server); !ok || !slices.Contains(v.Subscriptions, uri) {
		if err := g.rt.SubscribeResource(ctx, server, uri); err != nil {
			return err
		}
		owned = true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if ref := g.subRefs[k]; ref != nil {
		ref.count++ // another holder got there meanwhile; the subscription is one
		ref.owned = ref.owned || owned
		return nil
	}
	g.subRefs[k] = &subRef{count: 1, owned: owned}
	return nil
}

// releaseSub lets go of one hold; the last holder of a subscription the
// gateway made ends it upstream.
func (g *Gateway) releaseSub(server, uri string) {
	k := subKey{server, uri}
	g.mu.Lock()
	ref := g.subRefs[k]
	if ref == nil {
		g.mu.Unlock()
		return
	}
	ref.count--
	if ref.count > 0 {
		g.mu.Unlock()
		return
	}
	delete(g.subRefs, k)
	g.mu.Unlock()
	if ref.owned {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = g.rt.UnsubscribeResource(ctx, server, uri) // the server may be gone already
	}
}

// subscribe serves a legacy client's resources/subscribe and unsubscribe.
func (g *Gateway) subscribe(ctx context.Context, c *call, cat *catalog, pol *policy, on bool) error {
	var p mcp.URIParams
	if err := json.Unmarshal(c.params, &p); err != nil || p.URI == "" {
		return invalidParams("%s: params need a \"uri\"", c.method)
	}
	cl := c.cl
	if !on {
		cl.mu.Lock()
		server, held := cl.subs[p.URI]
		delete(cl.subs, p.URI)
		cl.mu.Unlock()
		if held {
			g.releaseSub(server, p.URI)
		}
		return nil
	}
	server, ok := cat.resourceServer(p.URI, pol.allows)
	if !ok {
		return unknown(runtime.KindUnknownResource, "resources/subscribe: no server offers resource %q now (list resources and templates again)", p.URI)
	}
	if s, _ := cat.server(server); !s.subscribe {
		return invalidParams("resources/subscribe: server %q, which offers %q, does not offer subscriptions", server, p.URI)
	}
	c.resolved(server, p.URI)
	cl.mu.Lock()
	_, held := cl.subs[p.URI]
	cl.mu.Unlock()
	if held {
		return nil
	}
	if err := g.holdSub(ctx, server, p.URI); err != nil {
		return upstreamError(server, "resources/subscribe of "+p.URI, pol.rules.CallTimeout, err)
	}
	cl.mu.Lock()
	if cl.detached {
		cl.mu.Unlock()
		g.releaseSub(server, p.URI)
		return nil
	}
	cl.subs[p.URI] = server
	cl.mu.Unlock()
	return nil
}

// resourceUpdated forwards notifications/resources/updated to the legacy
// clients subscribed to the URI and the listen streams that asked for it.
func (g *Gateway) resourceUpdated(e runtime.ResourceUpdated) {
	for _, cl := range g.clientList() {
		cl.mu.Lock()
		server, held := cl.subs[e.URI]
		var ls []*listen
		for _, l := range cl.listens {
			if l.subs[e.URI] == e.Server {
				ls = append(ls, l)
			}
		}
		cl.mu.Unlock()
		if held && server == e.Server {
			cl.notify("notifications/resources/updated", map[string]any{"uri": e.URI})
		}
		for _, l := range ls {
			l.send("notifications/resources/updated", map[string]any{"uri": e.URI})
		}
	}
}
