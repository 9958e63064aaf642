package jsonrpctest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
)

// maxLine bounds one incoming message; longer lines are answered with a parse error
// and skipped, as a real server with a bounded reader would.
const maxLine = 64 << 20

// JSON-RPC error codes the fake servers answer with.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

var errLineTooLong = errors.New("line longer than 64 MiB")

// message is any incoming line: a request, a notification, or a response to a request
// the server never sent (ignored).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

var nullID = json.RawMessage("null")

// readLine returns one line without its terminator. A line over max is consumed and
// reported as errLineTooLong, so the caller can answer it and keep reading.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 { // +1: the newline is not content
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == nil:
			if tooLong {
				return nil, errLineTooLong
			}
			return bytes.TrimRight(line, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return bytes.TrimRight(line, "\r\n"), nil
		case tooLong:
			return nil, errLineTooLong
		default:
			return nil, err
		}
	}
}

// noiseLines are what Noise mode prints to stdout between messages: a banner, a log
// line and a truncated JSON object, the three kinds of stray output seen in the wild.
var noiseLines = []string{
	"starting up...",
	"2025-11-25T12:00:00Z INFO fake server: ready on stdio",
	`{bad`,
}

// writer is the single owner of stdout: every message is written whole under mu so
// lines from concurrent handlers never interleave.
type writer struct {
	mu    sync.Mutex
	w     *bufio.Writer
	noise bool // guarded by mu
	next  int  // next noise line; guarded by mu
}

func newWriter(w io.Writer, noise bool) *writer {
	return &writer{w: bufio.NewWriterSize(w, 64<<10), noise: noise, next: 1}
}

// send writes v as one line and flushes. Write errors are dropped: they mean the
// client closed our stdout, and a server has no one left to tell.
func (w *writer) send(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		return // our own message types always marshal
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lineLocked(data)
	_ = w.w.Flush()
}

// together writes lines back to back and flushes once: one write(2) when
// they fit the buffer (64 KiB), so the reader sees them arrive together.
func (w *writer) together(lines [][]byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range lines {
		w.lineLocked(l)
	}
	_ = w.w.Flush()
}

// raw writes a line that is not a JSON message, such as a noise banner.
func (w *writer) raw(line string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, _ = w.w.WriteString(line)
	_ = w.w.WriteByte('\n')
	_ = w.w.Flush()
}

func (w *writer) lineLocked(data []byte) {
	w.noiseLocked()
	_, _ = w.w.Write(data)
	_ = w.w.WriteByte('\n')
}

func (w *writer) noiseLocked() {
	if !w.noise {
		return
	}
	_, _ = w.w.WriteString(noiseLines[w.next%len(noiseLines)])
	_ = w.w.WriteByte('\n')
	w.next++
}

// floodMessages writes count notifications/message back to back through the buffer
// and flushes once at the end, which is what makes a flood fast enough to matter.
func (w *writer) floodMessages(logger string, count int) {
	prefix := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":` +
		strconv.Quote(logger) + `,"data":{"seq":`)
	suffix := []byte(`}}}`)
	buf := make([]byte, 0, 160)
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range count {
		buf = append(strconv.AppendInt(append(buf[:0], prefix...), int64(i), 10), suffix...)
		w.lineLocked(buf)
	}
	_ = w.w.Flush()
}

// oversized writes a valid tools/call result whose text is size bytes of 'x', in
// fixed chunks, so the fake never holds the padding in memory even once.
func (w *writer) oversized(id json.RawMessage, size int64) {
	chunk := bytes.Repeat([]byte{'x'}, 64<<10)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.noiseLocked()
	_, _ = w.w.WriteString(`{"jsonrpc":"2.0","id":`)
	_, _ = w.w.Write(id)
	_, _ = w.w.WriteString(`,"result":{"content":[{"type":"text","text":"`)
	for left := size; left > 0; {
		n := min(left, int64(len(chunk)))
		if _, err := w.w.Write(chunk[:n]); err != nil {
			return // the client hung up on the huge line, as a bounded one should
		}
		left -= n
	}
	_, _ = w.w.WriteString(`"}]}}` + "\n")
	_ = w.w.Flush()
}
