package runtime

import (
	"fmt"
	"time"

	"mcpdeck/config"
)

// The spawn queue bounds how many stdio servers are being spawned at once.
// A start beyond the bound waits in the queue, in state starting, with the
// reason "waiting for its turn to spawn"; its connection attempt, and with
// it the server's startup timeout, begins only when its turn comes. A turn
// lasts from the attempt's start until its process is spawned (the
// attempt reports initializing) or the attempt ends, so a thousand servers
// that never answer take their turns one spawn each, not one startup
// timeout each. A start waits in the queue at most queueTimeout, a bound of
// its own: past it, it fails with a timeout that says so. Remote servers
// are not queued: they spawn nothing.

// Defaults of Options.SpawnConcurrency and Options.SpawnQueueTimeout.
const (
	DefaultSpawnConcurrency  = 64
	DefaultSpawnQueueTimeout = time.Minute
)

// queuedStart is a start waiting for its turn to spawn.
type queuedStart struct {
	name string
	gen  uint64
}

// launch begins the connection attempt s.conn.gen, or queues it while
// spawnLimit stdio servers are being spawned.
func (m *machine) launch(s *srv) {
	if s.cfg.Transport == config.TransportStdio && m.spawnLimit > 0 {
		if m.spawning >= m.spawnLimit {
			s.conn.queued = true
			s.life.reason = fmt.Sprintf("waiting for its turn to spawn (%d at a time)", m.spawnLimit)
			m.queue = append(m.queue, queuedStart{name: s.cfg.Name, gen: s.conn.gen})
			m.emit(effQueueTimeout{name: s.cfg.Name, gen: s.conn.gen, after: m.queueTimeout})
			return
		}
		m.spawning++
		s.conn.spawning = true
	}
	m.emit(effStart{name: s.cfg.Name, gen: s.conn.gen, cfg: s.cfg})
}

// release gives back what s's connection holds of the queue (its turn to
// spawn, or its place in the queue) before the connection is given up or
// has spawned, and starts what waits for the turn.
func (m *machine) release(s *srv) {
	if s.conn.queued {
		s.conn.queued = false
		m.emit(effCancelQueueTimeout{gen: s.conn.gen})
	}
	if !s.conn.spawning {
		return
	}
	s.conn.spawning = false
	m.spawning--
	for m.spawning < m.spawnLimit && len(m.queue) > 0 {
		q := m.queue[0]
		m.queue = m.queue[1:]
		t := m.servers[q.name]
		if t == nil || t.conn.gen != q.gen || !t.conn.queued {
			continue // stopped while it waited
		}
		t.conn.queued = false
		m.emit(effCancelQueueTimeout{gen: q.gen})
		t.life.reason = ""
		m.dirty = true
		m.spawning++
		t.conn.spawning = true
		m.emit(effStart{name: t.cfg.Name, gen: t.conn.gen, cfg: t.cfg})
	}
}

// queueTimedOut fails a start that waited for its turn past queueTimeout.
func (m *machine) queueTimedOut(in msgQueueTimeout) {
	s := m.servers[in.name]
	if s == nil || s.conn.gen != in.gen || !s.conn.queued {
		return // its turn came, or it was stopped
	}
	ahead := m.spawning
	for _, q := range m.queue {
		if q.gen == in.gen {
			break
		}
		if t := m.servers[q.name]; t != nil && t.conn.gen == q.gen && t.conn.queued {
			ahead++
		}
	}
	s.conn.queued = false // its timer has fired: nothing to cancel
	m.attemptFailed(s, in.gen, fmt.Errorf("%w: not spawned within %s of being asked to start: %d servers were being started ahead of it, %d at a time; start fewer servers at once",
		ErrTimeout, m.queueTimeout, ahead, m.spawnLimit))
}
