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
	"mcpdeck/runtime/proc"
)

// ProtocolVersions are the MCP revisions mcpdeck speaks, newest first. It
// asks for the first and accepts any of them in the answer.
var ProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// ErrUnsupportedVersion: the server answered initialize with a protocol
// version mcpdeck cannot use.
var ErrUnsupportedVersion = errors.New("unsupported protocol version")

// lists are a server's capabilities as listed after initialize.
type lists struct {
	Tools     []Tool
	Prompts   []Prompt
	Resources []Resource
}

// connect makes one connection attempt: start the transport, initialize,
// and list everything the server declared. report is told of each state on
// the way. On any error everything started is torn down before returning.
func (c *Controller) connect(ctx context.Context, cfg config.Server, report func(State)) (s *session, l lists, err error) {
	ctx, cancel := context.WithTimeoutCause(ctx, cfg.StartupTimeout,
		fmt.Errorf("%w: not ready within the startup timeout of %s (raise startupTimeout in the server's configuration)", jsonrpc.ErrTimeout, cfg.StartupTimeout))
	defer cancel()

	report(StateStarting)
	sess, err := c.openTransport(ctx, cfg)
	if err != nil {
		return nil, l, err
	}
	defer func() {
		if err != nil {
			sess.close() // not s: the error returns below have set s to nil
		}
	}()
	s = sess

	report(StateInitializing)
	if err := s.initialize(ctx, c); err != nil {
		return nil, l, err
	}
	report(StateListing)
	l, err = s.listAll(ctx)
	if err != nil {
		return nil, l, err
	}
	if s.init.caps.Logging != nil && c.opts.LogLevel != "" {
		// A server that declares logging but rejects the level still works.
		_, _ = s.conn.Call(ctx, "logging/setLevel", map[string]string{"level": c.opts.LogLevel})
	}
	return s, l, nil
}

// openTransport starts the server process (stdio) or connects (remote),
// and builds the JSON-RPC connection over it.
func (c *Controller) openTransport(ctx context.Context, cfg config.Server) (*session, error) {
	s := &session{c: c, name: cfg.Name, cfg: cfg, redact: newRedactor(cfg), calls: map[string]*callState{}, changed: map[string]bool{}}
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

// clientCapabilities declares what is plugged in, and nothing else.
func (c *Controller) clientCapabilities() map[string]any {
	caps := map[string]any{"roots": map[string]any{"listChanged": false}}
	if c.elicitor() != nil {
		caps["elicitation"] = map[string]any{"form": map[string]any{}}
	}
	return caps
}

// initialize performs the handshake and negotiates the protocol version.
func (s *session) initialize(ctx context.Context, c *Controller) error {
	raw, err := s.conn.Call(ctx, "initialize", map[string]any{
		"protocolVersion": ProtocolVersions[0],
		"capabilities":    c.clientCapabilities(),
		"clientInfo":      map[string]string{"name": "mcpdeck", "title": "mcpdeck", "version": c.opts.ClientVersion},
	}, jsonrpc.WithoutCancelNotification())
	var closed *jsonrpc.ClosedError
	var cancelled *jsonrpc.CancelledError
	switch {
	case errors.As(err, &closed), errors.As(err, &cancelled):
		return err // these name the method already
	case err != nil:
		return fmt.Errorf("initialize: %w", err)
	}
	if err := json.Unmarshal(raw, &s.init); err != nil {
		return fmt.Errorf("initialize: decoding the result: %w", err)
	}
	if !slices.Contains(ProtocolVersions, s.init.ProtocolVersion) {
		return fmt.Errorf("initialize: %w: the server answered %q, mcpdeck speaks %s (upgrade the server, or mcpdeck)",
			ErrUnsupportedVersion, s.init.ProtocolVersion, strings.Join(ProtocolVersions, ", "))
	}
	if len(s.init.Capabilities) > 0 {
		_ = json.Unmarshal(s.init.Capabilities, &s.init.caps)
	}
	if err := s.conn.Notify(ctx, "notifications/initialized", nil); err != nil {
		return fmt.Errorf("notifications/initialized: %w", err)
	}
	return nil
}

// listAll lists tools, and prompts and resources where declared, all pages.
func (s *session) listAll(ctx context.Context) (lists, error) {
	var l lists
	var err error
	if l.Tools, err = s.listTools(ctx); err != nil {
		return l, err
	}
	if s.init.caps.Prompts != nil {
		if l.Prompts, err = s.listPrompts(ctx); err != nil {
			return l, err
		}
	}
	if s.init.caps.Resources != nil {
		if l.Resources, err = s.listResources(ctx); err != nil {
			return l, err
		}
	}
	return l, nil
}

// maxPages bounds pagination: a server whose cursors never end must not
// hang the client.
const maxPages = 1000

// paginate calls method until nextCursor is absent, handing each page's
// raw result to page.
func (s *session) paginate(ctx context.Context, method string, page func(json.RawMessage) error) error {
	cursor := ""
	for i := 0; i < maxPages; i++ {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		raw, err := s.conn.Call(ctx, method, params)
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if err := page(raw); err != nil {
			return fmt.Errorf("%s: decoding the result: %w", method, err)
		}
		var next struct {
			NextCursor string `json:"nextCursor"`
		}
		_ = json.Unmarshal(raw, &next)
		if next.NextCursor == "" {
			return nil
		}
		if next.NextCursor == cursor {
			return fmt.Errorf("%s: the server returned the same cursor %q twice", method, cursor)
		}
		cursor = next.NextCursor
	}
	return fmt.Errorf("%s: more than %d pages; giving up", method, maxPages)
}

func (s *session) listTools(ctx context.Context) ([]Tool, error) {
	var out []Tool
	err := s.paginate(ctx, "tools/list", func(raw json.RawMessage) error {
		var r struct {
			Tools []wireTool `json:"tools"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		for _, t := range r.Tools {
			out = append(out, Tool{Server: s.name, ServerTool: t.Name, Title: t.Title, Description: t.Description,
				InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: t.Annotations})
		}
		return nil
	})
	return out, err
}

func (s *session) listPrompts(ctx context.Context) ([]Prompt, error) {
	var out []Prompt
	err := s.paginate(ctx, "prompts/list", func(raw json.RawMessage) error {
		var r struct {
			Prompts []Prompt `json:"prompts"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		for _, p := range r.Prompts {
			p.Server = s.name
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

func (s *session) listResources(ctx context.Context) ([]Resource, error) {
	var out []Resource
	err := s.paginate(ctx, "resources/list", func(raw json.RawMessage) error {
		var r struct {
			Resources []Resource `json:"resources"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		for _, res := range r.Resources {
			res.Server = s.name
			out = append(out, res)
		}
		return nil
	})
	return out, err
}
