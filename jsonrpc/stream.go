package jsonrpc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Stream carries whole JSON-RPC messages (frames) in both directions. The
// stdio stream frames by newline; the HTTP streams frame by request and SSE
// event. Read is called from one goroutine only (the read loop); Write may be
// called concurrently. Close must unblock a pending Read.
type Stream interface {
	// Read returns the next frame. The slice is valid until the next Read.
	Read() ([]byte, error)
	// Write sends one frame (a complete JSON-RPC message, no trailing newline).
	Write(frame []byte) error
	Close() error
}

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
	r      *bufio.Reader
	max    int
	onEOF  func() error
	line   []byte // reused accumulation buffer for lines longer than the bufio buffer
	wmu    sync.Mutex
	w      io.Writer
	wbuf   []byte // frame plus newline, so each frame is one write; guarded by wmu
	closer io.Closer
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
	return &stdioStream{
		r:      bufio.NewReaderSize(r, readBufferSize),
		max:    opts.MaxMessageSize,
		onEOF:  opts.OnEOF,
		w:      w,
		closer: closer,
	}
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

func (s *stdioStream) Write(frame []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.wbuf = append(append(s.wbuf[:0], frame...), '\n')
	_, err := s.w.Write(s.wbuf)
	if cap(s.wbuf) > keepWriteBuf {
		s.wbuf = nil
	}
	return err
}

func (s *stdioStream) Close() error {
	if s.closer == nil {
		return nil
	}
	return s.closer.Close()
}
