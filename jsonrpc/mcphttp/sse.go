package mcphttp

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"time"

	"mcpdeck/jsonrpc"
)

// sseEvent is one dispatched server-sent event.
type sseEvent struct {
	name string // the event type; "" means "message"
	data []byte // data lines joined with "\n"; may be empty (a priming event)
}

// sseReader parses a text/event-stream body (the WHATWG algorithm, less
// the parts MCP does not use). It bounds each event by max bytes so a
// misbehaving server cannot grow memory without limit, and it keeps the
// last event id and the retry delay, which outlive single events and which
// resumption needs.
type sseReader struct {
	r   *bufio.Reader
	max int

	lastID   string        // the last id field seen; sent back as Last-Event-ID
	retry    time.Duration // the last retry field seen; 0 if none
	progress bool          // set when anything was parsed; the caller resets it

	line    []byte   // accumulation buffer for long lines
	pending [][]byte // lines split off a line that held bare CRs
}

func newSSEReader(r io.Reader, max int) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 8<<10), max: max}
}

// next returns the next event. io.EOF means the stream ended; an event left
// unterminated at EOF is discarded, as the specification says.
func (p *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	var data bytes.Buffer
	dataSeen, any := false, false
	for {
		line, err := p.readLine()
		if err != nil {
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if !any {
				continue
			}
			if dataSeen {
				ev.data = data.Bytes()
			}
			return ev, nil
		}
		if line[0] == ':' {
			continue // a comment, used as keep-alive
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		any = true
		p.progress = true
		switch string(field) {
		case "event":
			ev.name = string(value)
		case "data":
			if dataSeen {
				data.WriteByte('\n')
			}
			dataSeen = true
			if data.Len()+len(value) > p.max {
				return sseEvent{}, tooLarge(p.max)
			}
			data.Write(value)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				p.lastID = string(value)
			}
		case "retry":
			if ms, err := strconv.ParseUint(string(value), 10, 63); err == nil {
				p.retry = clampRetry(ms)
			}
		}
	}
}

// The bounds of a server's retry: delay. A server may not make the client
// hammer it (retry: 0) nor park a dropped stream for a day.
const (
	minRetry = 100 * time.Millisecond
	maxRetry = 60 * time.Second
)

// clampRetry turns a retry: value in milliseconds into a delay within
// [minRetry, maxRetry].
func clampRetry(ms uint64) time.Duration {
	if ms >= uint64(maxRetry/time.Millisecond) {
		return maxRetry
	}
	return max(time.Duration(ms)*time.Millisecond, minRetry)
}

func tooLarge(max int) error {
	return fmt.Errorf("%w: a message exceeded the %d-byte limit (raise maxMessageSize if the server really sends that much)", jsonrpc.ErrMessageTooLarge, max)
}

// readLine returns one line without its terminator. Lines end in LF, CRLF
// or a bare CR.
func (p *sseReader) readLine() ([]byte, error) {
	if len(p.pending) > 0 {
		l := p.pending[0]
		p.pending = p.pending[1:]
		return l, nil
	}
	frag, err := p.r.ReadSlice('\n')
	line := frag
	if err == bufio.ErrBufferFull {
		p.line = append(p.line[:0], frag...)
		for err == bufio.ErrBufferFull {
			frag, err = p.r.ReadSlice('\n')
			if len(p.line)+len(frag) > p.max+64 { // slack for the field name
				p.line = nil
				return nil, tooLarge(p.max)
			}
			p.line = append(p.line, frag...)
		}
		line = p.line
	}
	if err != nil {
		if err == io.EOF {
			// An unterminated last line belongs to an unterminated event,
			// which is discarded anyway.
			return nil, io.EOF
		}
		return nil, err
	}
	line = bytes.TrimSuffix(line[:len(line)-1], []byte{'\r'})
	if bytes.IndexByte(line, '\r') >= 0 {
		parts := bytes.Split(line, []byte{'\r'})
		p.pending = append(p.pending, parts[1:]...)
		line = parts[0]
	}
	return line, nil
}
