package runtime

import (
	"context"
	"sync"
	"time"
)

// loop is the controller goroutine: it feeds commands and reports to the
// machine one at a time and runs the effects the machine returns. It never
// waits for slow work itself: starting and stopping connections, relisting
// and delayed retries run on goroutines the loop owns (wg), which report
// back through Controller.internal. That keeps a snapshot, a toggle or
// another server's start answered while one server takes its time to stop.
type loop struct {
	c *Controller
	m *machine
	// conns are the connection attempts (and the sessions they opened) by
	// generation; only the loop goroutine touches the map.
	conns map[uint64]*attempt
	// timers are the scheduled automatic reconnects, by server.
	timers map[string]*time.Timer
	// queueTimers bound the starts waiting for their turn to spawn, by
	// connection generation.
	queueTimers map[uint64]*time.Timer
	wg          sync.WaitGroup
	exit        bool
}

// attempt is one connection attempt running on its own goroutine, and the
// session it opened (set, possibly with an error, before done is closed).
type attempt struct {
	cancel context.CancelFunc
	done   chan struct{}
	sess   *session
}

func newLoop(c *Controller, m *machine) *loop {
	return &loop{c: c, m: m, conns: map[uint64]*attempt{}, timers: map[string]*time.Timer{}, queueTimers: map[uint64]*time.Timer{}}
}

func (l *loop) run() {
	shutdown := l.c.shutdown
	for !l.exit {
		select {
		case cmd := <-l.c.cmds:
			l.apply(l.collect(cmd))
		case m := <-l.c.internal:
			l.applyReports(m)
		case <-shutdown:
			shutdown = nil // asked once; the machine refuses what comes after
			l.apply([]command{{kind: cmdShutdown, reply: make(chan reply, 1)}})
		}
	}
	close(l.c.loopExit) // reporters still sending give up
	for _, t := range l.timers {
		t.Stop()
	}
	for _, t := range l.queueTimers {
		t.Stop()
	}
	l.wg.Wait()
	close(l.c.loopDone)
}

// collect takes cmd and every command already queued behind it, so a burst
// collapses (the latest of each kind wins).
func (l *loop) collect(first command) []command {
	cmds := []command{first}
	for {
		select {
		case cmd := <-l.c.cmds:
			cmds = append(cmds, cmd)
		default:
			return cmds
		}
	}
}

// maxReports bounds a burst of reports stepped before one publication.
const maxReports = 256

// applyReports steps the machine with first and the reports queued behind
// it, then publishes once what they changed.
func (l *loop) applyReports(first any) {
	l.m.hold = true
	l.apply(first)
burst:
	for n := 1; n < maxReports && !l.exit; n++ {
		select {
		case m := <-l.c.internal:
			l.apply(m)
		default:
			break burst
		}
	}
	l.m.hold = false
	for _, e := range l.m.flush(time.Now()) {
		l.run1(e)
	}
}

// apply steps the machine with one input and runs the effects.
func (l *loop) apply(in any) {
	switch m := in.(type) {
	case msgStopped:
		delete(l.conns, m.gen) // its live data now lives in the leftovers
	case msgQueueTimeout:
		delete(l.queueTimers, m.gen)
	}
	effects, err := l.m.step(time.Now(), in)
	if err != nil {
		l.c.bus.publish(RuntimeFault{EventHeader: EventHeader{Time: time.Now()}, Err: err.Error()})
	}
	for _, e := range effects {
		l.run1(e)
	}
}

func (l *loop) run1(e effect) {
	switch e := e.(type) {
	case effStart:
		l.start(e)
	case effStop:
		l.stop(e)
	case effActivate:
		if att := l.conns[e.gen]; att != nil && att.sess != nil {
			att.sess.activate(e.ping)
		}
	case effRefetch:
		if att := l.conns[e.gen]; att != nil && att.sess != nil {
			att.sess.lists.refetchChanged()
		}
	case effDrop:
		if att := l.conns[e.gen]; att != nil && att.sess != nil {
			sess := att.sess
			sess.spawn(func() { _ = sess.conn.CloseWithCause(e.cause) })
		}
	case effRetry:
		if t := l.timers[e.name]; t != nil {
			t.Stop()
		}
		name, gen := e.name, e.gen
		l.timers[e.name] = time.AfterFunc(e.after, func() { l.c.send(context.Background(), msgRetry{name: name, gen: gen}) })
	case effQueueTimeout:
		name, gen := e.name, e.gen
		l.queueTimers[gen] = time.AfterFunc(e.after, func() { l.c.send(context.Background(), msgQueueTimeout{name: name, gen: gen}) })
	case effCancelQueueTimeout:
		if t := l.queueTimers[e.gen]; t != nil {
			t.Stop()
			delete(l.queueTimers, e.gen)
		}
	case effCancelRetry:
		if t := l.timers[e.name]; t != nil {
			t.Stop()
			delete(l.timers, e.name)
		}
	case effPublish:
		l.publish(e.view)
	case effReply:
		e.ch <- e.r
	case effExit:
		l.exit = true
	}
}

// start runs one connection attempt on its own goroutine.
func (l *loop) start(e effStart) {
	ctx, cancel := context.WithCancel(context.Background())
	att := &attempt{cancel: cancel, done: make(chan struct{})}
	l.conns[e.gen] = att
	l.wg.Go(func() {
		sess, info, err := l.c.connect(ctx, e.gen, e.cfg, func(st State) {
			l.c.send(ctx, msgAttemptState{name: e.name, gen: e.gen, state: st})
		})
		att.sess = sess
		close(att.done)
		l.c.send(context.Background(), msgAttemptDone{name: e.name, gen: e.gen, info: info, err: err})
	})
}

// stop closes connection gen on its own goroutine: the attempt is
// cancelled and waited for, its session and process closed, and what the
// session leaves behind reported with msgStopped.
func (l *loop) stop(e effStop) {
	att := l.conns[e.gen]
	l.wg.Go(func() {
		var left leftovers
		if att != nil {
			att.cancel()
			<-att.done
			if sess := att.sess; sess != nil {
				left.stop = stopInfo(sess.close())
				if sess.activated {
					sess.recordSessionEnd()
				}
				var v ServerSnapshot
				sess.live(&v)
				left.counters, left.stderr = v.Counters, v.Stderr
			}
		}
		l.c.send(context.Background(), msgStopped{name: e.name, gen: e.gen, left: left})
	})
}

// publish binds a view's generations to sessions, stores the publication,
// then announces the state events it shows and the publication itself.
func (l *loop) publish(v view) {
	pub := &publication{snap: v.snap, published: map[string]*session{}, live: map[string]*session{}, tools: map[string]Tool{},
		configRoots: v.configRoots, identities: v.identities}
	v.snap.DroppedEvents = l.c.bus.dropped.Load()
	for name, gen := range v.published {
		if att := l.conns[gen]; att != nil && att.sess != nil {
			pub.published[name] = att.sess
		}
	}
	for name, gen := range v.sessions {
		if att := l.conns[gen]; att != nil && att.sess != nil {
			pub.live[name] = att.sess
		}
	}
	for _, t := range v.snap.Tools {
		pub.tools[t.Name] = t
	}
	l.c.pub.Store(pub)
	for _, e := range v.events {
		l.c.bus.publish(e)
	}
	l.c.bus.publish(Published{EventHeader: EventHeader{Time: v.snap.At}, Generation: v.snap.Generation, Enabled: v.snap.Enabled, Snapshot: v.snap})
}
