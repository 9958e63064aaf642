package gateway

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"mcpdeck/runtime/mcp"
)

// listen is a modern client's subscriptions/listen stream: it carries the
// change notifications the client opted in to, each tagged with the
// listen request's id, until the client closes it or the gateway shuts
// down (then it gets its final, complete answer).
type listen struct {
	c       *call
	id      json.RawMessage // the listen request's id: the subscriptionId
	granted mcp.SubscriptionFilter
	subs    map[string]string // resource URI → server, held upstream
}

func (l *listen) wants(kind string) bool {
	switch kind {
	case "tools":
		return l.granted.ToolsListChanged
	case "prompts":
		return l.granted.PromptsListChanged
	case "resources":
		return l.granted.ResourcesListChanged
	}
	return false
}

// send queues a notification on the stream, tagged with its subscriptionId.
func (l *listen) send(method string, params map[string]any) {
	meta, _ := params["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta[mcp.MetaSubscriptionID] = l.id
	params["_meta"] = meta
	l.c.relate(method, params)
}

// listen serves subscriptions/listen: acknowledge what is granted, then
// hold the request open.
func (g *Gateway) listen(ctx context.Context, c *call, cat *catalog, pol *policy) (any, error) {
	var p mcp.ListenParamsWire
	if err := json.Unmarshal(c.params, &p); err != nil || p.Notifications == nil {
		return nil, invalidParams("subscriptions/listen: params need a \"notifications\" filter")
	}
	want := *p.Notifications
	l := &listen{c: c, id: json.RawMessage(c.id), subs: map[string]string{}}
	l.granted = mcp.SubscriptionFilter{ToolsListChanged: want.ToolsListChanged, PromptsListChanged: want.PromptsListChanged,
		ResourcesListChanged: want.ResourcesListChanged}
	for _, uri := range want.ResourceSubscriptions {
		server, ok := cat.resourceServer(uri, pol.allows)
		if !ok {
			continue
		}
		if s, _ := cat.server(server); !s.subscribe {
			continue
		}
		if g.holdSub(ctx, server, uri) == nil {
			l.subs[uri] = server
			l.granted.ResourceSubscriptions = append(l.granted.ResourceSubscriptions, uri)
		}
	}
	defer func() {
		for uri, server := range l.subs {
			g.releaseSub(server, uri)
		}
	}()
	cl := c.cl
	cl.mu.Lock()
	cl.listens = append(cl.listens, l)
	cl.mu.Unlock()
	g.ev.publish(ClientUpdated{Time: time.Now(), Client: cl.info()})
	defer func() {
		cl.mu.Lock()
		if i := slices.Index(cl.listens, l); i >= 0 {
			cl.listens = slices.Delete(cl.listens, i, i+1)
		}
		cl.mu.Unlock()
		select {
		case cl.listenEnded <- struct{}{}:
		default:
		}
		g.ev.publish(ClientUpdated{Time: time.Now(), Client: cl.info()})
	}()
	l.send(mcp.NotificationAcknowledged, map[string]any{"notifications": l.granted})
	done := map[string]any{"_meta": map[string]any{mcp.MetaSubscriptionID: l.id}}
	if !l.granted.ToolsListChanged && !l.granted.PromptsListChanged && !l.granted.ResourcesListChanged && len(l.granted.ResourceSubscriptions) == 0 {
		cl.out.flush(ctx) // the acknowledgement goes before the answer
		return done, nil
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-g.closing:
		cl.out.flush(ctx)
		final := cl.awaitReply(c.id)
		cl.mu.Lock()
		cl.finals = append(cl.finals, final)
		cl.mu.Unlock()
		return done, nil
	}
}

// endListens lets a client's listen streams answer (they watch
// g.closing) and waits, bounded by ctx, until those answers are written.
func (cl *client) endListens(ctx context.Context) {
	for {
		cl.mu.Lock()
		n := len(cl.listens)
		cl.mu.Unlock()
		if n == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return
		case <-cl.listenEnded:
		}
	}
	cl.mu.Lock()
	finals := cl.finals
	cl.mu.Unlock()
	for _, ch := range finals {
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}
