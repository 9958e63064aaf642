package jsonrpc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Stream carries whole JSON-RPC messages (frames) in both directions. The
// stdio stream frames by newline; the HTTP streams frame by request and SSE
// event. Read is called from one goroutine only (the read loop); Write may be
// called concurrently. Close must unblock a pending Read and end a pending
// Write.
type Stream interface {
	// Read returns the next frame. The slice is valid until the next Read.
	Read() ([]byte, error)
	// Write sends one message. It returns once the message is written, or
	// with ctx's cause once ctx ends first: a write blocked on a peer that
	// stopped reading ends then, and the stream stays usable (what was
	// begun of the frame goes out ahead of the next one).
	Write(ctx context.Context, msg Message) error
	Close() error
}

// Message is one JSON-RPC message on its way to the peer: what it is, and
// its frame as the connection encoded it, once. A stream routes it by
// these fields (an HTTP stream POSTs a request on an exchange of its own,
// the gateway answers the POST a response belongs to) without reading the
// frame again.
type Message struct {
	Kind FrameKind // KindRequest, KindNotification, KindResult or KindError
	// ID is the id as Request.ID spells it (a number as written, a
	// string quoted); "" for a notification.
	ID string
	// Method is a request's or a notification's method; for a response,
	// the method of the request it answers, when known.
	Method string
	// Frame is the whole message: one JSON object, no trailing newline.
	// The stream may keep it: the connection never reuses a frame.
	Frame []byte
}

// IsRequest reports a request: a message that expects a response.
func (m Message) IsRequest() bool { return m.Kind == KindRequest }

// IsResponse reports a response: a result or an error.
func (m Message) IsResponse() bool { return m.Kind == KindResult || m.Kind == KindError }

// DefaultMaxMessageSize bounds one incoming message. A larger one fails the
// stream with ErrMessageTooLarge rather than growing memory without limit.
const DefaultMaxMessageSize = 32 << 20

// StdioOptions configure NewStdioStream.
type StdioOptions struct {
	// MaxMessageSize bounds one line; 0 means DefaultMaxMessageSize.
	MaxMessageSize int
	// OnEOF, if set, is called when the reader reaches EOF; the error it
	// returns becomes the read error (and so the connection's close cause).
	// The process runner uses it to report the server's exit status instead
	// of a bare EOF.
	OnEOF func() error
}

// stdioStream frames messages as newline-delimited JSON, as MCP's stdio
// transport requires.
type stdioStream struct {
	r     *bufio.Reader
	max   int
	onEOF func() error
	line  []byte // reused accumulation buffer for lines longer than the bufio buffer

	// turn is the turn to write: a channel, so a writer waiting for it
	// can stop when its ctx ends. The fields below are the holder's.
	turn chan struct{}
	w    *ctxWriter
	wbuf []byte // frame plus newline, so each frame is one write
	// rest is what a write interrupted by its ctx left unwritten of its
	// frame: it goes out before the next frame, so the peer never sees a
	// frame cut short.
	rest      []byte
	closer    io.Closer
	closed    chan struct{} // closed by Close: ends a wait for the turn
	closeOnce sync.Once
}

// Buffer sizes of a stdio stream. They are small because an idle
// connection keeps them (two 64 KiB buffers were a third of an idle
// server's memory); a longer line goes through the accumulation buffer,
// and a written frame is one write(2) whatever its size.
const (
	readBufferSize = 4 << 10
	keepWriteBuf   = 64 << 10 // a larger write buffer is let go after use
)

// NewStdioStream frames messages over r and w, one per line. closer is
// closed by Close and must unblock a pending read of r (closing the pipe
// files does).
func NewStdioStream(r io.Reader, w io.Writer, closer io.Closer, opts StdioOptions) Stream {
	if opts.MaxMessageSize <= 0 {
		opts.MaxMessageSize = DefaultMaxMessageSize
	}
	s := &stdioStream{
		r:      bufio.NewReaderSize(r, readBufferSize),
		max:    opts.MaxMessageSize,
		onEOF:  opts.OnEOF,
		turn:   make(chan struct{}, 1),
		w:      newCtxWriter(w),
		closer: closer,
		closed: make(chan struct{}),
	}
	return s
}

// Read returns the next non-empty line without its line ending.
func (s *stdioStream) Read() ([]byte, error) {
	for {
		line, err := s.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && s.onEOF != nil {
				return nil, s.onEOF()
			}
			return nil, err
		}
		for len(line) > 0 && (line[len(line)-1] == '\n' || line[len(line)-1] == '\r') {
			line = line[:len(line)-1]
		}
		if len(line) > 0 {
			return line, nil
		}
	}
}

func (s *stdioStream) readLine() ([]byte, error) {
	frag, err := s.r.ReadSlice('\n')
	if err == nil || (err == io.EOF && len(frag) > 0) {
		return frag, nil
	}
	if err != bufio.ErrBufferFull {
		return nil, err
	}
	// A long line: accumulate, bounded by max. Memory stays bounded because
	// we stop at max and fail the stream instead of reading on.
	s.line = append(s.line[:0], frag...)
	for {
		frag, err = s.r.ReadSlice('\n')
		if len(s.line)+len(frag) > s.max+2 { // +2: the line ending does not count
			s.line = nil
			return nil, fmt.Errorf("%w: a message exceeded the %d-byte limit (raise maxMessageSize if the server really sends that much)", ErrMessageTooLarge, s.max)
		}
		s.line = append(s.line, frag...)
		switch {
		case err == nil:
			line := s.line
			if cap(s.line) > 1<<20 {
				s.line = nil // don't pin a large buffer between big messages
			}
			return line, nil
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(s.line) > 0:
			return s.line, nil
		default:
			return nil, err
		}
	}
}

// Write writes the message's frame and a newline in one write. When ctx
// ends first, the write ends too where the writer allows it (a pipe or
// any other file Go polls: see ctxWriter); what it left unwritten of the
// frame is written first by the next Write.
func (s *stdioStream) Write(ctx context.Context, msg Message) error {
	select {
	case s.turn <- struct{}{}:
	case <-s.closed:
		return ErrClosedByClient
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	defer func() { <-s.turn }()
	if len(s.rest) > 0 {
		n, err := s.w.write(ctx, s.rest)
		s.rest = s.rest[n:]
		if err != nil {
			return err
		}
		s.rest = nil
	}
	s.wbuf = append(append(s.wbuf[:0], msg.Frame...), '\n')
	n, err := s.w.write(ctx, s.wbuf)
	if err != nil && n > 0 && ctx.Err() != nil {
		s.rest = append([]byte(nil), s.wbuf[n:]...)
	}
	if cap(s.wbuf) > keepWriteBuf {
		s.wbuf = nil
	}
	return err
}

func (s *stdioStream) Close() error {
	s.closeOnce.Do(func() { close(s.closed) })
	if s.closer == nil {
		return nil
	}
	return s.closer.Close()
}
