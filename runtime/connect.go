package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
	"mcpdeck/runtime/proc"
)

// connect makes one connection attempt: start the transport, initialize,
// and list everything the server declared. report is told of each state on
// the way. On any error everything started is torn down before returning.
// On an error the session opened so far is returned too (nil if nothing
// was opened): the controller closes it in the background, so the failure
// shows at once, not after the stop sequence.
func (c *Controller) connect(ctx context.Context, gen uint64, cfg config.Server, report func(State)) (*session, connInfo, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, cfg.StartupTimeout,
		fmt.Errorf("%w: not ready within the startup timeout of %s (raise startupTimeout in the server's configuration)", jsonrpc.ErrTimeout, cfg.StartupTimeout))
	defer cancel()

	var info connInfo
	pref, err := c.preference(cfg)
	if err != nil {
		return nil, info, err
	}
	warmSchemas() // while the server starts, so the first call validates at once
	report(StateStarting)
	s, err := c.openTransport(ctx, gen, cfg)
	if err != nil {
		return nil, info, err
	}
	report(StateInitializing)
	if s, err = c.handshake(ctx, s, pref); err != nil {
		return s, info, err
	}
	if s.modern() {
		s.startListen(ctx)
	}
	report(StateListing)
	l, err := s.listAll(ctx)
	if err != nil {
		return s, info, err
	}
	if level := c.logLevel(cfg.Name, cfg.LogLevel); !s.modern() && s.init.Capabilities.Logging != nil && level != "" {
		// A server that declares logging but rejects the level still
		// works. (A modern server gets the level in every request's _meta.)
		_, _ = s.conn.Call(ctx, mcp.MethodSetLevel, mcp.SetLevelParams{Level: mcp.LogLevel(level)})
	}
	info.init = s.init
	info.lists, info.leaks = s.redact.lists(l)
	s.fallbackMu.Lock()
	info.fallback = s.fallback
	s.fallbackMu.Unlock()
	return s, info, nil
}

// openTransport starts the server process (stdio) or connects (remote),
// and builds the JSON-RPC connection over it.
func (c *Controller) openTransport(ctx context.Context, gen uint64, cfg config.Server) (*session, error) {
	s := &session{c: c, name: cfg.Name, gen: gen, cfg: cfg, redact: newRedactor(cfg), calls: map[string]*callState{}, changed: map[string]bool{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	opts := jsonrpc.Options{
		Handler:        s.handle,
		OnNotification: s.onNotification,
		OnAnomaly:      s.onAnomaly,
		Trace:          s.onTrace,
		Lossless:       c.bus.lossless.Load() > 0,
	}
	var stream jsonrpc.Stream
	switch cfg.Transport {
	case config.TransportStdio:
		p, err := proc.Start(proc.Spec{
			Path:     cfg.Command,
			Args:     cfg.Args,
			Env:      cfg.ProcessEnv(os.Environ()),
			Dir:      cfg.Cwd,
			Grace:    c.opts.StopGrace,
			OnStderr: s.onStderr,
		})
		if err != nil {
			s.cancel()
			return nil, err
		}
		s.proc = p
		stream = jsonrpc.NewStdioStream(p.Stdout(), p.Stdin(), p.Stdin(), jsonrpc.StdioOptions{
			MaxMessageSize: c.opts.MaxMessageSize,
			OnEOF:          func() error { return s.exitCause() },
		})
	default:
		st, err := c.dialRemote(ctx, s, cfg)
		if err != nil {
			s.cancel()
			return nil, err
		}
		stream = st
	}
	s.conn = jsonrpc.NewConn(stream, opts)
	s.started = time.Now()
	return s, nil
}

// exitCause waits briefly for the process behind a closed stdout and
// returns its exit as the connection's close cause.
func (s *session) exitCause() error {
	select {
	case <-s.proc.Done():
		if err := s.proc.Exit(); err != nil {
			return fmt.Errorf("server process %w", err)
		}
		return errors.New("server process exited with status 0")
	case <-time.After(2 * time.Second):
		return errors.New("server closed its stdout but its process is still running")
	}
}

// clientCapabilities declares what is plugged in, and nothing else: roots
// only when the server is offered some.
func (c *Controller) clientCapabilities(server string, configured []string) mcp.ClientCapabilities {
	var caps mcp.ClientCapabilities
	if len(c.rootsFor(server, configured)) > 0 {
		caps.Roots = &mcp.RootsCapability{ListChanged: true}
	}
	if c.elicitor() != nil {
		caps.Elicitation = &mcp.ElicitationCapability{Form: &mcp.Empty{}}
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
	c := s.c
	versions := pref.Offer(mcp.Legacy)
	if len(versions) == 0 {
		return fmt.Errorf("initialize: %w: the protocol setting is %s, which offers no legacy revision", ErrUnsupportedVersion, pref)
	}
	caps := c.clientCapabilities(s.name, s.cfg.Roots)
	s.rootsDeclared = caps.Roots != nil
	raw, err := s.conn.Call(ctx, mcp.MethodInitialize, mcp.InitializeParams{ProtocolVersion: versions[0], Capabilities: caps, ClientInfo: c.clientInfo()},
		jsonrpc.WithoutCancelNotification())
	var closed *jsonrpc.ClosedError
	var cancelled *jsonrpc.CancelledError
	switch {
	case errors.As(err, &closed), errors.As(err, &cancelled):
		return err // these name the method already
	case err != nil:
		if theirs := supportedVersions(err); theirs != nil {
			return fmt.Errorf("initialize: %w", versionRefusal(versions, theirs, pref))
		}
		return fmt.Errorf("initialize: %w", err)
	}
	if err := json.Unmarshal(raw, &s.init.InitializeResult); err != nil {
		return fmt.Errorf("initialize: decoding the result: %w: %w", ErrProtocol, err)
	}
	if !slices.Contains(versions, s.init.ProtocolVersion) {
		return fmt.Errorf("initialize: %w: the server answered %q, mcpdeck speaks %s here (upgrade the server, or mcpdeck, or change the protocol setting)",
			ErrUnsupportedVersion, s.init.ProtocolVersion, strings.Join(versions, ", "))
	}
	s.era, s.init.era, s.init.eraReason = mcp.Legacy, mcp.Legacy, s.eraReason
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
