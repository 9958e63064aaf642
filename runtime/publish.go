package runtime

import (
	"sort"

	"mcpdeck/config"
	"mcpdeck/runtime/proc"
	"strings"
	"time"
)

// publication is what the loop last published: the snapshot's stable
// part, plus the sessions behind it for calls and the live overlay.
type publication struct {
	snap *Snapshot
	// sessions of servers whose capabilities are published: calls go here.
	published map[string]*session
	// every connected session, published or not, for the live overlay.
	live map[string]*session
	// leftovers of servers without a session (counters, stderr).
	leftovers map[string]*server
	tools     map[string]Tool // by normalized name
}

// publish builds a new publication from the loop's state and announces it.
func (l *loop) publish() {
	l.gen++
	snap := &Snapshot{Generation: l.gen, At: time.Now(), Enabled: l.enabled, DroppedEvents: l.c.bus.dropped.Load()}
	for _, f := range l.cfg.Files {
		snap.Sources = append(snap.Sources, f.Path)
	}
	pub := &publication{snap: snap, published: map[string]*session{}, live: map[string]*session{},
		leftovers: map[string]*server{}, tools: map[string]Tool{}}
	perServer := map[string][]Tool{}
	for name, s := range l.servers {
		red := s.cfg.Redacted()
		v := ServerSnapshot{
			Name: name, Transport: s.cfg.Transport, Target: target(red),
			Source: s.cfg.Source, Scope: s.cfg.Scope, Enabled: s.on, Note: s.cfg.NeedsInput,
			State: s.state, Reason: s.reason, Reconnectable: s.reconnectable, LastError: s.lastErr,
			Fallback: s.fallback, Restarts: s.restarts, Attempts: s.attempts, NextRetry: s.nextRetry,
			Counters: s.counters, LastStop: s.lastStop,
		}
		if !l.enabled && s.state == StateDisabled && !s.on {
			v.Note = firstNonEmpty(v.Note, "disabled in configuration")
		}
		if s.sess != nil {
			v.StartedAt = s.sess.started
			pub.live[name] = s.sess
		} else {
			v.Stderr = s.lastStderr
		}
		if s.published && s.sess != nil {
			v.ServerInfo, v.ProtocolVersion = s.init.ServerInfo, s.init.ProtocolVersion
			v.Capabilities, v.Instructions = s.init.Capabilities, s.init.Instructions
			v.Tools, v.Prompts, v.Resources = s.lists.Tools, s.lists.Prompts, s.lists.Resources
			v.SecretLeaks = s.leaks
			pub.published[name] = s.sess
			perServer[name] = s.lists.Tools
		}
		snap.Servers = append(snap.Servers, v)
	}
	snap.Tools = bridgeTools(perServer)
	for _, t := range snap.Tools {
		pub.tools[t.Name] = t
	}
	// Each server's own list carries the normalized names too.
	for i := range snap.Servers {
		v := &snap.Servers[i]
		if len(v.Tools) == 0 {
			continue
		}
		tools := make([]Tool, 0, len(v.Tools))
		for _, t := range snap.Tools {
			if t.Server == v.Name {
				tools = append(tools, t)
			}
		}
		v.Tools = tools
	}
	sort.Slice(snap.Servers, func(i, j int) bool { return snap.Servers[i].Name < snap.Servers[j].Name })
	l.c.pub.Store(pub)
	for _, e := range l.pending {
		l.c.bus.publish(e)
	}
	l.pending = l.pending[:0]
	l.c.bus.publish(Published{EventHeader: EventHeader{Time: snap.At}, Generation: l.gen, Enabled: l.enabled, Snapshot: snap})
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// target renders a redacted server's command line or URL.
func target(s config.Server) string {
	if s.Transport != config.TransportStdio {
		return s.URL
	}
	parts := []string{quoteArg(s.Command)}
	for _, a := range s.Args {
		parts = append(parts, quoteArg(a))
	}
	return strings.Join(parts, " ")
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
		snap.Servers[i] = v
	}
	return &snap
}

func sortDurations(d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
}

// quoteArg quotes a command-line argument for display when it needs it.
func quoteArg(a string) string {
	if a == "" || strings.ContainsAny(a, " \t\"'\\$") {
		return `"` + strings.ReplaceAll(a, `"`, `\"`) + `"`
	}
	return a
}

func stopInfo(r proc.StopResult) StopInfo {
	if r.Step == 0 {
		return StopInfo{}
	}
	info := StopInfo{Step: r.Step, Took: r.Elapsed}
	if r.Exit != nil {
		info.Exit = r.Exit.Error()
	}
	if r.Err != nil {
		info.Err = r.Err.Error()
	}
	return info
}
