// Package demoserver is mcpdeck's built-in demo MCP server: a small, well-behaved
// server on stdio that the embedded default configuration runs (as
// `mcpdeck demo-server`) so a fresh machine has something to monitor, and that
// tests and the compatibility checker use as a known-good peer.
//
// It is the official Go SDK's server (go-sdk's mcp.Server) with the demo
// features: four tools (echo, add, sleep with progress and cancellation,
// fail), one prompt (greet), one resource (demo://status, subscribable) and
// one template (demo://greeting/{name}) whose name completes, a periodic
// heartbeat log message so a live notification stream is visible, and the
// trace context of a request echoed in its result. It speaks the session
// revisions, 2024-11-05 to 2025-11-25, over newline-delimited JSON-RPC (one
// message per line), and answers with the version the client asked for
// when it knows it. It is strict about arguments, so clients can exercise
// both happy and error paths; its own line transport (transport.go) keeps
// a session alive through malformed lines and never answers a cancelled
// request.
package demoserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultLogInterval is how often the heartbeat log message is sent when
// Options.LogInterval is zero.
const DefaultLogInterval = 5 * time.Second

// DefaultName is the serverInfo name the demo server reports.
const DefaultName = "mcpdeck-demo"

// ErrTransport is wrapped by the errors Run returns when the pipe to the
// client fails (a read error other than EOF, or a failed write).
var ErrTransport = errors.New("demo server transport failed")

// Options configures Run. The zero value is ready to use.
type Options struct {
	// LogInterval is the period of the heartbeat notifications/message.
	// Zero means DefaultLogInterval; a negative value disables the heartbeat.
	LogInterval time.Duration
	// Stderr receives the server's own diagnostics (never protocol traffic).
	// Nil discards them, because library code must not write to a terminal
	// that a TUI may own.
	Stderr io.Writer
	// Name is the serverInfo name; empty means DefaultName.
	Name string
	// Version is the serverInfo version; empty means "dev".
	Version string
}

func (o Options) withDefaults() Options {
	if o.LogInterval == 0 {
		o.LogInterval = DefaultLogInterval
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Name == "" {
		o.Name = DefaultName
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	return o
}

// Run serves one MCP session: it reads requests from in and writes responses
// and notifications to out, one JSON object per line, until in reaches EOF
// (Run returns nil), ctx is done (Run returns ctx.Err()), or the pipe fails
// (Run returns an error wrapping ErrTransport). Before returning it stops
// every goroutine it started, including running tool calls and the heartbeat.
//
// Run does not close in or out: the caller owns them. When the session ends,
// Run unblocks a pending read and any write stuck on a client that stopped
// reading by setting past deadlines on in and out where they support them
// (os.Stdin, os.Stdout and os.Pipe ends do), so a caller that reuses them
// must reset the deadlines. With a reader that cannot be interrupted, the
// internal read goroutine ends only when in delivers data, EOF or an error;
// with a writer that blocks and cannot be interrupted, Run waits for it.
func Run(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	opts = opts.withDefaults()
	conn := newLineConn(in, out)
	d := newDemo(opts)
	ss, err := d.srv.Connect(ctx, conn, &mcp.ServerSessionOptions{State: initialSession()})
	if err != nil {
		conn.Close()
		conn.waitReadEnd()
		return fmt.Errorf("starting the demo server session: %w", err)
	}
	ended := make(chan struct{})
	go func() {
		_ = ss.Wait()
		close(ended)
	}()

	select {
	case <-conn.readEnded():
	case <-conn.writeFailed():
	case <-ctx.Done():
	case <-ended:
	}
	// Closing the line transport first unblocks a write stuck on a client
	// that stopped reading and ends go-sdk's read, which cancels every call
	// still running; go-sdk's Close then waits for their handlers.
	conn.Close()
	d.shutdown()
	_ = ss.Close()
	<-ended
	conn.waitReadEnd()

	if err := ctx.Err(); err != nil {
		return err
	}
	if err := conn.writeErr(); err != nil {
		return fmt.Errorf("writing to the client: %w: %w", ErrTransport, err)
	}
	if err := conn.readErr(); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("reading from the client: %w: %w", ErrTransport, err)
	}
	return nil
}
