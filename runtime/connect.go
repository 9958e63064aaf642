package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"mcpdeck/config"
	"mcpdeck/internal/clip"
	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
)

// connect makes one connection attempt: start the transport, initialize,
// and list everything the server declared. report is told of each state on
// the way. On any error everything started is torn down before returning.
// On an error the session opened so far is returned too (nil if nothing
// was opened): the controller closes it in the background, so the failure
// shows at once, not after the stop sequence.
func (c *Controller) connect(ctx context.Context, gen uint64, cfg config.Server, report func(State)) (*session, connInfo, error) {
	ctx, span := c.connectSpan(ctx, cfg)
	s, info, err := c.establish(ctx, gen, cfg, report)
	if err == nil {
		span.SetProtocol(info.init.ProtocolVersion, eraName(info.init.ProtocolVersion))
	}
	span.End(err, errorType(err, false))
	return s, info, err
}

// emptyArgument names, for the startup timeout's message, a stdio
// server's first empty argument as the likely cause of the wait (see
// config.EmptyArgument); "" when it has none.
func emptyArgument(cfg config.Server) string {
	i := slices.Index(cfg.Args, "")
	if cfg.Transport != config.TransportStdio || i < 0 {
		return ""
	}
	return fmt.Sprintf("; its args[%d] %s: %s", i, EmptyArgumentCause, config.EmptyArgument)
}

// establish is connect inside its span.
func (c *Controller) establish(ctx context.Context, gen uint64, cfg config.Server, report func(State)) (*session, connInfo, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, cfg.StartupTimeout,
		fmt.Errorf("%w: %s of %s%s", jsonrpc.ErrTimeout, StartupTimedOut, cfg.StartupTimeout, emptyArgument(cfg)))
	defer cancel()

	var info connInfo
	pref, err := c.preference(cfg)
	if err != nil {
		return nil, info, err
	}
	report(StateStarting)
	s, err := c.openTransport(ctx, gen, cfg, false)
	if err != nil {
		return nil, info, err
	}
	report(StateInitializing)
	s, err = c.handshake(ctx, s, pref)
	if err != nil && s != nil && s.fromMemory && ctx.Err() == nil && refusedEra(err) {
		// The server refused the remembered era (it changed): forget it
		// and probe afresh, once.
		c.forgetEra(cfg)
		s.close()
		if s, err = c.openTransport(ctx, gen, cfg, true); err != nil {
			return nil, info, err
		}
		s, err = c.handshake(ctx, s, pref)
	}
	if err != nil {
		if r, ok := c.eras.recall(cfg); ok && s != nil && s.fromMemory {
			c.forgetEra(cfg)
			err = fmt.Errorf("%w; it was %s: forgotten, the next attempt probes it afresh", err, rememberedReason(r))
		}
		return s, info, s.explainSilence(err)
	}
	report(StateListing)
	levelDone := c.askLevel(ctx, s)
	l, err := c.listFresh(ctx, s)
	levelDone(err != nil)
	if err != nil {
		return s, info, s.explainSilence(err)
	}
	if v := s.lateSwitch(pref); v != nil {
		// server/discover answered as a modern server after initialize, before
		// ready: the modern answer wins. The process took the initialize, so
		// it starts again, and is spoken to in the modern era.
		if s, err = c.restart(ctx, s); err != nil {
			return nil, info, err
		}
		why := "server/discover answered after initialize did, before the server was ready; started it again for the modern era"
		if s, err = c.negotiateStdio(ctx, s, pref, probePlan{decision: EraSwitched, why: why, version: v.Version}); err != nil {
			return s, info, err
		}
		if l, err = c.listFresh(ctx, s); err != nil {
			return s, info, err
		}
	}
	c.rememberEra(s, pref)
	info.init = s.init
	info.lists, info.leaks, info.identity = l, leaks(l), toolIdentity(cfg)
	if note := s.fallback.Load(); note != nil {
		info.fallback = *note
	}
	return s, info, nil
}

// askLevel asks a legacy server that declares logging for the configured
// log level, while the lists are fetched: the request goes out with them,
// and the server is ready once both are answered. A server that rejects
// the level still works. (A modern server gets the level in every
// request's _meta.) The returned func waits for the answer, or gives up on
// it when the listing failed.
func (c *Controller) askLevel(ctx context.Context, s *session) (wait func(abandon bool)) {
	level := c.logLevel(s.cfg.Name, s.cfg.LogLevel)
	if s.modern() || s.init.Capabilities.Logging == nil || level == "" {
		return func(bool) {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = s.chain(ctx, &request{method: mcp.MethodSetLevel, wire: mcp.SetLevelParams{Level: mcp.LogLevel(level)}})
	}()
	return func(abandon bool) {
		if abandon {
			cancel()
		}
		<-done
		cancel()
	}
}

// listFresh opens a modern session's listen stream, then lists what the
// server declared.
func (c *Controller) listFresh(ctx context.Context, s *session) (lists, error) {
	if s.modern() {
		s.listen.start(ctx)
	}
	return s.lists.all(ctx)
}

// refusedEra reports whether a handshake failed because the server
// answered in a way that rules the era out (an error response, a version
// refusal, a 2026-07-28 error), as opposed to a crash or a timeout.
func refusedEra(err error) bool {
	var rpc *jsonrpc.Error
	return errors.As(err, &rpc) || errors.Is(err, ErrUnsupportedVersion) || mcp.AsModern(err) != nil
}

// rememberEra records the era the session negotiated in the era memory,
// unless the protocol setting pinned it to legacy: a dual-era server would
// then be remembered wrongly. A failure to save it is said in the reason.
func (c *Controller) rememberEra(s *session, pref mcp.Preference) {
	if s.era == mcp.Legacy && (!pref.Probes() || s.eraDecision == EraPinned) {
		return
	}
	if err := c.eras.remember(s.cfg, s.init.ProtocolVersion); err != nil {
		s.init.eraReason += " (not remembered: " + err.Error() + ")"
	}
}

// forgetEra drops the remembered era of a server whose remembered era
// failed; a failure to save that is left for the next remember to meet.
func (c *Controller) forgetEra(cfg config.Server) { _ = c.eras.forget(cfg) }

// openTransport starts the server process (stdio) or connects (remote),
// and builds the JSON-RPC connection over it. fresh leaves the era memory
// out of the era negotiation (a remembered era just failed).
func (c *Controller) openTransport(ctx context.Context, gen uint64, cfg config.Server, fresh bool) (*session, error) {
	s := &session{c: c, name: cfg.Name, gen: gen, cfg: cfg, redact: newRedactor(cfg), fresh: fresh}
	s.bind()
	s.ctx, s.cancel = context.WithCancel(context.Background())
	opts := jsonrpc.Options{
		Handler:        s.peer.handle,
		OnNotification: s.intake.onNotification,
		OnAnomaly:      s.intake.onAnomaly,
		Trace:          s.intake.onTrace,
		Lossless:       c.bus.lossless.Load() > 0,
	}
	var stream jsonrpc.Stream
	switch cfg.Transport {
	case config.TransportStdio:
		p, st, err := c.startStdio(cfg, s.redact, s.intake.onStderr)
		if err != nil {
			s.cancel()
			return nil, err
		}
		s.proc, stream = p, st
	default:
		st, err := c.dialRemote(ctx, s, cfg)
		if err != nil {
			s.cancel()
			return nil, err
		}
		stream = st
		if st, ok := st.(interface{ SessionID() string }); ok {
			s.sessionID = st.SessionID
		}
	}
	s.conn = jsonrpc.NewConn(stream, opts)
	s.buildChain()
	s.started = time.Now()
	return s, nil
}

// explainSilence adds to a stdio server's startup timeout what it wrote
// on stdout instead of answering, if that was anything: a server that
// prints a banner or a web server's "listening on…" there never answers
// JSON-RPC, and the line says so better than the timeout does. The line
// is quoted (escapes shown, not acted on) and cut.
func (s *session) explainSilence(err error) error {
	if s == nil || s.proc == nil || !errors.Is(err, jsonrpc.ErrTimeout) {
		return err
	}
	s.intake.noise.mu.Lock()
	n, last := s.intake.noise.lines, s.intake.noise.last
	s.intake.noise.mu.Unlock()
	if n == 0 {
		return err
	}
	return fmt.Errorf("%w; instead it wrote %d %s that are not JSON-RPC on stdout, the last: %q: a stdio server must write only JSON-RPC messages to stdout (its logs go to stderr)",
		err, n, plural(n, "line", "lines"), cutRunes(last, noiseQuote))
}

// noiseQuote bounds the line explainSilence quotes.
const noiseQuote = 120

// cutRunes cuts s to at most n bytes without splitting a rune, marked.
// (session_intake.go calls it by this name.)
func cutRunes(s string, n int) string { return clip.Text(s, n) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// clientCapabilities declares what is plugged in, and nothing else: roots
// only when the server is offered some, elicitation and sampling only with
// something to answer them; with Relay, roots always and URL-mode
// elicitation too, which the callers answer. MCP Apps are always declared:
// mcpdeck renders them (runtime/apphost), and servers that adapt to the
// client list their app tools only to a host that does.
func (c *Controller) clientCapabilities(server string, configured []string) mcp.ClientCapabilities {
	caps := mcp.ClientCapabilities{Extensions: map[string]json.RawMessage{mcp.ExtensionUI: mcp.UICapability()}}
	if c.declaresRoots(server, configured) {
		caps.Roots = &mcp.RootsCapability{ListChanged: true}
	}
	if c.elicitor() != nil {
		caps.Elicitation = &mcp.ElicitationCapability{Form: &mcp.Empty{}}
		if c.opts.Relay {
			caps.Elicitation.URL = &mcp.Empty{}
		}
	}
	if c.sampler() != nil {
		// A person can answer with tool_use blocks (raw JSON), and a
		// canned reply may hold them: tool-enabled requests are welcome.
		caps.Sampling = &mcp.SamplingCapability{Tools: &mcp.Empty{}}
	}
	return caps
}

// clientInfo is who mcpdeck says it is.
func (c *Controller) clientInfo() mcp.Implementation {
	return mcp.Implementation{Name: "mcpdeck", Title: "mcpdeck", Version: c.opts.ClientVersion}
}

// initialize performs the legacy handshake and negotiates the protocol
// version among those the preference offers.
func (s *session) initialize(ctx context.Context, pref mcp.Preference) error {
	params, versions, err := s.initializeRequest(pref)
	if err != nil {
		return err
	}
	raw, err := s.chain(ctx, &request{method: mcp.MethodInitialize, wire: params, quiet: true})
	return s.finishInitialize(ctx, raw, err, versions, pref)
}

// initializeRequest builds the initialize request of the preference: its
// params, and the revisions an answer may name.
func (s *session) initializeRequest(pref mcp.Preference) (mcp.InitializeParams, []string, error) {
	c := s.c
	versions := pref.Offer(mcp.Legacy)
	if len(versions) == 0 {
		return mcp.InitializeParams{}, nil, fmt.Errorf("initialize: %w: the protocol setting is %s, which offers no legacy revision", ErrUnsupportedVersion, pref)
	}
	caps := c.clientCapabilities(s.name, s.cfg.Roots)
	s.env.rootsDeclared.Store(caps.Roots != nil)
	return mcp.InitializeParams{ProtocolVersion: versions[0], Capabilities: caps, ClientInfo: c.clientInfo()}, versions, nil
}

// finishInitialize takes initialize's answer (raw, or err): it checks the
// revision against versions, makes the session a legacy one and sends
// notifications/initialized.
func (s *session) finishInitialize(ctx context.Context, raw json.RawMessage, err error, versions []string, pref mcp.Preference) error {
	var closed *jsonrpc.ClosedError
	var cancelled *jsonrpc.CancelledError
	switch {
	case errors.As(err, &closed), errors.As(err, &cancelled):
		return err // these name the method already
	case err != nil:
		if theirs := supportedVersions(err); theirs != nil {
			return fmt.Errorf("initialize: %w", versionRefusal(versions, theirs, pref))
		}
		return failedIn(mcp.MethodInitialize, err)
	}
	if err := json.Unmarshal(raw, &s.init.InitializeResult); err != nil {
		return fmt.Errorf("initialize: decoding the result: %w: %w", ErrProtocol, err)
	}
	if !slices.Contains(versions, s.init.ProtocolVersion) {
		return fmt.Errorf("initialize: %w: the server answered %q, mcpdeck speaks %s here (upgrade the server, or mcpdeck, or change the protocol setting)",
			ErrUnsupportedVersion, s.init.ProtocolVersion, strings.Join(versions, ", "))
	}
	s.era, s.init.era, s.init.eraReason, s.init.eraDecision = mcp.Legacy, mcp.Legacy, s.eraReason, s.eraDecision
	if err := s.conn.Notify(ctx, mcp.NotificationInitialized, nil); err != nil {
		return fmt.Errorf("notifications/initialized: %w", err)
	}
	return nil
}

// supportedVersions returns the revisions a server that refused initialize
// says it speaks: data.supported of a -32022 (the 2026 code) or of the
// -32602 "Unsupported protocol version" the 2025 revisions give; nil for
// any other refusal.
func supportedVersions(err error) []string {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || (rpc.Code != mcp.CodeUnsupportedVersion && rpc.Code != jsonrpc.CodeInvalidParams) {
		return nil
	}
	var d mcp.UnsupportedVersionData
	if json.Unmarshal(rpc.Data, &d) != nil || len(d.Supported) == 0 {
		return nil
	}
	return d.Supported
}

// versionRefusal says what each side speaks and what to change: a server
// that speaks only the stateless revision is reached with protocol auto
// or modern, not by upgrading anything.
func versionRefusal(ours, theirs []string, pref mcp.Preference) error {
	advice := "upgrade the server or mcpdeck"
	for _, v := range theirs {
		if mcp.EraOf(v) == mcp.Modern {
			advice = "it speaks the stateless revision: set the protocol to auto or modern (--protocol, or \"protocol\" in mcp.json)"
			break
		}
	}
	return fmt.Errorf("%w: mcpdeck offered %s (protocol %s) and the server speaks %s; %s",
		ErrUnsupportedVersion, strings.Join(ours, ", "), pref, strings.Join(theirs, ", "), advice)
}
