package check

import (
	"context"
	"sync"
	"time"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// observer collects the checker's controller events. It subscribes
// losslessly, because several rules judge the whole session (every noise
// line, every response id) and must not miss an event to a full buffer;
// its goroutine does nothing but append, so it never holds a server's
// stream back for long.
type observer struct {
	cancel func()
	done   chan struct{}
	once   sync.Once

	mu      sync.Mutex
	events  []runtime.Event
	changed chan struct{} // closed and replaced on every append
}

func observe(rt *runtime.Controller) *observer {
	ch, cancel := rt.Subscribe(runtime.SubscribeOptions{Lossless: true, Buffer: 1024})
	o := &observer{cancel: cancel, done: make(chan struct{}), changed: make(chan struct{})}
	go o.collect(ch)
	return o
}

func (o *observer) collect(ch <-chan runtime.Event) {
	defer close(o.done)
	for e := range ch {
		if e = keep(e); e != nil {
			o.mu.Lock()
			o.events = append(o.events, e)
			close(o.changed)
			o.changed = make(chan struct{})
			o.mu.Unlock()
		}
	}
}

// keep drops what no step looks at, and the bulk of traced frames: only
// the initialize result and the tools/list requests (a page's cursor) are
// read whole, the rest by size and id.
func keep(e runtime.Event) runtime.Event {
	switch e := e.(type) {
	case runtime.TrafficFrame:
		listing := e.Frame.Method == mcp.MethodListTools && e.Frame.Dir == runtime.Out && e.Frame.Kind == runtime.FrameRequest
		if e.Frame.Method != "initialize" && !listing {
			e.Frame.Raw = nil
		}
		return e
	case runtime.StateChanged, runtime.Progress, runtime.LogMessage, runtime.NotificationReceived,
		runtime.StdoutNoise, runtime.ProtocolAnomaly, runtime.RequestStarted:
		return e
	}
	return nil
}

// stop unsubscribes and waits until every event published before is
// collected. Call it only once the controller is shut down: nothing
// publishes then. Idempotent.
func (o *observer) stop() {
	o.once.Do(func() {
		o.cancel()
		<-o.done
	})
}

// mark is a position in the event list; waitFor looks from a mark on.
func (o *observer) mark() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.events)
}

// all returns every event collected so far.
func (o *observer) all() []runtime.Event {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]runtime.Event(nil), o.events...)
}

// waitFor returns the first event from mark on that matches, waiting up to
// d (or until ctx ends) for one to arrive.
func (o *observer) waitFor(ctx context.Context, from int, d time.Duration, match func(runtime.Event) bool) (runtime.Event, bool) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		o.mu.Lock()
		for ; from < len(o.events); from++ {
			if match(o.events[from]) {
				e := o.events[from]
				o.mu.Unlock()
				return e, true
			}
		}
		changed := o.changed
		o.mu.Unlock()
		select {
		case <-changed:
		case <-timer.C:
			return nil, false
		case <-ctx.Done():
			return nil, false
		}
	}
}

// frameIn matches a traced incoming frame answering method.
func frameIn(method string) func(runtime.Event) bool {
	return func(e runtime.Event) bool {
		f, ok := e.(runtime.TrafficFrame)
		return ok && f.Frame.Dir == runtime.In && f.Frame.Method == method &&
			(f.Frame.Kind == runtime.FrameResult || f.Frame.Kind == runtime.FrameError)
	}
}
