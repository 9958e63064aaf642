package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"mcpdeck/runtime/mcp"
)

// listenAckTimeout bounds the wait for notifications/subscriptions/
// acknowledged. A variable so tests need not wait for it.
var listenAckTimeout = 5 * time.Second

// Re-listening after a listen stream ended backs off from listenBackoff to
// listenMaxBackoff, so a server that ends every stream at once is not
// hammered; a stream that lived for listenHealthy resets the backoff.
var (
	listenBackoff    = 500 * time.Millisecond
	listenMaxBackoff = 30 * time.Second
	listenHealthy    = 10 * time.Second
)

// The states of a listen stream.
const (
	ListenPending = "pending" // sent, not acknowledged yet
	ListenOpen    = "open"    // acknowledged: change notifications flow
	ListenRetry   = "retrying"
)

// ListenInfo is a modern server's subscriptions/listen stream as the
// overview shows it: what was asked, what the server granted, and why it
// is not open when it is not.
type ListenInfo struct {
	State     string
	ID        uint64 // the listen request's id (its subscriptionId)
	Requested mcp.SubscriptionFilter
	Granted   mcp.SubscriptionFilter
	Since     time.Time // when the current stream opened (or was sent)
	Opens     int       // streams opened on this connection
	Err       string    // why the last stream ended or was refused
}

// listenState is the part of a modern session that keeps its
// subscriptions/listen stream open (loop, a goroutine the session owns).
// The loop changes the state under mu; live, relisten and the intake (a
// stream the server ended) read it. gen counts acknowledged streams, so a
// caller that changed the filter can wait for a stream that carries it.
type listenState struct {
	s       *session
	mu      sync.Mutex
	info    ListenInfo
	gen     uint64
	changed *sync.Cond
	restart chan struct{} // asks the loop to listen again with a new filter
	ended   chan string   // the listen ids the server ended (stdio notifications/cancelled)
	started bool
}

// start opens the subscriptions/listen stream of a modern session
// (the loop runs until the session closes, listening again whenever a
// stream ends) and waits, within the acknowledgement deadline, for the
// first stream to be acknowledged, so list changes made while the lists
// are fetched are not missed. A server that never acknowledges keeps its
// connection: the overview says list changes are not seen.
func (l *listenState) start(ctx context.Context) {
	s := l.s
	if _, ok := l.filter(); !ok {
		return
	}
	l.mu.Lock()
	l.changed = sync.NewCond(&l.mu)
	l.restart, l.ended = make(chan struct{}, 1), make(chan string, 4)
	l.started = true
	l.mu.Unlock()
	first := make(chan struct{})
	if !s.spawn(func() { l.loop(first) }) {
		return
	}
	select {
	case <-first:
	case <-ctx.Done():
	}
}

// filter is what to listen to: the list changes the server
// announces, and the resources subscribed to.
func (l *listenState) filter() (mcp.SubscriptionFilter, bool) {
	s := l.s
	var f mcp.SubscriptionFilter
	ok := false
	if d := s.discovered; d != nil {
		f, ok = d.Capabilities.Filter()
		if r := d.Capabilities.Resources; r != nil && r.Subscribe {
			f.ResourceSubscriptions = s.c.wish.subscribed(s.name)
			ok = ok || len(f.ResourceSubscriptions) > 0
		}
	}
	return f, ok
}

// loop keeps one listen stream open: open, wait for the
// acknowledgement, wait for the stream to end (or a new filter), open
// again. first is closed once the first stream is acknowledged or given
// up on.
func (l *listenState) loop(first chan struct{}) {
	s := l.s
	var once sync.Once
	signal := func() { once.Do(func() { close(first) }) }
	defer signal()
	backoff := listenBackoff
	for s.ctx.Err() == nil {
		f, ok := l.filter()
		if !ok {
			l.set(func(i *ListenInfo) { *i = ListenInfo{Opens: i.Opens} })
			signal()
			select {
			case <-l.restart:
				continue
			case <-s.ctx.Done():
				return
			}
		}
		opened := time.Now()
		err := l.once(f, signal)
		switch {
		case s.ctx.Err() != nil:
			return
		case errors.Is(err, errRelisten):
			backoff = listenBackoff
			continue
		case time.Since(opened) >= listenHealthy:
			backoff = listenBackoff
		}
		l.set(func(i *ListenInfo) {
			i.State = ListenRetry
			if err != nil {
				i.Err = err.Error()
			}
		})
		s.c.bus.publish(ListenChanged{EventHeader: EventHeader{Time: time.Now(), Server: s.name}, Listen: l.snapshot()})
		select {
		case <-time.After(backoff):
		case <-l.restart:
		case <-s.ctx.Done():
			return
		}
		backoff = min(backoff*2, listenMaxBackoff)
	}
}

// Why a listen stream ended on our side.
var (
	errRelisten = errors.New("listening again with a new filter")
	errNoAck    = errors.New("subscriptions/listen was not acknowledged")
	errEnded    = errors.New("the server ended the subscription")
)

// once opens one stream and returns when it ends: the server ended
// it (nil, or an error), it was never acknowledged, the filter changed,
// or the session closed.
func (l *listenState) once(f mcp.SubscriptionFilter, acked func()) error {
	s := l.s
	ctx, cancel := context.WithCancelCause(s.ctx)
	defer cancel(nil)
	ids := make(chan *mcp.Subscription, 1)
	done := make(chan error, 1)
	r := &request{method: mcp.MethodListen, params: map[string]any{"notifications": f}, label: "listen", stream: true, onID: func(id uint64) {
		l.set(func(i *ListenInfo) {
			*i = ListenInfo{State: ListenPending, ID: id, Requested: f, Since: time.Now(), Opens: i.Opens + 1, Err: i.Err}
		})
		ids <- s.router.Open(mcp.IDKey(id), s.intake.deliverListen)
	}}
	if !s.spawn(func() {
		_, err := s.chain(ctx, r)
		done <- err
	}) {
		return ErrClosed
	}
	var sub *mcp.Subscription
	select {
	case sub = <-ids:
	case err := <-done:
		return err // not even sent
	}
	defer s.router.Close(sub.ID)
	timer := time.NewTimer(listenAckTimeout)
	defer timer.Stop()
	select {
	case <-sub.Acked:
		l.set(func(i *ListenInfo) {
			i.State, i.Granted, i.Err = ListenOpen, sub.Granted, ""
		})
		l.mu.Lock()
		l.gen++
		l.changed.Broadcast()
		l.mu.Unlock()
		s.c.bus.publish(ListenChanged{EventHeader: EventHeader{Time: time.Now(), Server: s.name}, Listen: l.snapshot()})
		acked()
	case err := <-done:
		acked()
		return listenEnd(err)
	case <-timer.C:
		acked()
		cancel(fmt.Errorf("%w within %s", errNoAck, listenAckTimeout))
		<-done
		return fmt.Errorf("%w within %s: list changes are not being seen; listening again", errNoAck, listenAckTimeout)
	case <-s.ctx.Done():
		<-done
		return ErrClosed
	}
	for {
		select {
		case err := <-done:
			return listenEnd(err)
		case <-l.restart:
			cancel(errRelisten)
			<-done
			return errRelisten
		case id := <-l.ended:
			if id != sub.ID {
				continue // an earlier stream's end, announced late
			}
			cancel(errEnded)
			<-done
			return errEnded
		case <-s.ctx.Done():
			<-done
			return ErrClosed
		}
	}
}

// listenEnd words how a listen stream ended on the server's side.
func listenEnd(err error) error {
	if err == nil {
		return errEnded // a complete response: the server ended it gracefully
	}
	return fmt.Errorf("subscriptions/listen ended: %w", err)
}

// set changes the listen info under its lock.
func (l *listenState) set(f func(*ListenInfo)) {
	l.mu.Lock()
	f(&l.info)
	l.mu.Unlock()
}

// snapshot returns the listen stream's state, or nil when the session
// has none.
func (l *listenState) snapshot() *ListenInfo {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.started {
		return nil
	}
	info := l.info
	return &info
}

// relisten asks the loop to open a stream with the current filter, and
// waits (within the call timeout) until one is acknowledged; it returns
// the filter the server granted.
func (l *listenState) relisten(ctx context.Context) (mcp.SubscriptionFilter, error) {
	s := l.s
	l.mu.Lock()
	if !l.started {
		l.mu.Unlock()
		// No stream yet (there was nothing to listen to): start one.
		l.start(ctx)
		return l.grantedNow()
	}
	gen := l.gen
	l.mu.Unlock()
	select {
	case l.restart <- struct{}{}:
	default:
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.CallTimeout)
	defer cancel()
	stop := context.AfterFunc(ctx, func() {
		l.mu.Lock()
		l.changed.Broadcast()
		l.mu.Unlock()
	})
	defer stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.gen == gen && ctx.Err() == nil {
		l.changed.Wait()
	}
	if l.gen == gen {
		return mcp.SubscriptionFilter{}, fmt.Errorf("%w: no acknowledged subscriptions/listen within %s (%s)", ErrTimeout, s.cfg.CallTimeout, orNone(l.info.Err))
	}
	return l.info.Granted, nil
}

func (l *listenState) grantedNow() (mcp.SubscriptionFilter, error) {
	info := l.snapshot()
	if info == nil || info.State != ListenOpen {
		why := "the server did not acknowledge subscriptions/listen"
		if info != nil && info.Err != "" {
			why = info.Err
		}
		return mcp.SubscriptionFilter{}, fmt.Errorf("%w: %s", ErrTimeout, why)
	}
	return info.Granted, nil
}

func orNone(s string) string {
	if s == "" {
		return "no reason given"
	}
	return s
}

// serverEnded handles a stdio notifications/cancelled naming the
// current listen request: the server ended the subscription.
func (l *listenState) serverEnded(requestID string) bool {
	l.mu.Lock()
	id, started := l.info.ID, l.started
	l.mu.Unlock()
	if !started || mcp.IDKey(id) != requestID {
		return false
	}
	select {
	case l.ended <- requestID:
	default:
	}
	return true
}

// granted reports whether the open listen stream carries uri.
func (i *ListenInfo) granted(uri string) bool {
	return i != nil && slices.Contains(i.Granted.ResourceSubscriptions, uri)
}

// FilterString renders a subscription filter for people:
// "tools, prompts, resources, 2 resources".
func FilterString(f mcp.SubscriptionFilter) string {
	var parts []string
	if f.ToolsListChanged {
		parts = append(parts, "tools")
	}
	if f.PromptsListChanged {
		parts = append(parts, "prompts")
	}
	if f.ResourcesListChanged {
		parts = append(parts, "resources")
	}
	if n := len(f.ResourceSubscriptions); n > 0 {
		parts = append(parts, fmt.Sprintf("%d subscribed resource(s)", n))
	}
	if n := len(f.TasksStatus); n > 0 {
		parts = append(parts, fmt.Sprintf("%d task(s)", n))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}
