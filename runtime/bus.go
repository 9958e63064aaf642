package runtime

import (
	"sync"
	"sync/atomic"
)

// SubscribeOptions choose how a subscriber receives events.
type SubscribeOptions struct {
	// Buffer bounds the events waiting for a lossy subscriber; default 4096.
	Buffer int
	// Lossless makes publishers wait for this subscriber instead of dropping
	// events. Notification intake then slows the servers' streams (pipe and
	// TCP flow control) rather than losing anything. For headless consumers
	// that must see everything (watch); never for a UI.
	Lossless bool
	// Dropped, when set, counts the events dropped for this lossy
	// subscriber alone, so it can say where its stream has a gap (the
	// session recorder writes a gap line).
	Dropped *atomic.Uint64
	// HTTP asks for HTTPExchange events: remote transports copy each
	// exchange's headers and bodies only while a subscriber wants them.
	HTTP bool
}

// bus fans events out to subscribers. Publishing never blocks on a lossy
// subscriber: each has a ring that drops its oldest event when full.
type bus struct {
	mu      sync.Mutex
	subs    map[*subscriber]struct{}
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
	dropped  *atomic.Uint64 // this subscriber's drops, if asked for
	done     chan struct{}
	once     sync.Once
	// sending is held (read) by lossless publishers while they send, so
	// cancel closes out only when no send is in flight.
	sending sync.RWMutex

	mu      sync.Mutex
	ring    []Event
	head, n int
	ready   chan struct{}
	bus     *bus
}

func newBus() *bus { return &bus{subs: map[*subscriber]struct{}{}} }

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
	s := &subscriber{lossless: opts.Lossless, dropped: opts.Dropped, done: make(chan struct{}), bus: b}
	if opts.Lossless {
		s.out = make(chan Event, opts.Buffer)
		b.lossless.Add(1)
	} else {
		if batched {
			s.batches = make(chan []Event)
		} else {
			s.out = make(chan Event)
		}
		s.ring = make([]Event, opts.Buffer)
		s.ready = make(chan struct{}, 1)
	}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	pumpDone := make(chan struct{})
	if opts.Lossless {
		close(pumpDone)
	} else {
		go s.pump(pumpDone)
	}
	cancel := func() {
		s.once.Do(func() {
			b.mu.Lock()
			delete(b.subs, s)
			b.mu.Unlock()
			close(s.done)
			if opts.HTTP {
				b.http.Add(-1)
			}
			<-pumpDone
			if s.lossless {
				b.lossless.Add(-1)
				s.sending.Lock() // senders see done and leave
				close(s.out)
				s.sending.Unlock()
			}
		})
	}
	return s, cancel
}

// publish delivers e to every subscriber.
func (b *bus) publish(e Event) {
	b.mu.Lock()
	subs := make([]*subscriber, 0, len(b.subs))
	for s := range b.subs {
		subs = append(subs, s)
	}
	b.mu.Unlock()
	for _, s := range subs {
		if s.lossless {
			s.sending.RLock()
			select {
			case <-s.done:
			default:
				select {
				case s.out <- e:
				case <-s.done:
				}
			}
			s.sending.RUnlock()
			continue
		}
		if s.push(e) {
			b.dropped.Add(1)
			if s.dropped != nil {
				s.dropped.Add(1)
			}
		}
	}
}

// push appends to the ring, dropping the oldest when full; it reports a drop.
func (s *subscriber) push(e Event) (dropped bool) {
	s.mu.Lock()
	if s.n == len(s.ring) {
		s.head = (s.head + 1) % len(s.ring)
		s.n--
		dropped = true
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

// pump moves events from the ring to the subscriber's channel, in order.
func (s *subscriber) pump(done chan struct{}) {
	defer close(done)
	if s.batches != nil {
		defer close(s.batches)
		s.pumpBatches()
		return
	}
	defer close(s.out)
	for {
		s.mu.Lock()
		if s.n == 0 {
			s.mu.Unlock()
			select {
			case <-s.ready:
				continue
			case <-s.done:
				return
			}
		}
		e := s.ring[s.head]
		s.ring[s.head] = nil
		s.head = (s.head + 1) % len(s.ring)
		s.n--
		s.mu.Unlock()
		select {
		case s.out <- e:
		case <-s.done:
			return
		}
	}
}

// pumpBatches moves everything queued to the subscriber as one slice.
func (s *subscriber) pumpBatches() {
	for {
		s.mu.Lock()
		if s.n == 0 {
			s.mu.Unlock()
			select {
			case <-s.ready:
				continue
			case <-s.done:
				return
			}
		}
		batch := make([]Event, min(s.n, maxBatch))
		for i := range batch {
			batch[i] = s.ring[s.head]
			s.ring[s.head] = nil
			s.head = (s.head + 1) % len(s.ring)
		}
		s.n -= len(batch)
		s.mu.Unlock()
		select {
		case s.batches <- batch:
		case <-s.done:
			return
		}
	}
}
