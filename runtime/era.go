package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"mcpdeck/config"
	"mcpdeck/runtime/mcp"
)

// Era is the protocol era a server speaks: legacy (the initialize
// handshake, 2025-11-25 and earlier) or modern (stateless, 2026-07-28).
type Era = mcp.Era

// The eras. EraUnknown is a server not negotiated yet.
const (
	EraUnknown = mcp.Unknown
	EraLegacy  = mcp.Legacy
	EraModern  = mcp.Modern
)

// ProtocolVersions are the legacy (initialize) revisions mcpdeck speaks,
// newest first; the modern ones are in mcp.ModernVersions. Kept for the
// checker, which judges initialize answers against it.
var ProtocolVersions = mcp.LegacyVersions()

// maxVersionRetries bounds the -32022 retries of one negotiation: a server
// that names a version and then refuses it must not loop the client.
const maxVersionRetries = 2

// preference is the protocol setting in force for a server: the
// controller's (the --protocol flag, when given) over the server's own.
func (c *Controller) preference(cfg config.Server) (mcp.Preference, error) {
	setting, where := cfg.Protocol, "its \"protocol\" setting"
	if c.opts.Protocol != "" {
		setting, where = c.opts.Protocol, "--protocol"
	}
	p, err := mcp.ParsePreference(setting)
	if err != nil {
		return p, fmt.Errorf("%w: %s: %w", ErrConfig, where, err)
	}
	return p, nil
}

// EraDecision says how a server's protocol era was decided, for the
// overview, servers and recordings: the era alone does not tell a server
// that answered the probe from one remembered, or one whose late answer
// switched it.
type EraDecision int

// The ways an era is decided. EraUndecided is a server not negotiated yet.
const (
	EraUndecided EraDecision = iota
	// EraDiscoverAnswered: probed, and server/discover answered (a
	// discovery result, or a 2026-07-28 error) before initialize was sent.
	EraDiscoverAnswered
	// EraLegacyError: probed, and the answer was a legacy one: an error of
	// the session revisions (-32601, -32602, …), something that is not a
	// discovery result, a 4xx over HTTP, or a closed connection.
	EraLegacyError
	// EraTimedOut: probed, server/discover went unanswered, and the
	// initialize sent after the fallback wait (discoverTimeout) answered.
	EraTimedOut
	// EraRemembered: remembered from an earlier connection (this run or an
	// earlier one, see EraMemory) and confirmed by the handshake.
	EraRemembered
	// EraPinned: the protocol setting (--protocol, or "protocol" in
	// mcp.json; "type": "sse") allows only one era.
	EraPinned
	// EraSwitched: server/discover answered after the fallback had sent
	// initialize: the late answer won and the server is spoken to in the
	// modern era (started again when it had taken the initialize).
	EraSwitched
)

// eraDecisionNames are the stable names (JSON, recordings) of the
// decisions, indexed by EraDecision.
var eraDecisionNames = [...]string{"", "probed-discover", "probed-legacy-error", "probed-timeout", "remembered", "pinned", "switched"}

// String is the decision's stable name: "probed-discover",
// "probed-legacy-error", "probed-timeout", "remembered", "pinned",
// "switched"; "" when undecided.
func (d EraDecision) String() string {
	if d < 0 || int(d) >= len(eraDecisionNames) {
		return ""
	}
	return eraDecisionNames[d]
}

// EraDecisions are the decisions, in order, for faces that word each one.
func EraDecisions() []EraDecision {
	return []EraDecision{EraDiscoverAnswered, EraLegacyError, EraTimedOut, EraRemembered, EraPinned, EraSwitched}
}

// negotiated is what the era negotiation decided, before the session
// speaks it.
type negotiated struct {
	era      mcp.Era
	version  string
	discover *mcp.DiscoverResult
	reason   string
	decision EraDecision
}

// handshake decides the era of a session and opens it. Remote sessions
// decided their era while dialing (the HTTP probe, see dialRemote); for
// them only initialize is left, in the legacy era. A stdio session starts
// from what the preference and the era memory say:
//   - a preference without modern revisions: initialize (pinned);
//   - without legacy ones: server/discover, waited for as long as the
//     startup timeout allows (pinned);
//   - auto, remembered legacy: initialize, no probe;
//   - auto, remembered modern: server/discover with no fallback wait (a
//     legacy answer still falls back at once);
//   - auto otherwise: the probe, with initialize sent alongside after the
//     fallback wait, and the first answer that settles the era wins (see
//     probeState.next).
//
// It returns the session to keep, which differs from s when the server had
// to be started again.
func (c *Controller) handshake(ctx context.Context, s *session, pref mcp.Preference) (*session, error) {
	if s.decided != nil {
		if s.decided.era == mcp.Modern {
			return s, s.useModern(*s.decided)
		}
		s.eraReason, s.eraDecision = s.decided.reason, s.decided.decision
		return s, s.initialize(ctx, pref)
	}
	remembered, known := s.recall()
	switch {
	case !pref.Probes():
		s.eraReason, s.eraDecision = "initialize (the protocol setting is "+pref.String()+")", EraPinned
		return s, s.initialize(ctx, pref)
	case !pref.FallsBack():
		return c.negotiateStdio(ctx, s, pref, probePlan{decision: EraPinned, why: "the protocol setting is " + pref.String()})
	case known && remembered.Era == mcp.Legacy:
		s.eraReason, s.eraDecision = rememberedReason(remembered)+"; initialize without a probe", EraRemembered
		s.fromMemory = true
		return s, s.initialize(ctx, pref)
	case known && remembered.Era == mcp.Modern:
		s.fromMemory = true
		return c.negotiateStdio(ctx, s, pref, probePlan{decision: EraRemembered, why: rememberedReason(remembered)})
	}
	fallback := s.cfg.DiscoverTimeout
	if fallback <= 0 {
		fallback = mcp.DefaultProbeTimeout
	}
	return c.negotiateStdio(ctx, s, pref, probePlan{decision: EraDiscoverAnswered, fallback: fallback})
}

// rememberedReason words a remembered era, with when it was recorded (an
// unchanged entry is written again only after refreshAfter, so this is not
// the last time the server was seen).
func rememberedReason(r RememberedEra) string {
	when := "earlier"
	if !r.Seen.IsZero() {
		when = "recorded " + r.Seen.Local().Format("2006-01-02 15:04")
	}
	return fmt.Sprintf("remembered as %s %s (%s)", r.Era, r.Version, when)
}

// negotiationError words a failed negotiation so its kind is right: no
// revision in common is KindUnsupportedVersion, not a protocol error.
func negotiationError(err error) error {
	var nm *mcp.NoMutualVersionError
	if errors.As(err, &nm) {
		return fmt.Errorf("%w: %w", ErrUnsupportedVersion, err)
	}
	return failedIn(mcp.MethodDiscover, err)
}

// envelope is the _meta envelope of this session's modern requests at
// version: what mcpdeck can do for this server, who it is, and the log
// level asked for (only of servers that declare logging, once known).
func (s *session) envelope(version string) mcp.Envelope {
	c := s.c
	caps := c.clientCapabilities(s.name, s.cfg.Roots)
	if caps.Roots != nil {
		caps.Roots = &mcp.RootsCapability{} // no roots/list_changed in the modern era
	}
	// Tasks are an extension in this era; the others (MCP Apps) stay.
	caps.Extensions[mcp.ExtensionTasks] = json.RawMessage("{}")
	env := mcp.Envelope{
		Version:      version,
		Capabilities: caps,
		ClientInfo:   new(c.clientInfo()),
	}
	if s.init.Capabilities.Logging != nil {
		if lvl := c.logLevel(s.name, s.cfg.LogLevel); lvl != "" {
			env.LogLevel = mcp.LogLevel(lvl)
		}
	}
	return env
}

// useModern makes the session a modern one: what discovery said becomes
// what initialize would have said, and the envelope every request carries
// is encoded once.
func (s *session) useModern(n negotiated) error {
	d := n.discover
	if d == nil {
		return fmt.Errorf("%w: the server is modern but sent no discovery result", ErrProtocol)
	}
	s.era, s.eraReason, s.eraDecision = mcp.Modern, n.reason, n.decision
	s.discovered = d
	s.init = initResult{InitializeResult: mcp.InitializeResult{ProtocolVersion: n.version, Capabilities: d.Capabilities, Instructions: d.Instructions}}
	if d.ServerInfo != nil {
		s.init.ServerInfo = *d.ServerInfo
	}
	s.init.era, s.init.eraReason, s.init.eraDecision = mcp.Modern, n.reason, n.decision
	s.env.rootsDeclared.Store(s.c.declaresRoots(s.name, s.cfg.Roots))
	return s.reencode()
}

// envelopeState is the part of a session that holds the modern era's
// request envelope: as built (env, under mu) and as encoded for the hot
// path (enc, read without a lock by every request). Both change when the
// log level or the roots do, on the goroutine of whoever changed them
// (SetLogLevel, SetRoots). rootsDeclared (either era) says whether the
// roots capability was declared to the server: the handshake sets it,
// SetRoots reads and changes it.
type envelopeState struct {
	mu            sync.Mutex
	env           mcp.Envelope
	enc           atomic.Pointer[mcp.Encoded]
	rootsDeclared atomic.Bool
}

// reencode builds the envelope anew (a new log level, new roots) and
// encodes it for the hot path.
func (s *session) reencode() error {
	env := s.envelope(s.init.ProtocolVersion)
	enc, err := env.Encode()
	if err != nil {
		return err
	}
	s.env.mu.Lock()
	s.env.env = env
	s.env.mu.Unlock()
	s.env.enc.Store(&enc)
	return nil
}

// modern reports whether the session speaks the modern era.
func (s *session) modern() bool { return s.era == mcp.Modern }

// declared returns the capabilities the session's requests declare.
func (s *session) declared() mcp.ClientCapabilities {
	s.env.mu.Lock()
	defer s.env.mu.Unlock()
	return s.env.env.Capabilities
}
