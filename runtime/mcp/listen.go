package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"mcpdeck/jsonrpc"
)

// The subscriptions/listen method and the notifications around it.
const (
	MethodListen             = "subscriptions/listen"
	NotificationAcknowledged = "notifications/subscriptions/acknowledged"
	NotificationCancelled    = "notifications/cancelled"
)

// SubscriptionFilter is what a listen stream opts in to; the
// acknowledgement carries the subset the server agreed to.
type SubscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	// TasksStatus subscribes to notifications/tasks/status for these task
	// ids (the tasks extension).
	TasksStatus []string `json:"tasksStatus,omitempty"`
}

// ListenParamsWire are the params of subscriptions/listen and of its
// acknowledgement as the wire carries them.
type ListenParamsWire struct {
	Notifications *SubscriptionFilter `json:"notifications"` // required
	Meta          json.RawMessage     `json:"_meta,omitempty"`
}

// ListenParams are the params of subscriptions/listen, envelope included.
func ListenParams(f SubscriptionFilter, env Envelope) map[string]any {
	return env.Apply(map[string]any{"notifications": f})
}

// IDKey is the form in which a numeric request id appears as a
// subscriptionId: subscriptionId is the listen request's JSON-RPC id, and
// keys compare as compact JSON.
func IDKey(id uint64) string { return strconv.FormatUint(id, 10) }

// SubscriptionID returns the compact JSON of
// params._meta["io.modelcontextprotocol/subscriptionId"] and whether it was
// there. Notifications on a listen stream carry it; progress and logs,
// which belong to a request's own stream, do not.
func SubscriptionID(params json.RawMessage) (string, bool) {
	if !bytes.Contains(params, []byte(MetaSubscriptionID)) {
		return "", false // the common case, without a decode
	}
	raw := MetaValue(MetaOf(params), MetaSubscriptionID)
	if len(raw) == 0 {
		return "", false
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return "", false
	}
	return b.String(), true
}

// Acknowledged decodes notifications/subscriptions/acknowledged params: the
// subscription it acknowledges and the filter granted.
func Acknowledged(params json.RawMessage) (id string, granted SubscriptionFilter, err error) {
	id, ok := SubscriptionID(params)
	if !ok {
		return "", granted, fmt.Errorf("%w: %s carries no %s", ErrBadResult, NotificationAcknowledged, MetaSubscriptionID)
	}
	var p ListenParamsWire
	if err := json.Unmarshal(params, &p); err != nil {
		return id, granted, fmt.Errorf("%w: %s: %v", ErrBadResult, NotificationAcknowledged, err)
	}
	if p.Notifications != nil {
		granted = *p.Notifications
	}
	return id, granted, nil
}

// CancelledRequest returns the requestId a notifications/cancelled names, as
// compact JSON. On stdio the server sends it to end a listen stream.
func CancelledRequest(params json.RawMessage) (string, bool) {
	var p CancelledParams
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return "", false
	}
	var b bytes.Buffer
	if json.Compact(&b, p.RequestID) != nil {
		return "", false
	}
	return b.String(), true
}

// Subscription is the state of one listen stream as the router sees it.
type Subscription struct {
	ID      string
	Granted SubscriptionFilter
	// Acked is closed when the acknowledgement arrives.
	Acked chan struct{}
	// Deliver receives every notification of this subscription after the
	// acknowledgement, in arrival order. It runs on the connection's
	// notification goroutine and must not block for long.
	Deliver func(jsonrpc.Notification)

	once sync.Once
}

// Router demultiplexes notifications by subscriptionId: on stdio every
// listen stream shares one channel. It is safe for concurrent use.
type Router struct {
	mu   sync.Mutex
	subs map[string]*Subscription
}

// Open registers a subscription before its listen request is sent, so the
// acknowledgement cannot race past it.
func (r *Router) Open(id string, deliver func(jsonrpc.Notification)) *Subscription {
	s := &Subscription{ID: id, Deliver: deliver, Acked: make(chan struct{})}
	r.mu.Lock()
	if r.subs == nil {
		r.subs = map[string]*Subscription{}
	}
	r.subs[id] = s
	r.mu.Unlock()
	return s
}

// Close forgets a subscription (the client cancelled it, or it ended).
func (r *Router) Close(id string) {
	r.mu.Lock()
	delete(r.subs, id)
	r.mu.Unlock()
}

// Route delivers n to its subscription and reports whether it belonged to
// one: notifications without a subscriptionId (progress, logs, legacy list
// changes) return false for the caller's usual handling. An
// acknowledgement records the granted filter and closes Acked; a
// notification for an unknown subscription is swallowed (true), since it
// can only belong to a stream already closed.
func (r *Router) Route(n jsonrpc.Notification) bool {
	id, ok := SubscriptionID(n.Params)
	if !ok {
		return false
	}
	r.mu.Lock()
	s := r.subs[id]
	r.mu.Unlock()
	if s == nil {
		return true
	}
	if n.Method == NotificationAcknowledged {
		_, granted, _ := Acknowledged(n.Params)
		s.once.Do(func() {
			s.Granted = granted
			close(s.Acked)
		})
		return true
	}
	if s.Deliver != nil {
		s.Deliver(n)
	}
	return true
}
