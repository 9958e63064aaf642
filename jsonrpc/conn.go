// Package jsonrpc is mcpdeck's JSON-RPC 2.0 layer: a connection to one
// peer (Conn) over a Stream of whole frames (newline-delimited stdio here,
// HTTP in jsonrpc/mcphttp). It owns request ids from our own counter, the
// outstanding-request table, cancellation (notifications/cancelled) in
// both directions, serving the peer's requests, the trace of every frame,
// and the close cause that outstanding calls see.
//
// github.com/sourcegraph/jsonrpc2 runs the connection's read loop: it
// reads through the Stream (adapted as its ObjectStream), hands the
// requests and notifications it decodes to the connection's
// jsonrpc2.Handler, reports what it decodes to an OnRecv hook, and closes
// the stream when a read fails. Its traits, and how this package meets
// them:
//   - its Handler runs on the read loop, so the connection's never waits
//     there: notifications go through a bounded queue to one dispatcher
//     goroutine, in arrival order, and each request is served on a worker
//     goroutine, as the library's AsyncHandler would serve it, except that
//     Close waits for every worker; a response reaches its caller only
//     once the notifications read before it were delivered (order.go);
//   - it logs to stderr unless given a logger, so it always gets a silent
//     one;
//   - its decoder reads a message into maps and interface values and
//     encodes the params again (a response's result twice more), so the
//     intake reads each frame's envelope once (ReadEnvelope) and takes what
//     that reading sorts before the decoder: a response is matched against
//     our own table and its result handed to its caller as it came, and a
//     notification or a request goes to the Handler as the library would
//     hand it. The decoder sees only what the intake leaves (string ids,
//     malformed messages), and what it rejects is reported as an anomaly;
//   - its Call and Reply encode a message several times over and write
//     with no ctx, so every frame we send is built here, once, and written
//     through the Stream with the sender's ctx: the library never writes,
//     and the close cause is recorded here, where the calls wait.
//
// The round trip of a call then costs one encoding of its params and one
// pass over its result, which matters most for the 2026-07-28 revision,
// whose requests and results carry more (the _meta envelope, resultType,
// serverInfo).
package jsonrpc

import (
	"context"
	"errors"
	"io"
	"log"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"
)

// Handler answers a request from the peer (server→client requests such as
// roots/list). It runs on its own goroutine; ctx is cancelled when the peer
// cancels the request or the connection closes. Return a *Error to choose
// the error code; any other error becomes -32603.
type Handler func(ctx context.Context, req *Request) (any, error)

// Options configure a Conn. Every callback must return quickly: Trace and
// OnAnomaly run on the read loop or the sender's goroutine.
type Options struct {
	// Handler answers peer requests other than ping (which is answered with
	// {}). Nil answers -32601 to everything else.
	Handler Handler
	// OnNotification receives notifications in arrival order, from one
	// dispatcher goroutine. A response reaches its caller only after
	// OnNotification returned for every notification read before it, so
	// it must not wait for a Call on the same connection.
	OnNotification func(Notification)
	// NotificationBuffer bounds the notifications waiting for delivery;
	// default 4096.
	NotificationBuffer int
	// Lossless makes a full notification buffer block the read loop instead
	// of dropping the oldest notification.
	Lossless bool
	// Trace, if set, sees every frame sent and received.
	Trace func(Frame)
	// OnAnomaly, if set, hears of skipped noise, invalid messages and
	// unmatched or late responses.
	OnAnomaly func(Anomaly)
}

// Conn is a JSON-RPC connection to one peer. It is safe for concurrent use.
type Conn struct {
	rpc    *jsonrpc2.Conn
	stream Stream
	opts   Options
	notes  *noteQueue

	nextID atomic.Uint64

	// mu guards the request tables and the close cause; the read loop, the
	// callers and Close all touch them.
	mu sync.Mutex
	// turn is the turn to write: one frame at a time goes to the stream.
	// A channel rather than a mutex so that a writer can stop waiting for
	// it (a cancellation notice after its bound, anyone once the
	// connection is closing). Nothing is called while it is held but the
	// stream's Write.
	turn        chan struct{}
	outstanding map[uint64]*outstandingCall
	cancelled   map[uint64]struct{}          // ids we cancelled, to recognise late responses
	cancelOrder []uint64                     // bounds cancelled (oldest forgotten first)
	incoming    map[string]incomingCall      // the peer's requests being served, by id as Request.ID spells it
	undecodable map[uint64]*UndecodableError // responses that arrived undecodable, by id, until their caller takes them
	cause       error

	// recent remembers what may have been meant as an answer, for the
	// errors of requests that never got one.
	recent recent

	readDone chan struct{} // closed when the read loop has ended
	// closed is closed as soon as the connection is closing (Close, or the
	// stream ended): waiting calls are rejected then, not only once the
	// read loop ends, which on stdio waits for the server's stdout to
	// close, that is for its process to be gone.
	closed       chan struct{}
	closedOnce   sync.Once
	dispatchDone chan struct{} // closed when every queued notification was delivered
	// idle hands a peer's request to a worker waiting for one (work);
	// workers counts the workers, idleWorkers those waiting.
	idle        chan func()
	workers     sync.WaitGroup
	idleWorkers atomic.Int32
	handlers    sync.WaitGroup
	notices     sync.WaitGroup // cancellation notices being sent (sendCancelNotice)

	// lastRead is the frame the read loop just decoded, for the trace; only
	// the read loop touches it.
	lastRead []byte
	// read counts the notifications read, numbering them; only the read
	// loop touches it. order is how a response waits for the ones read
	// before it (order.go).
	read  uint64
	order order

	framesIn, framesOut, delivered, late, unknown, noise, cancelSent atomic.Uint64
}

// NewConn starts a connection over stream. It takes ownership of stream.
func NewConn(stream Stream, opts Options) *Conn {
	if opts.NotificationBuffer <= 0 {
		opts.NotificationBuffer = 4096
	}
	c := &Conn{
		stream:       stream,
		opts:         opts,
		notes:        newNoteQueue(opts.NotificationBuffer, opts.Lossless),
		outstanding:  map[uint64]*outstandingCall{},
		cancelled:    map[uint64]struct{}{},
		incoming:     map[string]incomingCall{},
		undecodable:  map[uint64]*UndecodableError{},
		readDone:     make(chan struct{}),
		closed:       make(chan struct{}),
		turn:         make(chan struct{}, 1),
		dispatchDone: make(chan struct{}),
		idle:         make(chan func()),
	}
	c.order.wake = make(chan struct{})
	connOpts := []jsonrpc2.ConnOpt{
		jsonrpc2.SetLogger(log.New(io.Discard, "", 0)),
		jsonrpc2.OnRecv(c.onRecv),
	}
	go c.dispatch()
	c.rpc = jsonrpc2.NewConn(context.Background(), (*objectStream)(c), (*rpcHandler)(c), connOpts...)
	return c
}

// Outstanding lists the requests awaiting a response, oldest first.
func (c *Conn) Outstanding() []Outstanding {
	c.mu.Lock()
	out := make([]Outstanding, 0, len(c.outstanding))
	for _, o := range c.outstanding {
		out = append(out, o.Outstanding)
	}
	c.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Stats returns the connection's counters.
func (c *Conn) Stats() Stats {
	return Stats{
		FramesIn:               c.framesIn.Load(),
		FramesOut:              c.framesOut.Load(),
		Notifications:          c.delivered.Load(),
		DroppedNotifications:   c.notes.droppedCount(),
		LateResponses:          c.late.Load(),
		UnknownResponses:       c.unknown.Load(),
		NoiseLines:             c.noise.Load(),
		CancelNotificationSent: c.cancelSent.Load(),
	}
}

// Done is closed once the connection has closed and every notification
// received before that was delivered.
func (c *Conn) Done() <-chan struct{} { return c.dispatchDone }

// Err returns why the connection closed, or nil while it is open.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cause
}

// Close closes the connection with ErrClosedByClient as the cause.
func (c *Conn) Close() error { return c.CloseWithCause(ErrClosedByClient) }

// CloseWithCause closes the connection; outstanding calls fail with a
// *ClosedError carrying cause (unless a cause was already recorded). It
// waits for the read loop, the notification dispatcher and peer-request
// handlers to finish.
func (c *Conn) CloseWithCause(cause error) error {
	c.setCause(cause)
	err := c.rpc.Close()
	if errors.Is(err, jsonrpc2.ErrClosed) {
		err = nil // closed already, by the read loop
	}
	c.notes.close()
	// The peer's requests still being handled are cancelled, as the
	// Handler's contract says: nobody is left to read their answers.
	c.mu.Lock()
	for _, in := range c.incoming {
		in.cancel()
	}
	c.mu.Unlock()
	<-c.readDone
	<-c.dispatchDone
	c.handlers.Wait()
	c.workers.Wait()
	c.notices.Wait() // the stream is closed: a notice's write has ended, its wait for a turn too
	return err
}

func (c *Conn) setCause(err error) {
	c.mu.Lock()
	if c.cause == nil {
		c.cause = err
	}
	c.mu.Unlock()
	c.closedOnce.Do(func() { close(c.closed) })
}
