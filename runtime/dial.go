package runtime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/mcphttp"
	"mcpdeck/runtime/auth"
	"mcpdeck/runtime/proc"
)

// Every connection to a server is opened here: the sessions' own, and the
// ones the compatibility check opens beside them for requests a session
// never sends. So every one carries the same headers, size limits, MCP
// authorization, redirect policy and process supervision.

// httpOptions are the options of every HTTP connection to cfg's server: its
// url and headers, the message size limit, MCP authorization when the
// controller has a token manager, and the exchange tracer recordings read
// (each exchange published as cfg's, scrubbed by redact).
func (c *Controller) httpOptions(cfg config.Server, redact *redactor) mcphttp.Options {
	var transport http.RoundTripper
	if c.opts.Auth != nil {
		transport = &auth.Transport{Manager: c.opts.Auth, Target: auth.TargetOf(cfg), Interactive: c.opts.InteractiveLogin}
	}
	return mcphttp.Options{
		URL:            cfg.URL,
		Headers:        cfg.Headers,
		HeadersAdvice:  cfg.HeadersAdvice(),
		MaxMessageSize: c.opts.MaxMessageSize,
		// Each exchange is an event while a recorder wants them, for
		// recordings' HTTP Archives. The tracer sees requests before the
		// authorization transport adds a token. Response bodies pass the
		// session's intake (redact.transport) below the tracer; what we
		// sent (the url, arguments a person typed) is scrubbed here.
		Client: mcphttp.TraceClient(redact.transport(transport), cfg.Headers, func() bool { return c.bus.http.Load() > 0 }, func(x mcphttp.Exchange) {
			x.RequestBody, x.Err, x.URL = redact.str(x.RequestBody), redact.str(x.Err), redact.str(x.URL)
			c.bus.publish(HTTPExchange{EventHeader: EventHeader{Time: x.Started, Server: cfg.Name}, Exchange: x})
		}),
	}
}

// startStdio starts cfg's server process and the stdio stream over its
// pipes; a stdout that ends gives the process's exit as the close cause.
// Its stdout and stderr pass redact, the session's intake.
func (c *Controller) startStdio(cfg config.Server, redact *redactor, onStderr func(string)) (*proc.Process, jsonrpc.Stream, error) {
	p, err := proc.Start(proc.Spec{
		Path:     cfg.Command,
		Args:     cfg.Args,
		Env:      cfg.ProcessEnv(os.Environ()),
		Dir:      cfg.Cwd,
		Grace:    c.opts.StopGrace,
		OnStderr: onStderr,
		Scrub:    redact.str,
	})
	if err != nil {
		return nil, nil, err
	}
	return p, jsonrpc.NewStdioStream(redact.reader(p.Stdout()), p.Stdin(), stdioCloser{p}, jsonrpc.StdioOptions{
		MaxMessageSize: c.opts.MaxMessageSize,
		OnEOF:          func() error { return exitCause(p) },
	}), nil
}

// stdioCloser closes a server's stdin, which asks it to exit, and, once it
// has exited, its stdout: the close must unblock a pending read even when a
// descendant that left the server's process group holds stdout open.
type stdioCloser struct{ p *proc.Process }

func (c stdioCloser) Close() error {
	err := c.p.Stdin().Close()
	c.p.ReleaseStdout()
	return err
}

// exitCause waits briefly for the process behind a closed stdout and
// returns its exit as the connection's close cause.
func exitCause(p *proc.Process) error {
	select {
	case <-p.Done():
		if err := p.Exit(); err != nil {
			return fmt.Errorf("server process %w", err)
		}
		// Status 0 is an exit too (KindExited, not only a closed
		// connection), said as the others are, with the server's last
		// words: a program that is no stdio MCP server, or a script
		// that never starts serving, ends so.
		return fmt.Errorf("server process %w", &proc.ExitError{StderrTail: p.StderrTail()})
	case <-time.After(2 * time.Second):
		return errors.New("server closed its stdout but its process is still running")
	}
}

// DialHTTP opens an HTTP stream of its own to the remote server cfg, dialed
// as the controller dials its sessions (headers, size limit, authorization,
// redirect policy, exchanges traced for recordings), for requests a session
// never sends: the compatibility check's probes, sent with SendRaw. modern
// selects the 2026-07-28 Streamable HTTP. Nothing is exchanged until the
// caller sends; the caller closes the stream.
func (c *Controller) DialHTTP(ctx context.Context, cfg config.Server, modern bool) (*mcphttp.Stream, error) {
	if cfg.Transport == config.TransportStdio {
		return nil, fmt.Errorf("dialing %q over HTTP: %w: it is a stdio server", cfg.Name, ErrConfig)
	}
	opts := c.httpOptions(cfg, newRedactor(cfg))
	if modern {
		opts.Modern = &mcphttp.ModernOptions{}
	} else {
		opts.Legacy = cfg.Transport == config.TransportSSE
	}
	return mcphttp.Dial(ctx, opts)
}

// StartStdio starts a fresh process of the stdio server cfg and returns it
// with the stream over its pipes, started as the controller starts its
// sessions' (environment, working directory, process group, stop grace,
// size limit, exit cause), for requests a session never sends. The caller
// builds its connection on the stream and stops the process.
func (c *Controller) StartStdio(cfg config.Server) (*proc.Process, jsonrpc.Stream, error) {
	if cfg.Transport != config.TransportStdio {
		return nil, nil, fmt.Errorf("starting %q: %w: it is a remote server", cfg.Name, ErrConfig)
	}
	return c.startStdio(cfg, newRedactor(cfg), nil)
}
