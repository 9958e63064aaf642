// Package jsonrpc is mcpdeck's JSON-RPC 2.0 layer over
// github.com/sourcegraph/jsonrpc2. It owns framing (Stream: newline-delimited
// stdio here, HTTP in sub-packages), request ids from our own counter, the
// outstanding-request table, cancellation (notifications/cancelled), the
// trace of every frame, and the close cause that outstanding calls see.
//
// Traits of the library this package designs around:
//   - its handler runs on the read loop, so peer requests are answered on
//     their own goroutines and notifications go through a bounded queue;
//   - it logs to stderr unless given a logger, so it always gets a silent one;
//   - Close wakes pending calls with a bare ErrClosed, so the close cause is
//     recorded here and returned as a *ClosedError;
//   - PickID lets us choose ids, which cancellation and the outstanding view
//     need.
//
// Requests we send and the responses to them take a shorter way than the
// library's: the request frame is written here, once, and a response is
// taken off the stream before the library's decoder (which decodes every
// result into interface values, then again into its Response, then once
// more for the caller) and matched against our own table. The round trip
// of a call then costs one encoding of its params and one pass over its
// result, which matters most for the 2026-07-28 revision, whose requests
// and results carry more (the _meta envelope, resultType, serverInfo).
// Notifications bypass the decoder the same way; peer requests and our
// replies to them still go the library's way.
package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"reflect"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

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
	// dispatcher goroutine.
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
	cancelled   map[uint64]struct{} // ids we cancelled, to recognise late responses
	cancelOrder []uint64            // bounds cancelled (oldest forgotten first)
	incoming    map[string]context.CancelFunc
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

	framesIn, framesOut, delivered, late, unknown, noise, cancelSent atomic.Uint64
}

type outstandingCall struct {
	Outstanding
	cancel context.CancelCauseFunc
	resp   chan response // gets the response, taken off the stream
}

// response is a response as taken off the stream: a raw result, an
// error object, or a response that cannot be decoded.
type response struct {
	result      json.RawMessage
	err         *Error
	undecodable *UndecodableError
}

// take is what Call returns for the response.
func (r response) take(method string) (json.RawMessage, error) {
	switch {
	case r.undecodable != nil:
		r.undecodable.Method = method
		return nil, r.undecodable
	case r.err != nil:
		return nil, r.err
	}
	return r.result, nil
}

// cancelMemory bounds how many cancelled ids are remembered for counting
// late responses.
const cancelMemory = 4096

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
		incoming:     map[string]context.CancelFunc{},
		undecodable:  map[uint64]*UndecodableError{},
		readDone:     make(chan struct{}),
		closed:       make(chan struct{}),
		turn:         make(chan struct{}, 1),
		dispatchDone: make(chan struct{}),
		idle:         make(chan func()),
	}
	connOpts := []jsonrpc2.ConnOpt{
		jsonrpc2.SetLogger(log.New(io.Discard, "", 0)),
		jsonrpc2.OnRecv(c.onRecv),
	}
	go c.dispatch()
	c.rpc = jsonrpc2.NewConn(context.Background(), (*objectStream)(c), (*rpcHandler)(c), connOpts...)
	return c
}

// Call sends a request and waits for its response, returning the raw
// result. Errors: *Error for an error response, *CancelledError when ctx
// ends first (a notifications/cancelled is sent), *ClosedError when the
// transport closes.
func (c *Conn) Call(ctx context.Context, method string, params any, opts ...CallOption) (json.RawMessage, error) {
	var o callOptions
	for _, opt := range opts {
		opt(&o)
	}
	id := c.nextID.Add(1)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	c.mu.Lock()
	if c.cause != nil {
		cause := c.cause
		c.mu.Unlock()
		return nil, &ClosedError{Method: method, Cause: cause}
	}
	oc := &outstandingCall{
		Outstanding: Outstanding{ID: id, Method: method, Label: o.label, Start: time.Now()},
		cancel:      cancel,
		resp:        make(chan response, 1),
	}
	c.outstanding[id] = oc
	c.mu.Unlock()
	start, notesBefore := time.Now(), c.recent.notes.Load()
	defer func() {
		c.mu.Lock()
		delete(c.outstanding, id)
		delete(c.undecodable, id)
		c.mu.Unlock()
	}()
	if o.onID != nil {
		o.onID(id)
	}

	frame, err := requestFrame(id, method, params)
	if err != nil {
		return nil, fmt.Errorf("encoding the %s request: %w", method, err)
	}
	if err := c.write(context.Background(), frame, Frame{Kind: KindRequest, Method: method, ID: FormatID(id)}); err != nil {
		return nil, c.sendError(method, err)
	}
	select {
	case r := <-oc.resp:
		return r.take(method)
	case <-c.closed:
		select {
		case r := <-oc.resp: // it came with the last frames read
			return r.take(method)
		default:
		}
		return nil, &ClosedError{Method: method, Cause: c.Err()}
	case <-ctx.Done():
		cerr := c.cancelCall(ctx, id, method, o.noCancelNotify)
		cerr.Arrived = c.arrivedSince(start, notesBefore)
		return nil, cerr
	}
}

// requestFrame encodes a request: params once, the envelope by hand.
func requestFrame(id uint64, method string, params any) ([]byte, error) {
	b := make([]byte, 0, 128)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, ',')
	return appendMethod(b, method, params)
}

// notificationFrame encodes a notification the same way.
func notificationFrame(method string, params any) ([]byte, error) {
	return appendMethod(append(make([]byte, 0, 128), `{"jsonrpc":"2.0",`...), method, params)
}

// appendMethod ends a frame begun in b with its method and params.
func appendMethod(b []byte, method string, params any) ([]byte, error) {
	b = append(b, `"method":`...)
	m, err := json.Marshal(method)
	if err != nil {
		return nil, err
	}
	b = append(b, m...)
	if params != nil {
		var p []byte
		switch v := params.(type) {
		case json.RawMessage:
			p = v
		default:
			if p, err = json.Marshal(params); err != nil {
				return nil, err
			}
		}
		b = append(b, `,"params":`...)
		b = append(b, p...)
	}
	return append(b, '}'), nil
}

// errClosing is why a frame was not written: the connection is closing
// (Call and Notify report the close cause instead).
var errClosing = errors.New("the connection is closing")

// write sends one frame we built, traced as f describes it. The trace
// comes first, outside the turn to write, so a callback never runs while
// other writers wait, and a request shows before its response.
func (c *Conn) write(ctx context.Context, b []byte, f Frame) error {
	c.trace(b, f)
	if err := c.takeTurn(ctx, nil); err != nil {
		return err
	}
	defer c.giveTurn()
	c.framesOut.Add(1)
	return c.stream.Write(b)
}

// trace hands an outgoing frame to the Trace callback, if any.
func (c *Conn) trace(b []byte, f Frame) {
	if c.opts.Trace == nil {
		return
	}
	f.Dir, f.Time, f.Size = Out, time.Now(), len(b)
	raw := b
	if len(raw) > TraceRawLimit {
		raw = raw[:TraceRawLimit]
	}
	f.Raw = append([]byte(nil), raw...)
	c.opts.Trace(f)
}

// takeTurn waits for the turn to write, until ctx ends, give fires (nil:
// never) or the connection is closing. giveTurn hands it back.
func (c *Conn) takeTurn(ctx context.Context, give <-chan time.Time) error {
	select {
	case c.turn <- struct{}{}:
		return nil
	case <-c.closed:
		return errClosing
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-give:
		return errNoTurn
	}
}

func (c *Conn) giveTurn() { <-c.turn }

// errNoTurn: a cancellation notice waited cancelNoticeTimeout for its
// turn to write and gave up.
var errNoTurn = errors.New("no turn to write")

// Bounds of the cancellation notice (sendCancelNotice). As go-sdk's
// notifyCancellationTimeout: the notice is best effort, and a peer that
// stopped reading must not hold the caller, nor a goroutine for ever.
var (
	// cancelNoticeTimeout bounds the notice's wait for its turn to write.
	cancelNoticeTimeout = 5 * time.Second
	// cancelNoticeWait bounds the caller's wait for its notice. On a
	// healthy transport the notice is written long before, so it still
	// reaches the peer before whatever the caller does next (closing the
	// connection, say).
	cancelNoticeWait = 100 * time.Millisecond
)

// sendCancelNotice tells the peer that request id is cancelled, from a
// goroutine of its own that Close waits for: the notice waits for its
// turn to write at most cancelNoticeTimeout, and the caller for the
// notice at most cancelNoticeWait. A write already begun ends with the
// stream (Close closes it).
func (c *Conn) sendCancelNotice(id uint64, reason string) {
	frame, err := notificationFrame("notifications/cancelled", cancelParams{RequestID: id, Reason: reason})
	if err != nil {
		return
	}
	c.mu.Lock()
	if c.cause != nil {
		c.mu.Unlock()
		return // closing: nobody is left to tell, and Close may be waiting for notices already
	}
	c.notices.Add(1)
	c.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer c.notices.Done()
		defer close(done)
		give := time.NewTimer(cancelNoticeTimeout)
		defer give.Stop()
		if c.takeTurn(context.Background(), give.C) != nil {
			return
		}
		c.framesOut.Add(1)
		err := c.stream.Write(frame)
		if err == nil {
			c.cancelSent.Add(1) // before the turn is given back: a later frame never overtakes the count
		}
		c.giveTurn()
		if err == nil {
			// Traced once written, outside the turn: nothing answers a
			// notice, so nothing can show before it.
			c.trace(frame, Frame{Kind: KindNotification, Method: "notifications/cancelled"})
		}
	}()
	wait := time.NewTimer(cancelNoticeWait)
	defer wait.Stop()
	select {
	case <-done:
	case <-wait.C:
	}
}

// cancelParams are the params of notifications/cancelled.
type cancelParams struct {
	RequestID uint64 `json:"requestId"`
	Reason    string `json:"reason"`
}

// cancelCall records id as cancelled, tells the peer, and builds the error.
func (c *Conn) cancelCall(ctx context.Context, id uint64, method string, quiet bool) *CancelledError {
	cause := context.Cause(ctx)
	timeout := errors.Is(cause, context.DeadlineExceeded) || errors.Is(cause, ErrTimeout)
	reason := cause.Error()
	var ur *userCancel
	if errors.As(cause, &ur) {
		reason = ur.reason
	}
	c.mu.Lock()
	c.cancelled[id] = struct{}{}
	c.cancelOrder = append(c.cancelOrder, id)
	if len(c.cancelOrder) > cancelMemory {
		delete(c.cancelled, c.cancelOrder[0])
		c.cancelOrder = c.cancelOrder[1:]
	}
	c.mu.Unlock()
	if !quiet {
		// The spec's cancellation notice; a failure to send it means the
		// transport is going away, which the caller learns elsewhere.
		c.sendCancelNotice(id, reason)
	}
	return &CancelledError{ID: id, Method: method, Reason: reason, Timeout: timeout, Cause: cause}
}

// sendError turns a failure to write a request into the error a caller
// should see: when the write failed because the transport is closing, the
// transport's close cause says more than "broken pipe".
func (c *Conn) sendError(method string, err error) error {
	if cause := c.Err(); cause != nil {
		return &ClosedError{Method: method, Cause: cause} // closed meanwhile: that is why the write failed
	}
	if !errors.Is(err, jsonrpc2.ErrClosed) {
		select {
		case <-c.readDone:
		case <-time.After(time.Second):
			return &ClosedError{Method: method, Cause: err}
		}
	}
	return &ClosedError{Method: method, Cause: c.Err()}
}

// Notify sends a notification. ctx bounds the wait for the turn to
// write; a write begun is not interrupted.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	frame, err := notificationFrame(method, params)
	if err != nil {
		return fmt.Errorf("encoding the %s notification: %w", method, err)
	}
	if err := c.write(ctx, frame, Frame{Kind: KindNotification, Method: method}); err != nil {
		if ctx.Err() != nil {
			return err
		}
		return c.sendError(method, err)
	}
	return nil
}

// Cancel cancels the outstanding request id with a reason (sent to the
// peer). It reports whether the request was outstanding.
func (c *Conn) Cancel(id uint64, reason string) bool {
	c.mu.Lock()
	call, ok := c.outstanding[id]
	c.mu.Unlock()
	if ok {
		call.cancel(&userCancel{reason: reason})
	}
	return ok
}

type userCancel struct{ reason string }

func (u *userCancel) Error() string { return "cancelled: " + u.reason }
func (u *userCancel) Unwrap() error { return ErrCancelled }

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
	for _, cancel := range c.incoming {
		cancel()
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

// dispatch delivers queued notifications in order until the queue closes.
func (c *Conn) dispatch() {
	defer close(c.dispatchDone)
	var batch []Notification
	for {
		var ok bool
		batch, ok = c.notes.popAll(batch[:0])
		for _, n := range batch {
			if c.opts.OnNotification != nil {
				c.opts.OnNotification(n)
			}
			c.delivered.Add(1)
		}
		if !ok {
			return
		}
	}
}

func (c *Conn) anomaly(kind AnomalyKind, id, detail string, raw []byte) {
	if kind == AnomalyNoise || kind == AnomalyInvalid {
		c.noise.Add(1)
	}
	remember := kind == AnomalyUnknownResponse || kind == AnomalyNullID || kind == AnomalyUndecodable || kind == AnomalyInvalid
	if c.opts.OnAnomaly == nil && !remember {
		return
	}
	if len(raw) > NoiseLimit {
		raw = raw[:NoiseLimit]
	}
	a := Anomaly{Kind: kind, Time: time.Now(), ID: id, Detail: detail, Raw: append([]byte(nil), raw...)}
	if remember {
		c.recent.add(a)
	}
	if c.opts.OnAnomaly != nil {
		c.opts.OnAnomaly(a)
	}
}

// onRecv runs on the read loop after each message is decoded (and, for
// responses, matched against the library's pending table).
func (c *Conn) onRecv(req *jsonrpc2.Request, resp *jsonrpc2.Response) {
	c.framesIn.Add(1)
	if resp != nil {
		var num uint64
		known := req != nil
		if !resp.ID.IsString {
			num = resp.ID.Num
		}
		// A response to an id we cancelled is late, whether or not the
		// library still had it pending.
		c.mu.Lock()
		_, wasCancelled := c.cancelled[num]
		delete(c.cancelled, num)
		c.mu.Unlock()
		switch {
		case wasCancelled && !resp.ID.IsString:
			c.late.Add(1)
			c.anomaly(AnomalyLateResponse, resp.ID.String(), "response arrived after the request was cancelled; dropped", nil)
		case !known:
			c.unknown.Add(1)
			c.anomaly(AnomalyUnknownResponse, resp.ID.String(), "no request with this id is outstanding", c.lastRead)
		}
	}
	if c.opts.Trace != nil {
		c.opts.Trace(frameOf(In, c.lastRead, req, resp))
	}
}

func frameOf(dir Direction, raw []byte, req *jsonrpc2.Request, resp *jsonrpc2.Response) Frame {
	f := Frame{Dir: dir, Time: time.Now(), Size: len(raw)}
	if len(raw) > TraceRawLimit {
		raw = raw[:TraceRawLimit]
	}
	f.Raw = append([]byte(nil), raw...)
	switch {
	case resp != nil:
		f.Kind = KindResult
		if resp.Error != nil {
			f.Kind = KindError
		}
		f.ID = resp.ID.String()
		if req != nil {
			f.Method = req.Method
		}
	case req != nil:
		f.Method = req.Method
		f.Kind = KindRequest
		if req.Notif {
			f.Kind = KindNotification
		} else {
			f.ID = req.ID.String()
		}
	}
	return f
}

// objectStream adapts a frame Stream to the library's ObjectStream.
type objectStream Conn

func (s *objectStream) ReadObject(v any) error {
	c := (*Conn)(s)
	for {
		frame, err := c.stream.Read()
		if err != nil {
			c.setCause(err)
			c.notes.close()
			close(c.readDone)
			return err
		}
		// The envelope is read once, here, and every taker sorts the
		// frame by it; what none takes goes the library's way.
		if env, err := ReadEnvelope(frame); err == nil &&
			(c.takeNotification(frame, env) || c.takeResponse(frame, env) || c.takeNullID(frame, env)) {
			continue
		}
		if err := json.Unmarshal(frame, v); err != nil {
			// A failed decode may leave a half-filled message behind.
			reflect.ValueOf(v).Elem().SetZero()
			if c.takeUndecodable(frame, err, v) {
				return nil
			}
			kind := AnomalyInvalid
			if first := firstByte(frame); first != '{' && first != '[' {
				kind = AnomalyNoise
			}
			c.anomaly(kind, "", err.Error(), frame)
			continue
		}
		if c.opts.Trace != nil || c.opts.OnAnomaly != nil {
			c.lastRead = frame
		}
		return nil
	}
}

// takeNotification delivers a notification frame straight to the queue,
// bypassing the library's decoder, which turns every message into a map
// and re-marshals its params: at a server's flooding rate that was three
// quarters of intake time. Requests are served the same way. It reports
// whether it took the frame; env is the frame's envelope, read once by
// ReadObject.
func (c *Conn) takeNotification(frame []byte, env Envelope) bool {
	if env.Method == nil || env.Result != nil || env.Error != nil {
		return false // not a notification; the library decides what it is
	}
	method, ok := env.MethodName()
	if !ok || !json.Valid(frame) {
		return false // the library reports what is wrong with it
	}
	// The frame is valid until the next read: the params are copied.
	var params json.RawMessage
	if env.Params != nil {
		params = append(json.RawMessage(nil), env.Params...)
	}
	if env.ID != nil {
		// A request: served here too, for the same reason (the library
		// would turn its params into a map and marshal them again).
		var id jsonrpc2.ID
		if json.Unmarshal(env.ID, &id) != nil {
			return false
		}
		c.framesIn.Add(1)
		if c.opts.Trace != nil {
			c.opts.Trace(frameOf(In, frame, &jsonrpc2.Request{Method: method, ID: id}, nil))
		}
		c.serveRequest(context.Background(), id, method, params)
		return true
	}
	c.framesIn.Add(1)
	if c.opts.Trace != nil {
		c.opts.Trace(frameOf(In, frame, &jsonrpc2.Request{Method: method, Notif: true}, nil))
	}
	if method == "notifications/cancelled" {
		c.cancelIncoming(params)
	}
	c.recent.noted(&method)
	c.notes.push(Notification{Method: method, Params: params, Received: time.Now()})
	return true
}

// takeResponse matches a response frame against the requests we sent and
// hands its result to the waiting caller, bypassing the library's decoder.
// It reports whether frame was a response with a numeric id (ours); other
// frames, and responses the library must see (none: the library sends no
// requests of its own), go the library's way.
func (c *Conn) takeResponse(frame []byte, m Envelope) bool {
	if !m.IsResponse() {
		return false // not a response: the library decides (and reports it)
	}
	var wireErr *Error
	if m.hasError() {
		var ok bool
		if wireErr, ok = decodeError(m.Error); !ok {
			return false // a malformed error object: the library reports it
		}
	}
	id, err := strconv.ParseUint(string(m.ID), 10, 64)
	if err != nil {
		return false // a string or null id: not one of ours, and the library reports it
	}
	c.framesIn.Add(1)
	c.mu.Lock()
	oc := c.outstanding[id]
	_, wasCancelled := c.cancelled[id]
	delete(c.cancelled, id)
	if oc != nil && !wasCancelled {
		delete(c.outstanding, id) // answered: a second response with this id is unknown
	}
	c.mu.Unlock()
	if c.opts.Trace != nil {
		f := Frame{Dir: In, Time: time.Now(), Kind: KindResult, ID: FormatID(id), Size: len(frame)}
		if wireErr != nil {
			f.Kind = KindError
		}
		if oc != nil {
			f.Method = oc.Method
		}
		raw := frame
		if len(raw) > TraceRawLimit {
			raw = raw[:TraceRawLimit]
		}
		f.Raw = append([]byte(nil), raw...)
		c.opts.Trace(f)
	}
	switch {
	case wasCancelled:
		c.late.Add(1)
		c.anomaly(AnomalyLateResponse, FormatID(id), "response arrived after the request was cancelled; dropped", nil)
	case oc == nil:
		c.unknown.Add(1)
		c.anomaly(AnomalyUnknownResponse, FormatID(id), "no request with this id is outstanding", frame)
	case m.Deep:
		// Nested beyond what any decoder here reads: fail the request at
		// once, with the decoder's own words for it.
		derr := json.Unmarshal(m.Result, new(json.RawMessage))
		if derr == nil {
			derr = fmt.Errorf("nested deeper than %d levels", maxDepth)
		}
		c.anomaly(AnomalyUndecodable, FormatID(id), derr.Error(), frame)
		oc.resp <- response{undecodable: &UndecodableError{ID: id, Size: len(frame), Err: derr}}
	case wireErr != nil:
		oc.resp <- response{err: wireErr}
	default:
		// The frame is valid until the next read: the caller gets a copy.
		oc.resp <- response{result: append(json.RawMessage(nil), m.Result...)}
	}
	return true
}

// takeNullID drops an error response whose id is null, reporting it as an
// anomaly: the library would read the null as id 0, and it answers no
// request (the peer could not read one's id). Requests that then time out
// name it.
func (c *Conn) takeNullID(frame []byte, env Envelope) bool {
	if !env.NullID() || !env.IsResponse() {
		return false
	}
	c.framesIn.Add(1)
	detail := "no request can match it"
	var e ErrorObject
	if env.hasError() && json.Unmarshal(env.Error, &e) == nil {
		detail = fmt.Sprintf("%s (code %d)", e.Message, e.Code)
	}
	c.unknown.Add(1)
	c.anomaly(AnomalyNullID, "null", detail, frame)
	if c.opts.Trace != nil {
		c.opts.Trace(frameOf(In, frame, nil, &jsonrpc2.Response{ID: jsonrpc2.ID{Str: "null", IsString: true}, Error: &jsonrpc2.Error{Message: detail}}))
	}
	return true
}

// takeUndecodable handles a frame the decoder rejected that is shaped like
// a response to an outstanding request (typically a result nested deeper
// than encoding/json's 10,000 levels): rather than skipping it as noise,
// which left the request to hang until its timeout, it hands the library
// a stand-in error response for that id, and Call returns an
// *UndecodableError. It reports whether it did.
func (c *Conn) takeUndecodable(frame []byte, decodeErr error, v any) bool {
	env, ok := scanEnvelope(frame)
	if !ok || !env.isResponse() {
		return false
	}
	id, err := strconv.ParseUint(string(env.id), 10, 64)
	if err != nil {
		return false
	}
	c.mu.Lock()
	_, waiting := c.outstanding[id]
	if waiting {
		c.undecodable[id] = &UndecodableError{ID: id, Size: len(frame), Err: decodeErr}
	}
	c.mu.Unlock()
	if !waiting {
		return false
	}
	c.anomaly(AnomalyUndecodable, FormatID(id), decodeErr.Error(), frame)
	stand := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":%d,"message":"undecodable response"}}`, id, CodeParseError)
	if json.Unmarshal([]byte(stand), v) != nil {
		return false
	}
	c.lastRead = frame
	return true
}

func firstByte(b []byte) byte {
	for _, ch := range b {
		if ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n' {
			return ch
		}
	}
	return 0
}

// WriteObject is the library's way out. Every frame we send is built
// here by hand (requests, notifications, replies), so the library writes
// only if it ever answers on its own; such a frame still takes its turn.
func (s *objectStream) WriteObject(v any) error {
	c := (*Conn)(s)
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.write(context.Background(), b, frameOf(Out, b, nil, nil))
}

func (s *objectStream) Close() error { return (*Conn)(s).stream.Close() }

// rpcHandler receives the peer's requests and notifications on the read
// loop; it must never block there (except a full lossless queue, by design).
type rpcHandler Conn

func (h *rpcHandler) Handle(ctx context.Context, rpc *jsonrpc2.Conn, req *jsonrpc2.Request) {
	c := (*Conn)(h)
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	if req.Notif {
		if req.Method == "notifications/cancelled" {
			c.cancelIncoming(params)
		}
		c.recent.noted(&req.Method)
		c.notes.push(Notification{Method: req.Method, Params: params, Received: time.Now()})
		return
	}
	c.serveRequest(ctx, req.ID, req.Method, params)
}

// serveRequest answers one request of the peer, off the read loop, on a
// worker goroutine (work), and writes the answer itself.
func (c *Conn) serveRequest(ctx context.Context, id jsonrpc2.ID, method string, params json.RawMessage) {
	key := id.String()
	ctx, cancel := context.WithCancel(ctx)
	c.mu.Lock()
	c.incoming[key] = cancel
	c.mu.Unlock()
	c.handlers.Add(1)
	c.work(func() {
		defer c.handlers.Done()
		defer func() {
			c.mu.Lock()
			delete(c.incoming, key)
			c.mu.Unlock()
			cancel()
		}()
		result, err := c.handle(ctx, &Request{ID: key, Method: method, Params: params})
		if ctx.Err() != nil {
			return // cancelled by the peer or the connection closed: no reply
		}
		_ = c.reply(id, method, result, err) // a failed write means the transport is going away
	})
}

// reply writes the answer to a peer's request: the result encoded once and
// the envelope by hand (the library would encode it twice more).
func (c *Conn) reply(id jsonrpc2.ID, method string, result any, err error) error {
	var e *Error
	body := []byte(nil)
	if err == nil {
		if result == nil {
			result = struct{}{}
		}
		if raw, ok := result.(json.RawMessage); ok && json.Valid(raw) {
			body = raw
		} else if body, err = json.Marshal(result); err != nil {
			err = fmt.Errorf("encoding the result of %s: %w", method, err)
		}
	}
	if err != nil && !errors.As(err, &e) {
		e = &Error{Code: CodeInternalError, Message: err.Error()}
	}
	idb, merr := json.Marshal(id)
	if merr != nil {
		return merr
	}
	b := make([]byte, 0, len(body)+64)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, idb...)
	kind := KindResult
	if e != nil {
		eb, merr := json.Marshal(e.toWire())
		if merr != nil {
			return merr
		}
		kind = KindError
		b = append(b, `,"error":`...)
		b = append(b, eb...)
	} else {
		b = append(b, `,"result":`...)
		b = append(b, body...)
	}
	b = append(b, '}')
	return c.write(context.Background(), b, Frame{Kind: kind, Method: method, ID: id.String()})
}

// maxIdleWorkers bounds the goroutines kept waiting for the peer's next
// request.
const maxIdleWorkers = 8

// work runs f on a worker goroutine that then stays for the peer's next
// request: a handler that goes deep (the gateway forwarding a call
// through the whole runtime) grows its stack once, not on every request.
func (c *Conn) work(f func()) {
	select {
	case c.idle <- f:
	default:
		c.workers.Add(1)
		go c.worker(f)
	}
}

func (c *Conn) worker(f func()) {
	defer c.workers.Done()
	for {
		f()
		if c.idleWorkers.Add(1) > maxIdleWorkers {
			c.idleWorkers.Add(-1)
			return
		}
		select {
		case f = <-c.idle:
			c.idleWorkers.Add(-1)
		case <-c.closed:
			c.idleWorkers.Add(-1)
			return
		}
	}
}

func (c *Conn) handle(ctx context.Context, req *Request) (any, error) {
	if req.Method == "ping" {
		return struct{}{}, nil
	}
	if c.opts.Handler == nil {
		return nil, NewError(CodeMethodNotFound, "method not found: %s", req.Method)
	}
	return c.opts.Handler(ctx, req)
}

// cancelIncoming stops a peer request the peer has cancelled.
func (c *Conn) cancelIncoming(params json.RawMessage) {
	var p CancelledParams
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	var id jsonrpc2.ID
	if json.Unmarshal(p.RequestID, &id) != nil {
		return
	}
	c.mu.Lock()
	cancel := c.incoming[id.String()]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// CallOption adjusts one Call.
type CallOption func(*callOptions)

type callOptions struct {
	label          string
	noCancelNotify bool
	onID           func(uint64)
}

// WithLabel names the call in the outstanding table (e.g. the tool name).
func WithLabel(label string) CallOption { return func(o *callOptions) { o.label = label } }

// WithoutCancelNotification suppresses notifications/cancelled when the call
// is cancelled; MCP forbids cancelling initialize.
func WithoutCancelNotification() CallOption {
	return func(o *callOptions) { o.noCancelNotify = true }
}

// WithIDFunc reports the request id chosen for the call before it is sent.
func WithIDFunc(f func(id uint64)) CallOption { return func(o *callOptions) { o.onID = f } }

// FormatID renders a numeric request id as it appears on the wire.
func FormatID(id uint64) string { return strconv.FormatUint(id, 10) }
