package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
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

// eraCache remembers which era a server turned out to speak, per process
// (stdio: its launch line) or origin (HTTP), so a reconnect to a legacy
// server does not pay for the probe again. Only legacy answers are used to
// skip a probe: a modern server is discovered every time anyway.
type eraCache struct {
	mu   sync.Mutex
	eras map[string]mcp.Era
}

func (e *eraCache) get(key string) mcp.Era {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.eras[key]
}

func (e *eraCache) set(key string, era mcp.Era) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.eras == nil {
		e.eras = map[string]mcp.Era{}
	}
	e.eras[key] = era
}

// eraKey is what a server's era is remembered by: the process it runs
// (command, arguments, directory) or, for a remote server, the origin.
func eraKey(cfg config.Server) string {
	if cfg.Transport == config.TransportStdio {
		return "stdio\x00" + cfg.Command + "\x00" + strings.Join(cfg.Args, "\x00") + "\x00" + cfg.Cwd
	}
	if u, err := url.Parse(cfg.URL); err == nil {
		return "http\x00" + u.Scheme + "://" + u.Host
	}
	return "http\x00" + cfg.URL
}

// negotiated is what the era negotiation decided, before the session
// speaks it.
type negotiated struct {
	era      mcp.Era
	version  string
	discover *mcp.DiscoverResult
	reason   string
}

// handshake decides the era of a stdio session and opens it: the
// server/discover probe, then initialize where the server turns out to be
// a legacy one. Remote sessions decided their era while dialing (the HTTP
// probe); for them only initialize is left, in the legacy era. It returns
// the session to keep, which differs from s when the probe cost the
// server its process and it had to be started again.
func (c *Controller) handshake(ctx context.Context, s *session, pref mcp.Preference) (*session, error) {
	if s.decided != nil {
		if s.decided.era == mcp.Modern {
			return s, s.useModern(*s.decided)
		}
		s.eraReason = s.decided.reason
		return s, s.initialize(ctx, pref)
	}
	key := eraKey(s.cfg)
	// A server remembered as legacy is not probed again, unless the
	// setting has no legacy revision to offer it.
	if pref.Probes() && (c.eras.get(key) != mcp.Legacy || !pref.FallsBack()) {
		v, err := s.probe(ctx, pref)
		if err != nil {
			return s, err
		}
		if v.era == mcp.Modern {
			return s, s.useModern(v.negotiated)
		}
		if !pref.FallsBack() {
			return s, fmt.Errorf("%w: %s, but the protocol setting is %s: this server speaks only the legacy revisions (set protocol to auto or legacy)", ErrUnsupportedVersion, v.reason, pref)
		}
		c.eras.set(key, mcp.Legacy)
		if v.restart {
			s.close()
			if s, err = c.openTransport(ctx, s.gen, s.cfg); err != nil {
				return nil, err
			}
		}
		s.eraReason = v.reason
	} else if pref.FallsBack() {
		s.eraReason = "initialize (the protocol setting is " + pref.String() + ")"
		if pref.Probes() {
			s.eraReason = "initialize (it answered as a legacy server before)"
		}
	}
	err := s.initialize(ctx, pref)
	if modern := mcp.AsModern(err); modern != nil && pref.Probes() {
		// Remembered as legacy, but it answers as a modern server now (an
		// upgrade): forget that and discover it on the same process.
		c.eras.set(key, mcp.Unknown)
		v, perr := s.probe(ctx, pref)
		if perr != nil {
			return s, perr
		}
		if v.era == mcp.Modern {
			return s, s.useModern(v.negotiated)
		}
	}
	return s, err
}

// stdioProbe is the result of the stdio probe.
type stdioProbe struct {
	negotiated
	restart bool
}

// probe sends server/discover and decides the era from the answer (see
// mcp.Decide), retrying with a mutual version after -32022.
func (s *session) probe(ctx context.Context, pref mcp.Preference) (stdioProbe, error) {
	timeout := s.cfg.DiscoverTimeout
	if timeout <= 0 {
		timeout = mcp.DefaultProbeTimeout
	}
	version := pref.Offer(mcp.Modern)[0]
	for attempt := 0; ; attempt++ {
		env := s.envelope(version)
		pctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("%w: no answer to server/discover within %s", jsonrpc.ErrTimeout, timeout))
		raw, err := s.conn.Call(pctx, mcp.MethodDiscover, env.Apply(nil), jsonrpc.WithoutCancelNotification())
		cancel()
		if ctx.Err() != nil {
			return stdioProbe{}, context.Cause(ctx)
		}
		v := mcp.Decide(pref, raw, err, time.Now())
		switch {
		case v.Retry && attempt < maxVersionRetries:
			version = v.Version
			continue
		case v.Retry:
			return stdioProbe{}, fmt.Errorf("%w: server/discover kept answering -32022, last naming %s", ErrUnsupportedVersion, v.Version)
		case v.Err != nil:
			return stdioProbe{}, negotiationError(v.Err)
		}
		return stdioProbe{negotiated: negotiated{era: v.Era, version: v.Version, discover: v.Discover, reason: v.Reason}, restart: v.Restart}, nil
	}
}

// negotiationError words a failed negotiation so its kind is right: no
// revision in common is KindUnsupportedVersion, not a protocol error.
func negotiationError(err error) error {
	var nm *mcp.NoMutualVersionError
	if errors.As(err, &nm) {
		return fmt.Errorf("%w: %w", ErrUnsupportedVersion, err)
	}
	return fmt.Errorf("server/discover: %w", err)
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
	caps.Extensions = map[string]json.RawMessage{mcp.ExtensionTasks: json.RawMessage("{}")}
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
	s.era, s.eraReason = mcp.Modern, n.reason
	s.discovered = d
	s.init = initResult{InitializeResult: mcp.InitializeResult{ProtocolVersion: n.version, Capabilities: d.Capabilities, Instructions: d.Instructions}}
	if d.ServerInfo != nil {
		s.init.ServerInfo = *d.ServerInfo
	}
	s.init.era, s.init.eraReason = mcp.Modern, n.reason
	s.rootsDeclared = len(s.c.rootsFor(s.name, s.cfg.Roots)) > 0
	return s.reencode()
}

// reencode builds the envelope anew (a new log level, new roots) and
// encodes it for the hot path.
func (s *session) reencode() error {
	env := s.envelope(s.init.ProtocolVersion)
	enc, err := env.Encode()
	if err != nil {
		return err
	}
	s.envMu.Lock()
	s.env = env
	s.envMu.Unlock()
	s.enc.Store(&enc)
	return nil
}

// modern reports whether the session speaks the modern era.
func (s *session) modern() bool { return s.era == mcp.Modern }

// declared returns the capabilities the session's requests declare.
func (s *session) declared() mcp.ClientCapabilities {
	s.envMu.Lock()
	defer s.envMu.Unlock()
	return s.env.Capabilities
}

// wire prepares a request's params for the connection. In the modern
// era they become JSON with the envelope in _meta (with the progress
// token when not empty, and extra, the trace context, when not empty),
// marshalled once. In the legacy era _meta carries only the token and
// extra; nil params with neither stay nil (no params member at all, not
// "params": null).
func (s *session) wire(params map[string]any, token string, extra map[string]any) any {
	if s.modern() {
		if len(extra) > 0 {
			cp := make(map[string]any, len(params)+1)
			for k, v := range params {
				cp[k] = v
			}
			meta := make(map[string]any, len(extra))
			for k, v := range extra {
				meta[k] = v
			}
			cp["_meta"] = meta
			params = cp
		}
		var tok any
		if token != "" {
			tok = token
		}
		raw, err := s.enc.Load().Marshal(params, tok)
		if err != nil {
			return params // unencodable params: the connection reports it
		}
		return raw
	}
	if token == "" && len(extra) == 0 {
		if params == nil {
			return nil
		}
		return params
	}
	if params == nil {
		params = map[string]any{}
	}
	meta := make(map[string]any, len(extra)+1)
	for k, v := range extra {
		meta[k] = v
	}
	if token != "" {
		meta["progressToken"] = token
	}
	params["_meta"] = meta
	return params
}
