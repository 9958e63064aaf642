package runtime

import (
	"sort"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime/proc"
)

// view is one publication as the machine sees it: the snapshot, plus which
// connection generation stands behind each server. The loop binds the
// generations to its sessions.
type view struct {
	snap *Snapshot
	// published names the servers whose capabilities are in the snapshot:
	// calls go to their sessions.
	published map[string]uint64
	// sessions names every server with a session whose live data (pings,
	// outstanding requests, counters) the snapshot overlays, published or
	// not, closing or not.
	sessions map[string]uint64
	// events are the state events this publication shows, released with it.
	events []Event
	// configRoots are each server's configured roots, for the overlay of
	// the roots in force.
	configRoots map[string][]string
	// identities are the published servers' identities, for their tool
	// decisions.
	identities map[string]string
}

// publication is what the loop last published: the snapshot's stable
// part, plus the sessions behind it for calls and the live overlay.
type publication struct {
	snap      *Snapshot
	published map[string]*session // calls go here
	live      map[string]*session // the live overlay reads these
	tools     map[string]Tool     // by normalized name
	// configRoots are each server's configured roots (see view).
	configRoots map[string][]string
	// identities are the published servers' identities (see view).
	identities map[string]string
}

// publish emits a publication of the machine's state now.
func (m *machine) publish() {
	m.pubGen++
	m.dirty = false
	v := view{
		snap:       &Snapshot{Generation: m.pubGen, At: m.now, Enabled: m.enabled},
		published:  map[string]uint64{},
		sessions:   map[string]uint64{},
		events:     m.events,
		identities: map[string]string{},
	}
	m.events = nil
	snap := v.snap
	for _, f := range m.cfg.Files {
		snap.Sources = append(snap.Sources, f.Path)
	}
	perServer := map[string][]Tool{}
	v.configRoots = map[string][]string{}
	for name, s := range m.servers {
		sv := s.snapshot()
		v.configRoots[name] = s.cfg.Roots
		switch {
		case s.conn.live:
			v.sessions[name] = s.conn.gen
		case s.conn.closingLive:
			v.sessions[name] = s.conn.closing
		}
		if s.conn.published && s.conn.live {
			v.published[name] = s.conn.gen
			perServer[name] = s.conn.info.lists.Tools
			v.identities[name] = s.conn.info.identity
		}
		snap.Servers = append(snap.Servers, sv)
	}
	snap.Tools = bridgeTools(perServer)
	// The operator's decisions, where tools enter the snapshot: every face
	// sees the same switches and changes.
	m.tools.state().apply(snap.Tools, v.identities)
	// Each server's own list carries the normalized names and the
	// decisions too, and what its tools cost.
	for i := range snap.Servers {
		sv := &snap.Servers[i]
		if len(sv.Tools) == 0 {
			continue
		}
		tools := make([]Tool, 0, len(sv.Tools))
		for _, t := range snap.Tools {
			if t.Server == sv.Name {
				tools = append(tools, t)
			}
		}
		sv.Tools = tools
		sv.ToolCost, sv.ToolCostOn = ToolTotals(tools)
	}
	sort.Slice(snap.Servers, func(i, j int) bool { return snap.Servers[i].Name < snap.Servers[j].Name })
	m.emit(effPublish{view: v})
}

// snapshot is one server's part of a publication.
func (s *srv) snapshot() ServerSnapshot {
	v := ServerSnapshot{
		Name: s.cfg.Name, Transport: s.cfg.Transport, Target: s.target,
		Source: s.cfg.Source, Scope: s.cfg.Scope, Enabled: s.on, ConfigEnabled: s.cfg.Enabled,
		Note:  s.cfg.NeedsInput,
		State: s.life.state, Reason: s.life.reason, Reconnectable: s.life.reconnectable, LastError: s.life.lastErr,
		Restarts: s.life.restarts, Attempts: s.life.attempts, NextRetry: s.life.nextRetry,
		GaveUp: s.life.state == StateFailed && s.life.reconnectable && s.cfg.AutoReconnect.Enabled &&
			s.life.attempts > 0 && s.life.attempts >= s.cfg.AutoReconnect.MaxAttempts,
		Counters: s.life.left.counters, LastStop: s.life.left.stop,
		LogLevel: s.cfg.LogLevel, // the configured level; Snapshot overlays the one in force
	}
	switch {
	case s.cfg.Invalid != nil:
		v.Note = s.cfg.Invalid.Error()
	case s.cfg.Unapproved:
		v.Note = "not approved: " + s.cfg.Source + " has changed or was never approved"
	}
	if s.conn.live {
		v.StartedAt = s.conn.startedAt
		v.Fallback = s.conn.info.fallback
		if v.Fallback != "" {
			v.Transport = config.TransportSSE // the transport in use, not the one tried first
		}
	} else if !s.conn.closingLive {
		v.Stderr = s.life.left.stderr
	}
	v.HeldBack = s.conn.live && !s.conn.published && s.life.state.Live()
	if s.conn.published && s.conn.live {
		in := s.conn.info
		v.ServerInfo, v.ProtocolVersion = in.init.ServerInfo, in.init.ProtocolVersion
		v.Era, v.EraReason, v.EraDecision = in.init.era, in.init.eraReason, in.init.eraDecision
		v.DroppedTools, v.ListedAt = in.lists.Dropped, listingsOf(in.lists.Listed)
		v.Capabilities, v.Instructions = in.init.Capabilities.JSON(), in.init.Instructions
		v.Tools, v.Prompts, v.Resources, v.Templates = in.lists.Tools, in.lists.Prompts, in.lists.Resources, in.lists.Templates
		v.SecretLeaks = in.leaks
	}
	return v
}

// target renders a redacted server's command line or URL.
func target(s config.Server) string {
	if s.Transport != config.TransportStdio {
		return s.URL
	}
	return s.CommandLine()
}

// Snapshot returns an immutable view of the session now: the last
// publication plus live data (outstanding requests, pings, counters,
// stderr) read from the connections.
func (c *Controller) Snapshot() *Snapshot {
	pub := c.pub.Load()
	snap := *pub.snap
	snap.At = time.Now()
	snap.DroppedEvents = c.bus.dropped.Load()
	snap.Servers = make([]ServerSnapshot, len(pub.snap.Servers))
	for i, v := range pub.snap.Servers {
		if sess := pub.live[v.Name]; sess != nil {
			sess.live(&v)
		}
		v.Subscriptions = c.wish.subscribed(v.Name)
		v.LogLevel = c.logLevel(v.Name, v.LogLevel)
		v.Roots = c.rootsFor(v.Name, pub.configRoots[v.Name])
		snap.Servers[i] = v
	}
	return &snap
}

func sortDurations(d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
}

func stopInfo(r proc.StopResult) StopInfo {
	if r.Step == 0 {
		return StopInfo{}
	}
	info := StopInfo{Step: r.Step, Took: r.Elapsed, Leftovers: r.Leftovers}
	if r.Exit != nil {
		info.Exit = r.Exit.Error()
	}
	if r.Err != nil {
		info.Err = r.Err.Error()
	}
	return info
}
