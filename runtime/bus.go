package runtime

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// SubscribeOptions choose how a subscriber receives events.
type SubscribeOptions struct {
	// Buffer bounds the events waiting for a lossy subscriber, and is the
	// channel capacity of a lossless one; default 4096.
	Buffer int
	// Lossless asks for every event instead of a ring that drops the
	// oldest. The servers' streams (notification intake, stderr) then wait
	// while this subscriber lags, so pipe and TCP flow control slow the
	// servers rather than anything being lost. Nothing else waits for it:
	// what the controller loop and callers publish meanwhile queues past
	// Buffer, up to losslessLimit(Buffer) events, and only beyond that are
	// the oldest dropped (and counted, in Dropped and the snapshot's
	// DroppedEvents). For headless consumers that must see everything
	// (watch); never for a UI.
	Lossless bool
	// Dropped, when set, counts the events dropped for this subscriber
	// alone, so it can say where its stream has a gap (the session
	// recorder writes a gap line, watch says how many at the end).
	Dropped *atomic.Uint64
	// HTTP asks for HTTPExchange events: remote transports copy each
	// exchange's headers and bodies only while a subscriber wants them.
	HTTP bool
}

// losslessLimit bounds the events a lossless subscriber may have queued
// beyond its channel: a consumer that stopped reading altogether (a paused
// pager under watch) must not grow mcpdeck's memory without end, nor stall
// the controller loop.
func losslessLimit(buffer int) int { return max(16*buffer, 1<<16) }

// bus fans events out to subscribers. Publishing never blocks: each
// subscriber has a queue of its own, drained into its channel by its own
// pump goroutine. A lossy subscriber's queue is a ring that drops its
// oldest event when full; a lossless one's grows instead (to a limit).
// The goroutines that carry a server's stream call waitRoom before taking
// more from it: that is the only place anything waits for a lossless
// subscriber, so back-pressure reaches the servers and never the loop.
type bus struct {
	mu   sync.Mutex // serialises changes to subs
	subs atomic.Pointer[[]*subscriber]
	// dropped counts every event dropped for any subscriber.
	dropped atomic.Uint64
	// lossless counts lossless subscribers; connections opened while one
	// exists deliver notifications losslessly too.
	lossless atomic.Int32
	// http counts subscribers that want HTTPExchange events.
	http atomic.Int32
}

type subscriber struct {
	out      chan Event
	batches  chan []Event // instead of out, for a batched subscriber
	lossless bool
	limit    int // the most events the queue holds
	// high is how many events may queue behind a lossless subscriber's
	// channel before the servers' intake waits (waitRoom); it goes on once
	// the queue is down to half of it, so intake and pump do not take
	// turns event by event.
	high    int
	dropped *atomic.Uint64 // this subscriber's drops, if asked for
	done    chan struct{}  // closed by cancel
	once    sync.Once

	// mu guards the queue and the flags below; publishers, the pump,
	// intake waiters and cancel all touch them.
	mu      sync.Mutex
	ring    []Event // the queue, oldest at head; len(ring) is its capacity
	head, n int
	// held says the pump has taken an event off the queue and is handing
	// it over: a publisher may send straight to out only while nothing is
	// queued or held, or it would overtake.
	held bool
	// closed is set by cancel before out is closed: publishers then leave
	// the subscriber alone.
	closed bool
	// room is closed, and cleared, when a lossless queue is down to half
	// of high: the intake waiting in waitRoom goes on. Nil while nobody
	// waits.
	room  chan struct{}
	ready chan struct{} // wakes the pump
	moved chan struct{} // signalled by the pump after each handover (flush watches it)
}

func newBus() *bus {
	b := &bus{}
	b.subs.Store(&[]*subscriber{})
	return b
}

// list returns the current subscribers; the slice is never modified.
func (b *bus) list() []*subscriber { return *b.subs.Load() }

// subscribe adds a subscriber; cancel removes it and closes its channel.
func (b *bus) subscribe(opts SubscribeOptions) (<-chan Event, func()) {
	s, cancel := b.add(opts, false)
	return s.out, cancel
}

// subscribeBatches adds a lossy subscriber that receives what is queued
// as one slice at a time: one handoff per burst instead of one per event,
// for consumers that keep up with floods (the session recorder).
func (b *bus) subscribeBatches(opts SubscribeOptions) (<-chan []Event, func()) {
	opts.Lossless = false
	s, cancel := b.add(opts, true)
	return s.batches, cancel
}

// maxBatch bounds one batch, so a consumer gets going before a long
// backlog is copied.
const maxBatch = 1024

func (b *bus) add(opts SubscribeOptions, batched bool) (*subscriber, func()) {
	if opts.Buffer <= 0 {
		opts.Buffer = 4096
	}
	if opts.HTTP {
		b.http.Add(1)
	}
	s := &subscriber{lossless: opts.Lossless, dropped: opts.Dropped, done: make(chan struct{}),
		ready: make(chan struct{}, 1), moved: make(chan struct{}, 1)}
	switch {
	case opts.Lossless:
		// The channel holds Buffer events, as a lossless subscriber's
		// always did; the queue behind it only takes what does not fit.
		s.out = make(chan Event, opts.Buffer)
		s.limit, s.high = losslessLimit(opts.Buffer), opts.Buffer
		s.ring = make([]Event, 16)
		b.lossless.Add(1)
	case batched:
		s.batches = make(chan []Event)
		s.limit = opts.Buffer
		s.ring = make([]Event, opts.Buffer)
	default:
		s.out = make(chan Event)
		s.limit = opts.Buffer
		s.ring = make([]Event, opts.Buffer)
	}
	b.mu.Lock()
	subs := append(append(make([]*subscriber, 0, len(b.list())+1), b.list()...), s)
	b.subs.Store(&subs)
	b.mu.Unlock()
	pumpDone := make(chan struct{})
	go s.pump(pumpDone)
	cancel := func() {
		s.once.Do(func() {
			b.mu.Lock()
			old := b.list()
			subs := make([]*subscriber, 0, len(old))
			for _, o := range old {
				if o != s {
					subs = append(subs, o)
				}
			}
			b.subs.Store(&subs)
			b.mu.Unlock()
			if s.lossless {
				s.flush()
			}
			close(s.done)
			<-pumpDone
			s.mu.Lock()
			s.closed = true
			if s.out != nil {
				// What is in the channel stays readable; what is still
				// queued behind it (a reader that stopped) is dropped.
				close(s.out)
			}
			if s.room != nil {
				close(s.room)
				s.room = nil
			}
			s.mu.Unlock()
			if opts.HTTP {
				b.http.Add(-1)
			}
			if s.lossless {
				b.lossless.Add(-1)
			}
		})
	}
	return s, cancel
}

// publish delivers e to every subscriber without waiting for any.
func (b *bus) publish(e Event) {
	for _, s := range b.list() {
		if s.push(e) {
			b.dropped.Add(1)
			if s.dropped != nil {
				s.dropped.Add(1)
			}
		}
	}
}

// waitRoom waits while a lossless subscriber lags (its channel full and
// as much again queued behind it), until it catches up, unsubscribes, or
// ctx ends. The goroutines
// that carry a server's stream (the notification dispatcher, the stderr
// drain) call it before publishing what they took from the server, so a
// lagging lossless subscriber slows the server's stream, and ctx (the
// session's) releases them when the server is being stopped. Nothing else
// ever waits for a subscriber.
func (b *bus) waitRoom(ctx context.Context) {
	if b.lossless.Load() == 0 {
		return
	}
	for _, s := range b.list() {
		if s.lossless && !s.waitRoom(ctx) {
			return
		}
	}
}

// waitRoom waits until fewer than high events are queued behind s's
// channel; false when ctx ended first.
func (s *subscriber) waitRoom(ctx context.Context) bool {
	for {
		s.mu.Lock()
		if s.closed || s.n < s.high {
			s.mu.Unlock()
			return true
		}
		if s.room == nil {
			s.room = make(chan struct{})
		}
		room := s.room
		s.mu.Unlock()
		select {
		case <-room:
		case <-s.done:
			return true
		case <-ctx.Done():
			return false
		}
	}
}

// push hands e to the subscriber: straight into its channel when that
// takes it at once and nothing is queued before it, else onto the queue,
// which grows (lossless, to its limit) or drops its oldest event. It
// reports a drop.
func (s *subscriber) push(e Event) (dropped bool) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	if s.out != nil && s.n == 0 && !s.held {
		select {
		case s.out <- e:
			s.mu.Unlock()
			return false
		default:
		}
	}
	if s.n == len(s.ring) {
		if len(s.ring) < s.limit {
			s.grow()
		} else {
			s.ring[s.head] = nil
			s.head = (s.head + 1) % len(s.ring)
			s.n--
			dropped = true
		}
	}
	s.ring[(s.head+s.n)%len(s.ring)] = e
	s.n++
	s.mu.Unlock()
	select {
	case s.ready <- struct{}{}:
	default:
	}
	return dropped
}

// grow doubles the queue, up to its limit, keeping the order.
func (s *subscriber) grow() {
	ring := make([]Event, min(2*len(s.ring), s.limit))
	for i := range s.n {
		ring[i] = s.ring[(s.head+i)%len(s.ring)]
	}
	s.ring, s.head = ring, 0
}

// take removes the oldest queued event; the caller holds mu and n > 0.
func (s *subscriber) take() Event {
	e := s.ring[s.head]
	s.ring[s.head] = nil
	s.head = (s.head + 1) % len(s.ring)
	s.n--
	return e
}

// handed runs after the pump handed an event over: intake waiting for
// room goes on once the queue is down to half of high, and a lossless
// queue that grew for a burst lets its memory go once empty. The caller
// holds mu.
func (s *subscriber) handed() {
	if s.room != nil && s.n <= s.high/2 {
		close(s.room)
		s.room = nil
	}
	if s.n == 0 && s.lossless && len(s.ring) > 16 {
		s.ring, s.head = make([]Event, 16), 0
	}
}

// flushGrace bounds how long cancelling a lossless subscription waits for
// its reader to take what is queued behind the channel, counted from the
// last event the reader took: a reader that keeps reading gets everything
// published before the cancel, as a lossless subscriber always did; one
// that stopped (a stdout nobody reads) holds the cancel this long at most.
const flushGrace = 100 * time.Millisecond

// flush waits while the pump still moves queued events into the channel,
// until the queue is empty or the reader has taken nothing for flushGrace.
func (s *subscriber) flush() {
	stalled := time.NewTimer(flushGrace)
	defer stalled.Stop()
	for {
		s.mu.Lock()
		empty := s.n == 0 && !s.held
		s.mu.Unlock()
		if empty {
			return
		}
		select {
		case <-s.moved:
			stalled.Reset(flushGrace)
		case <-stalled.C:
			return
		}
	}
}

// pump moves queued events to the subscriber's channel, in order, until
// cancel.
func (s *subscriber) pump(done chan struct{}) {
	defer close(done)
	if s.batches != nil {
		defer close(s.batches)
		s.pumpBatches()
		return
	}
	for s.awaitQueued() {
		e := s.take()
		s.held = true
		s.mu.Unlock()
		select {
		case s.out <- e:
		case <-s.done:
			return
		}
		s.mu.Lock()
		s.held = false
		s.handed()
		s.mu.Unlock()
		select {
		case s.moved <- struct{}{}:
		default:
		}
	}
}

// awaitQueued waits until an event is queued, and returns with mu held;
// false once the subscription ended.
func (s *subscriber) awaitQueued() bool {
	for {
		s.mu.Lock()
		if s.n > 0 {
			return true
		}
		s.mu.Unlock()
		select {
		case <-s.ready:
		case <-s.done:
			return false
		}
	}
}

// pumpBatches moves everything queued to the subscriber as one slice.
// Once cancelled it hands what is still queued over as one last batch to
// a reader that reads on, waiting for it at most lastBatchWait (one that
// stopped reading holds the cancel no longer): a consumer that drains the
// channel after cancelling, as both batched consumers do (the session
// recorder at Close, the gateway), gets every event published before the
// cancel, however late the pump ran.
func (s *subscriber) pumpBatches() {
	for s.awaitQueued() {
		batch := s.takeUpTo(maxBatch)
		s.mu.Unlock()
		select {
		case s.batches <- batch:
			continue
		case <-s.done:
		}
		s.mu.Lock()
		batch = append(batch, s.takeUpTo(s.n)...)
		s.mu.Unlock()
		stalled := time.NewTimer(lastBatchWait)
		defer stalled.Stop()
		select {
		case s.batches <- batch:
		case <-stalled.C:
		}
		return
	}
}

// lastBatchWait bounds how long a cancelled batched subscription waits
// for its reader to take the last batch. Both readers take it at once;
// the bound is for one that stopped reading, and generous so that a
// reader starved of CPU for a moment still gets its events.
const lastBatchWait = time.Second

// takeUpTo takes up to n events off the queue, oldest first. The caller
// holds mu.
func (s *subscriber) takeUpTo(n int) []Event {
	batch := make([]Event, min(s.n, n))
	for i := range batch {
		batch[i] = s.take()
	}
	return batch
}
