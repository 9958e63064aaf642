package demoserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lineConn is the demo server's stdio transport for go-sdk's mcp.Server: one
// JSON-RPC message per line in both directions. go-sdk's own StdioTransport
// is not used because the demo server promises what it does not:
//
//   - a line that is not JSON, or not a JSON-RPC message, is answered with
//     -32700 or -32600 (id null) and skipped, where go-sdk ends the session;
//   - a request the client cancelled is never answered, where go-sdk
//     answers it with an error;
//   - at stdin EOF, every request read before it is answered except tool
//     calls, which are cancelled unanswered (go-sdk cancels them all);
//   - ending the session unblocks a read and a write stuck on a client that
//     stopped reading, through deadlines on in and out where they have them.
//
// Everything else — decoding, dispatch, sessions, cancellation of handler
// contexts — is go-sdk's.
type lineConn struct {
	// in and out are the caller's; lineConn never closes them.
	in  io.Reader
	out io.Writer

	// incoming carries decoded messages from the reading goroutine to Read.
	incoming chan sdkjsonrpc.Message
	// closed is closed by Close: Read returns, writes are dropped.
	closed    chan struct{}
	closeOnce sync.Once

	// wmu serializes writes: each line must reach out whole.
	wmu  sync.Mutex
	werr error // the first write error, unless the session was closing
	// wfail is closed on the first write error: a client that stopped
	// reading is gone, and Run ends the session.
	wfail chan struct{}

	// mu guards the fields below, which the reading goroutine and writers
	// share. No I/O happens while it is held.
	mu sync.Mutex
	// pending are the calls read and not yet answered, by id, with their
	// method: at EOF the reader waits for those that are not tool calls.
	pending map[sdkjsonrpc.ID]string
	// cancelled are pending calls the client cancelled: their answers are
	// dropped.
	cancelled map[sdkjsonrpc.ID]bool
	// answered is signalled (without blocking) whenever a pending call is
	// answered, for the reader waiting at EOF.
	answered chan struct{}
	rerr     error // the reader's terminal error (io.EOF at a clean end)
	// interrupted: Close managed to set a read deadline, so a blocked read
	// returns soon.
	interrupted bool
	// rdone is closed when the reader has ended and told Read.
	rdone chan struct{}
}

var _ mcp.Transport = (*lineConn)(nil)

// errClosing is what writes return once the session is ending.
var errClosing = errors.New("the demo server session is closing")

// maxLine bounds one message, as go-sdk's stdio transport does.
const maxLine = mcp.DefaultMaxLineLength

func newLineConn(in io.Reader, out io.Writer) *lineConn {
	c := &lineConn{
		in:        in,
		out:       out,
		incoming:  make(chan sdkjsonrpc.Message),
		closed:    make(chan struct{}),
		wfail:     make(chan struct{}),
		pending:   map[sdkjsonrpc.ID]string{},
		cancelled: map[sdkjsonrpc.ID]bool{},
		answered:  make(chan struct{}, 1),
		rdone:     make(chan struct{}),
	}
	go c.readLoop()
	return c
}

// Connect implements mcp.Transport: the connection is the transport.
func (c *lineConn) Connect(context.Context) (mcp.Connection, error) { return c, nil }

// SessionID implements mcp.Connection; stdio has no session id.
func (c *lineConn) SessionID() string { return "" }

// Read implements mcp.Connection.
func (c *lineConn) Read(ctx context.Context) (sdkjsonrpc.Message, error) {
	select {
	case m, ok := <-c.incoming:
		if !ok {
			return nil, c.readErr()
		}
		return m, nil
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// readLoop reads lines until EOF or an error, answers the malformed ones
// itself and hands the rest to Read. It ends by closing incoming, after
// the wait at EOF described on lineConn.
func (c *lineConn) readLoop() {
	defer close(c.rdone)
	r := bufio.NewReaderSize(c.in, 4096)
	var err error
	for err == nil {
		var line []byte
		line, err = readLine(r)
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		// A final line without a newline before EOF is still a message.
		m, ok := c.accept(line)
		if !ok {
			continue
		}
		select {
		case c.incoming <- m:
		case <-c.closed:
			err = io.EOF
		}
	}
	if errors.Is(err, io.EOF) {
		c.waitAnswered()
	}
	c.mu.Lock()
	c.rerr = err
	c.mu.Unlock()
	close(c.incoming)
}

// readLine returns the next line, without its newline, or the error that
// ended the input. A line longer than maxLine is an error: the session
// cannot find the next message boundary it can trust.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, errLineTooLong
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && len(line) > 0 && errors.Is(err, io.EOF) {
			// The last line had no newline: deliver it, EOF comes next.
			return line, nil
		}
		return line, err
	}
}

var errLineTooLong = errors.New("a message is longer than the demo server reads (one JSON-RPC message per line)")

// accept decodes one line. A line that is not a JSON-RPC message is
// answered here and skipped (ok false). A call is recorded as pending, and
// a cancellation marks its call, before go-sdk sees either.
func (c *lineConn) accept(line []byte) (sdkjsonrpc.Message, bool) {
	m, err := decodeLine(line)
	if err != nil {
		c.reject(line, err)
		return nil, false
	}
	req, ok := m.(*sdkjsonrpc.Request)
	if !ok {
		return m, true // a response: go-sdk drops it, the demo server asks nothing
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if req.IsCall() {
		if _, dup := c.pending[req.ID]; !dup {
			c.pending[req.ID] = req.Method
		}
	} else if req.Method == "notifications/cancelled" {
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := sdkjsonrpc.MakeID(p.RequestID); err == nil {
				if _, running := c.pending[id]; running {
					c.cancelled[id] = true
				}
			}
		}
	}
	return m, true
}

// wireMessage is any JSON-RPC message as it arrives.
type wireMessage struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      any               `json:"id"`
	Method  *string           `json:"method"`
	Params  json.RawMessage   `json:"params"`
	Result  json.RawMessage   `json:"result"`
	Error   *sdkjsonrpc.Error `json:"error"`
}

// decodeLine is go-sdk's jsonrpc.DecodeMessage, stricter about responses
// (one needs a result or an error), and with encoding/json: go-sdk's
// decoder allocates about 64 KB per message, which made it half of the
// demo server's cost per call.
func decodeLine(line []byte) (sdkjsonrpc.Message, error) {
	var w wireMessage
	if err := json.Unmarshal(line, &w); err != nil {
		return nil, err
	}
	if w.JSONRPC != "2.0" {
		return nil, fmt.Errorf(`"jsonrpc" is %q; it must be "2.0"`, w.JSONRPC)
	}
	id, err := sdkjsonrpc.MakeID(w.ID)
	if err != nil {
		return nil, fmt.Errorf(`"id" must be a string or a number: %w`, err)
	}
	if w.Method != nil {
		return &sdkjsonrpc.Request{ID: id, Method: *w.Method, Params: w.Params}, nil
	}
	if !id.IsValid() || (w.Result == nil && w.Error == nil) {
		return nil, errors.New("a message needs a method (a request or notification), or an id with a result or an error (a response)")
	}
	resp := &sdkjsonrpc.Response{ID: id, Result: w.Result}
	if w.Error != nil {
		resp.Error = w.Error
	}
	return resp, nil
}

// reject answers an undecodable line. The id is null because it cannot be
// trusted, as JSON-RPC 2.0 prescribes for parse and invalid-request errors.
func (c *lineConn) reject(line []byte, err error) {
	e := &sdkjsonrpc.Error{Code: sdkjsonrpc.CodeInvalidRequest, Message: "invalid request: " + err.Error()}
	if !json.Valid(line) {
		e = &sdkjsonrpc.Error{Code: sdkjsonrpc.CodeParseError, Message: "parse error: the line is not valid JSON; send one JSON-RPC message per line"}
	}
	b, merr := json.Marshal(struct {
		JSONRPC string            `json:"jsonrpc"`
		ID      *int              `json:"id"`
		Error   *sdkjsonrpc.Error `json:"error"`
	}{"2.0", nil, e})
	if merr == nil {
		_ = c.writeLine(b)
	}
}

// waitAnswered returns once every pending call but tool calls is
// answered, or the session is closing.
func (c *lineConn) waitAnswered() {
	for {
		c.mu.Lock()
		waiting := false
		for _, method := range c.pending {
			if method != "tools/call" {
				waiting = true
				break
			}
		}
		c.mu.Unlock()
		if !waiting {
			return
		}
		select {
		case <-c.answered:
		case <-c.closed:
			return
		}
	}
}

// Write implements mcp.Connection: one message, one line, one Write call.
// The answer to a call the client cancelled is dropped. A call counts as
// answered once its line is written, not before: the reader waiting at EOF
// must not let the session end while an answer is still on its way.
func (c *lineConn) Write(ctx context.Context, m sdkjsonrpc.Message) error {
	resp, isResp := m.(*sdkjsonrpc.Response)
	if isResp {
		defer c.answer(resp.ID)
		if c.isCancelled(resp.ID) {
			return nil
		}
	}
	b, err := sdkjsonrpc.EncodeMessage(m)
	if err != nil {
		return err
	}
	return c.writeLine(b)
}

// isCancelled reports whether the client cancelled the call id.
func (c *lineConn) isCancelled(id sdkjsonrpc.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cancelled[id]
}

// answer removes an answered call from pending and tells the reader
// waiting at EOF.
func (c *lineConn) answer(id sdkjsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[id]; !ok {
		return
	}
	delete(c.pending, id)
	delete(c.cancelled, id)
	select {
	case c.answered <- struct{}{}:
	default:
	}
}

func (c *lineConn) writeLine(b []byte) error {
	b = append(b, '\n')
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return c.werr
	}
	select {
	case <-c.closed:
		return errClosing
	default:
	}
	if _, err := c.out.Write(b); err != nil {
		select {
		case <-c.closed:
			// The session is ending (a deadline set by Close): not a
			// broken pipe.
			return errClosing
		default:
		}
		c.werr = err
		close(c.wfail)
		return err
	}
	return nil
}

// Close implements mcp.Connection. It does not close in or out (the caller
// owns them) but, where they support deadlines, unblocks a pending read and
// a write stuck on a client that stopped reading, so that shutdown cannot
// hang on either.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		past := time.Unix(1, 0)
		if d, ok := c.out.(interface{ SetWriteDeadline(time.Time) error }); ok {
			_ = d.SetWriteDeadline(past)
		}
		if d, ok := c.in.(interface{ SetReadDeadline(time.Time) error }); ok && d.SetReadDeadline(past) == nil {
			c.mu.Lock()
			c.interrupted = true
			c.mu.Unlock()
		}
	})
	return nil
}

// readEnded is closed when the reader has ended: EOF (after the wait for
// answers), a read error, or Close.
func (c *lineConn) readEnded() <-chan struct{} { return c.rdone }

func (c *lineConn) writeFailed() <-chan struct{} { return c.wfail }

func (c *lineConn) writeErr() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.werr
}

func (c *lineConn) readErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rerr
}

// waitReadEnd waits for the reading goroutine when that is sure to end
// soon: it already ended, or Close interrupted its read. A reader that
// cannot be interrupted is left to finish on its own rather than hang Run.
func (c *lineConn) waitReadEnd() {
	c.mu.Lock()
	wait := c.interrupted
	c.mu.Unlock()
	if wait {
		<-c.rdone
	}
}
