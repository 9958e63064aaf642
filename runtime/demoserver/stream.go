package demoserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// lineStream is the stdio framing of MCP as a jsonrpc2.ObjectStream: one JSON
// object per line in both directions. jsonrpc2's plain stream decodes a
// stream of concatenated values instead, so a malformed line would end the
// session; here a bad line is answered with a JSON-RPC error and skipped,
// which is what a client author wants from a demo peer.
type lineStream struct {
	r *bufio.Reader
	// in is kept to interrupt a blocked read on Close.
	in io.Reader

	// wmu serializes writes: the read loop, running tool calls and the
	// heartbeat all write, and each line must reach out whole.
	wmu  sync.Mutex
	out  io.Writer
	werr error
	// wfail is closed on the first write error so Run can end the session:
	// a client that stopped reading is gone.
	wfail chan struct{}

	// rmu guards rerr and interrupted: the read loop and Close write them,
	// Run reads them.
	rmu  sync.Mutex
	rerr error
	// rdone is closed when the read loop has seen its terminal error.
	rdone chan struct{}
	// interrupted reports whether Close managed to unblock a pending read.
	interrupted bool

	// closing is set by Close. Write errors after it are the session ending,
	// not a broken pipe, so they are not recorded. It is atomic because Close
	// must not wait for wmu: a blocked writer holds it.
	closing atomic.Bool
}

func newLineStream(in io.Reader, out io.Writer) *lineStream {
	return &lineStream{
		r:     bufio.NewReader(in),
		in:    in,
		out:   out,
		wfail: make(chan struct{}),
		rdone: make(chan struct{}),
	}
}

// ReadObject implements jsonrpc2.ObjectStream. Blank lines are skipped;
// lines that are not JSON, or not a JSON-RPC message, are answered with
// -32700 or -32600 (id null) and skipped.
func (s *lineStream) ReadObject(v any) error {
	for {
		line, err := s.r.ReadBytes('\n')
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			if err != nil {
				return s.endRead(err)
			}
			continue
		}
		// A final line without a newline before EOF is still a message.
		if uerr := json.Unmarshal(line, v); uerr != nil {
			s.rejectLine(line, uerr)
			if err != nil {
				return s.endRead(err)
			}
			continue
		}
		return nil
	}
}

func (s *lineStream) endRead(err error) error {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if s.rerr == nil {
		s.rerr = err
		close(s.rdone)
	}
	return err
}

// rejectLine answers an undecodable line. The id is null because it cannot
// be trusted, as JSON-RPC 2.0 prescribes for parse and invalid-request errors.
func (s *lineStream) rejectLine(line []byte, err error) {
	code, msg := int64(jsonrpc2.CodeInvalidRequest), "invalid request: "+err.Error()
	if !json.Valid(line) {
		code, msg = jsonrpc2.CodeParseError, "parse error: the line is not valid JSON; send one JSON-RPC message per line"
	}
	_ = s.WriteObject(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      *int            `json:"id"`
		Error   *jsonrpc2.Error `json:"error"`
	}{"2.0", nil, &jsonrpc2.Error{Code: code, Message: msg}})
}

// WriteObject implements jsonrpc2.ObjectStream: one object, one line, one
// Write call, under the writer lock.
func (s *lineStream) WriteObject(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.werr != nil {
		return s.werr
	}
	if _, err := s.out.Write(b); err != nil {
		if !s.closing.Load() {
			s.werr = err
			close(s.wfail)
		}
		return err
	}
	return nil
}

// Close implements jsonrpc2.ObjectStream. It does not close in or out (the
// caller owns them) but, where they support deadlines, unblocks a pending
// read and any write stuck on a client that stopped reading, so that
// shutdown cannot hang on either.
func (s *lineStream) Close() error {
	s.closing.Store(true)
	past := time.Unix(1, 0)
	if d, ok := s.out.(interface{ SetWriteDeadline(time.Time) error }); ok {
		_ = d.SetWriteDeadline(past)
	}
	if d, ok := s.in.(interface{ SetReadDeadline(time.Time) error }); ok && d.SetReadDeadline(past) == nil {
		s.rmu.Lock()
		s.interrupted = true
		s.rmu.Unlock()
	}
	return nil
}

func (s *lineStream) writeFailed() <-chan struct{} { return s.wfail }

func (s *lineStream) writeErr() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.werr
}

func (s *lineStream) readErr() error {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	return s.rerr
}

// waitReadEnd waits for the read loop to end when that is sure to happen
// soon: it already ended, or Close interrupted it. A reader that cannot be
// interrupted is left to finish on its own rather than hang Run.
func (s *lineStream) waitReadEnd() {
	s.rmu.Lock()
	wait := s.interrupted || s.rerr != nil
	s.rmu.Unlock()
	if wait {
		<-s.rdone
	}
}
