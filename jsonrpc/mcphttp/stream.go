package mcphttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"mcpdeck/jsonrpc"
)

// Transport names, as Stream.Transport reports them.
const (
	TransportStreamable = "streamable-http"
	TransportSSE        = "sse"
)

// Stream is a jsonrpc.Stream over Streamable HTTP or legacy HTTP+SSE. It
// is safe for concurrent use as jsonrpc.Stream requires: one reader, any
// number of writers.
type Stream struct {
	opts   Options
	url    *url.URL
	client *http.Client
	own    *http.Transport // the transport we created, whose idle connections Close drops
	redact redactor
	inbox  *inbox

	// ctx is the parent of every HTTP exchange; Close cancels it, which is
	// how every goroutine learns to stop.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // every goroutine the stream starts

	// mu guards the session state below: Write (the connection's sender),
	// the request goroutines and Close all read and change it.
	mu          sync.Mutex
	closed      bool
	sessionID   string
	version     string // negotiated protocol version, for MCP-Protocol-Version
	initialized bool   // an initialize response arrived: network errors fail one request from now on
	initKey     string // id of the initialize request awaiting its response
	initDone    chan struct{}
	inflight    map[string]context.CancelFunc // request id → abort its exchange
	endpoint    *url.URL                      // legacy mode: where to POST; nil in streamable mode
	standalone  bool                          // the standalone GET stream was started

	// initializedAcked is closed once the server acknowledged
	// notifications/initialized; a standalone stream refused before that
	// is retried then.
	initializedAcked chan struct{}
	ackOnce          sync.Once

	closeOnce sync.Once
}

var _ jsonrpc.Stream = (*Stream)(nil)

// Dial prepares a stream to the server at opts.URL. For Streamable HTTP it
// does no I/O: the first exchange is the POST of initialize, whose failure
// (connection refused, 401) ends the stream with an error that says what to
// do. For the legacy transport it opens the SSE stream and waits, bounded
// by ctx, for the endpoint event.
func Dial(ctx context.Context, opts Options) (*Stream, error) {
	opts, u, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Stream{
		opts:     opts,
		url:      u,
		client:   opts.Client,
		redact:   newRedactor(opts.Headers),
		inbox:    newInbox(),
		inflight: map[string]context.CancelFunc{},

		initializedAcked: make(chan struct{}),
		// The modern era has no initialize: every request stands alone
		// from the first, so a failure fails that request only.
		initialized: opts.Modern != nil,
	}
	if s.client == nil {
		s.own = http.DefaultTransport.(*http.Transport).Clone()
		s.client = &http.Client{Transport: s.own}
	}
	// A copy, so the caller's client keeps its own policy.
	client := *s.client
	client.CheckRedirect = CheckRedirect
	s.client = &client
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if opts.Legacy {
		if err := s.connectLegacy(ctx); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// Read returns the next frame from any of the server's streams. After a
// fatal failure it returns the error, which wraps one of the sentinels.
func (s *Stream) Read() ([]byte, error) { return s.inbox.pop() }

// Write sends one message. A request returns as soon as its exchange has
// started: the answer arrives through Read, and the exchange ends with the
// stream or the request's cancellation, not with ctx. A notification or a
// response returns once the server acknowledged it, within ctx.
func (s *Stream) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := s.usable(); err != nil {
		return err
	}
	m := messageOf(msg)
	frame := msg.Frame // the stream's to keep: request goroutines use it beyond this call
	if s.opts.Modern != nil {
		return s.writeModern(ctx, m, frame)
	}
	if m.isRequest() {
		if m.method == "initialize" {
			return s.startInitialize(m, frame)
		}
		s.waitInit(ctx)
		if !s.spawn(func() { s.runRequest(m, frame) }) {
			return ErrClosed
		}
		return nil
	}
	s.waitInit(ctx)
	if m.method == "notifications/initialized" {
		s.openStandalone()
	}
	if err := s.postAck(ctx, m, frame); err != nil {
		return err
	}
	switch m.method {
	case "notifications/cancelled":
		// Nobody waits for the cancelled request's answer any more; drop
		// its exchange rather than read a stream nobody wants.
		s.abort(cancelledID(frame))
	case "notifications/initialized":
		s.ackOnce.Do(func() { close(s.initializedAcked) })
	}
	return nil
}

// Close ends the stream: it aborts every exchange, waits for every
// goroutine, ends the session with DELETE (a 405 is fine) and makes Read
// return. It is safe to call more than once.
func (s *Stream) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		sid, legacy := s.sessionID, s.endpoint != nil
		s.mu.Unlock()
		close(s.inbox.closed)
		s.cancel()
		s.wg.Wait()
		if sid != "" && !legacy && !sessionUnusable(s.inbox.failure()) {
			s.deleteSession()
		}
		if s.own != nil {
			s.own.CloseIdleConnections()
		}
	})
	return nil
}

// sessionUnusable reports whether a DELETE is pointless after err: the
// session is gone, or the server cannot be reached or refuses us.
func sessionUnusable(err error) bool {
	for _, target := range []error{ErrSessionExpired, ErrUnreachable, ErrUnauthorized, ErrTLS, ErrRedirected} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// SessionID returns the MCP-Session-Id the server assigned, or "".
func (s *Stream) SessionID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessionID
}

// ProtocolVersion returns the protocol version negotiated by initialize,
// or "" before its response.
func (s *Stream) ProtocolVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// Transport reports TransportStreamable or TransportSSE; after an automatic
// fallback it reports TransportSSE.
func (s *Stream) Transport() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.endpoint != nil {
		return TransportSSE
	}
	return TransportStreamable
}

func (s *Stream) usable() error {
	if s.ctx.Err() != nil {
		return ErrClosed
	}
	return s.inbox.failure()
}

// spawn runs f on a goroutine Close waits for; it reports false once the
// stream is closed (Add after Wait started would be a race).
func (s *Stream) spawn(f func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f()
	}()
	return true
}

// startInitialize sends initialize. Until its exchange ends, other writes
// wait (waitInit): they need the session id it brings.
func (s *Stream) startInitialize(m message, frame []byte) error {
	done := make(chan struct{})
	s.mu.Lock()
	s.initKey, s.initDone = m.key(), done
	s.mu.Unlock()
	if !s.spawn(func() { defer close(done); s.runRequest(m, frame) }) {
		close(done)
		return ErrClosed
	}
	return nil
}

// waitInit blocks while an initialize exchange is in flight, within ctx.
// Before the initialize result a client may only send ping, so this
// rarely waits.
func (s *Stream) waitInit(ctx context.Context) {
	s.mu.Lock()
	done := s.initDone
	s.mu.Unlock()
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-s.ctx.Done():
	case <-ctx.Done():
	}
}

// deliver queues a frame for Read. The initialize response also fixes the
// protocol version sent as MCP-Protocol-Version from now on; it is
// recorded before the frame is queued, so the caller's next request, which
// can only follow the response, carries it.
func (s *Stream) deliver(frame []byte) bool {
	s.mu.Lock()
	if s.initKey != "" {
		if m := classify(frame); m.method == "" && m.key() == s.initKey {
			s.initKey = ""
			s.initialized = true
			s.version = negotiatedVersion(frame)
		}
	}
	s.mu.Unlock()
	return s.inbox.push(frame)
}

// fail ends the stream with err; Read returns it once queued frames are
// taken, and jsonrpc.Conn rejects every outstanding request with it.
func (s *Stream) fail(err error) { s.inbox.fail(err) }

// requestFailed fails one request with err, or the whole stream when err
// means no request can succeed: credentials rejected, session gone, or no
// server reachable before a session existed.
func (s *Stream) requestFailed(m message, err error) {
	s.mu.Lock()
	initialized := s.initialized
	s.mu.Unlock()
	if errors.Is(err, ErrUnauthorized) || errors.Is(err, ErrSessionExpired) || errors.Is(err, ErrRedirected) ||
		(!initialized && (errors.Is(err, ErrUnreachable) || errors.Is(err, ErrTLS))) {
		s.fail(err)
		return
	}
	s.deliver(errorFrame(m.id, err))
}

// tracked is the ctx of request m's exchange: Close ends it, and so does
// abort with m's id (a notifications/cancelled for it). done forgets it.
func (s *Stream) tracked(m message) (ctx context.Context, done func()) {
	ctx, cancel := context.WithCancel(s.ctx)
	key := m.key()
	s.mu.Lock()
	s.inflight[key] = cancel
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		delete(s.inflight, key)
		s.mu.Unlock()
		cancel()
	}
}

// takeAnswer reads r, the SSE stream body carries, for the answer to m and
// hands on what precedes it. over is true when nothing more is to be done
// with the exchange: the answer came, nobody waits for it any more, or it
// cannot come (too large: fail says so). Otherwise the stream ended before
// the answer, for the reason err gives.
func (s *Stream) takeAnswer(ctx context.Context, m message, r *sseReader, body io.ReadCloser, fail func(error)) (over bool, err error) {
	answered, err := s.pump(r, m.key())
	if answered {
		s.finish(ctx, r, body)
		return true, nil
	}
	body.Close()
	if ctx.Err() != nil || errors.Is(err, ErrClosed) {
		return true, err
	}
	if errors.Is(err, jsonrpc.ErrMessageTooLarge) {
		fail(fmt.Errorf("reading the answer to %s from %s: %w", m.method, safeURL(s.url), err))
		return true, err
	}
	return false, err
}

func (s *Stream) abort(key string) {
	s.mu.Lock()
	cancel := s.inflight[key]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// newRequest builds an HTTP request with the configured headers and, in
// streamable mode, the session headers.
func (s *Stream) newRequest(ctx context.Context, method string, u *url.URL, body []byte) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	for k, v := range s.opts.Headers {
		req.Header.Set(k, v)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	s.mu.Lock()
	sid, version, legacy := s.sessionID, s.version, s.endpoint != nil
	s.mu.Unlock()
	if !legacy {
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		if version != "" {
			req.Header.Set("Mcp-Protocol-Version", version)
		}
	}
	return req, nil
}

// errorBody reads a bounded prefix of an error response's body, for the
// excerpt in the error message, and closes it.
func errorBody(resp *http.Response) []byte {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	return b
}

// drain discards a small remainder of a body so the connection can be
// reused, then closes it.
func drain(body io.ReadCloser) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 64<<10))
	body.Close()
}

// sleep waits d or until ctx ends; it reports whether the full wait passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// backoff is the delay before reconnection attempt n (1-based): the
// server's retry: value when it gave one, doubled per consecutive failure,
// capped.
func backoff(retry time.Duration, n int) time.Duration {
	const base, limit = 250 * time.Millisecond, 10 * time.Second
	d := base
	if retry > 0 {
		d = retry
	}
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	return min(d, max(limit, retry))
}
