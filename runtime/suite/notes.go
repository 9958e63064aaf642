package suite

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
)

// note is one notification a server sent, as the document expectations
// and wait steps query: {"method": ..., "params": {...}}.
type note struct {
	at     time.Time
	method string
	doc    map[string]any
	reqID  uint64 // progress: the request it was routed to (0: routed too late)
	token  string // progress: its token
	uri    string // resources/updated: the resource
}

// collector keeps every notification one server sends during a run. It
// subscribes losslessly (a suite must see every notification it counts)
// and drains its subscription on its own goroutine, so the server is
// never slowed by the runner.
type collector struct {
	mu      sync.Mutex
	notes   []note
	tokens  map[string]string // a request's wire id → the progress token it carried
	changed chan struct{}     // closed and replaced whenever notes grow
	cancel  func()
	done    chan struct{}
}

func collect(rt *runtime.Controller, server string) *collector {
	events, cancel := rt.Subscribe(runtime.SubscribeOptions{Lossless: true})
	c := &collector{changed: make(chan struct{}), cancel: cancel, done: make(chan struct{}), tokens: map[string]string{}}
	go func() {
		defer close(c.done)
		for ev := range events {
			if ev.Header().Server != server {
				continue
			}
			if tf, ok := ev.(runtime.TrafficFrame); ok {
				c.noteToken(tf.Frame)
				continue
			}
			if n, ok := noteOf(ev); ok {
				c.add(n)
			}
		}
	}()
	return c
}

// noteToken remembers the progress token a request carried: a server's
// last progress notification may be dispatched after the request's answer
// was taken, when the runtime no longer routes it to the request, and the
// token still says whose it is.
func (c *collector) noteToken(f jsonrpc.Frame) {
	if f.Dir != jsonrpc.Out || f.Kind != jsonrpc.KindRequest {
		return
	}
	var msg struct {
		Params struct {
			Meta struct {
				Token json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(f.Raw, &msg) != nil || len(msg.Params.Meta.Token) == 0 {
		return
	}
	c.mu.Lock()
	c.tokens[f.ID] = strings.Trim(string(msg.Params.Meta.Token), `"`)
	c.mu.Unlock()
}

// owner returns whether a progress notification belongs to one of the
// requests ids.
func (c *collector) owner(ids map[uint64]bool) func(note) bool {
	c.mu.Lock()
	tokens := map[string]bool{}
	for id := range ids {
		if t, ok := c.tokens[jsonrpc.FormatID(id)]; ok {
			tokens[t] = true
		}
	}
	c.mu.Unlock()
	return func(n note) bool { return ids[n.reqID] || tokens[n.token] }
}

// stop ends the subscription and waits for the goroutine.
func (c *collector) stop() {
	c.cancel()
	<-c.done
}

func (c *collector) add(n note) {
	c.mu.Lock()
	c.notes = append(c.notes, n)
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

// mark is the position after the notifications collected so far.
func (c *collector) mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.notes)
}

// since returns the notifications from position from on.
func (c *collector) since(from int) []note {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]note(nil), c.notes[from:]...)
}

// waitFor waits until ok holds for the notifications from position from
// on, or until ctx ends; it reports whether ok held. ok runs with the
// collector locked: it must not call the collector.
func (c *collector) waitFor(ctx context.Context, from int, ok func([]note) bool) bool {
	for {
		c.mu.Lock()
		notes := c.notes[from:]
		changed := c.changed
		held := ok(notes)
		c.mu.Unlock()
		if held {
			return true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}

// noteOf turns the runtime's notification events back into the
// notifications they came from.
func noteOf(ev runtime.Event) (note, bool) {
	h := ev.Header()
	n := note{at: h.Time, method: runtime.MethodOf(ev)}
	params := map[string]any{}
	switch e := ev.(type) {
	case runtime.LogMessage:
		params["level"] = e.Level
		if e.Logger != "" {
			params["logger"] = e.Logger
		}
		params["data"] = rawDoc(e.Data)
	case runtime.Progress:
		n.reqID, n.token = e.RequestID, e.Token
		params["progressToken"] = e.Token
		params["progress"] = e.Progress
		if e.Total != 0 {
			params["total"] = e.Total
		}
		if e.Message != "" {
			params["message"] = e.Message
		}
	case runtime.ListChanged: // no params
	case runtime.ResourceUpdated:
		n.uri = e.URI
		params["uri"] = e.URI
	case runtime.NotificationReceived:
		if p, ok := rawDoc(e.Params).(map[string]any); ok {
			params = p
		}
	default:
		return n, false
	}
	n.doc = map[string]any{"method": n.method, "params": params}
	return n, true
}

func rawDoc(raw json.RawMessage) any {
	v, err := decodeJSON(raw)
	if err != nil {
		return string(raw)
	}
	return v
}
