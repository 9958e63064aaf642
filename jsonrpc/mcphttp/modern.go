package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"mcpdeck/jsonrpc"
)

// ModernOptions select the Streamable HTTP of protocol 2026-07-28
// (Options.Modern): stateless, every request its own POST with the request
// metadata headers, no session, no GET stream, no DELETE, no resumption.
type ModernOptions struct {
	// ParamHeaders returns the x-mcp-header annotations of a tool (from
	// ToolHeaders over its listed inputSchema), so a tools/call carries
	// Mcp-Param-* headers for them. Nil, or nil for a tool, sends none. It
	// is called on the caller's goroutine for every tools/call.
	ParamHeaders func(tool string) []ParamHeader
}

// ErrRequestLost: a modern request's response stream broke before its
// response. The 2026-07-28 revision cannot resume a stream: the request is
// lost (the server may or may not have run it) and may be re-issued with
// a new id.
var ErrRequestLost = errors.New("request lost")

// lostMarker is the data of the error response the stream synthesizes for
// a lost request, so IsLost can tell it from a server's -32000.
const lostMarker = `{"mcpdeck":"request-lost"}`

// IsLost reports whether err is the error response the stream synthesized
// for a lost request (see ErrRequestLost).
func IsLost(err error) bool {
	var e *jsonrpc.Error
	return errors.As(err, &e) && e.Code == CodeTransportError && string(e.Data) == lostMarker
}

// Modern reports whether the stream speaks the 2026-07-28 transport.
func (s *Stream) Modern() bool { return s.opts.Modern != nil }

// writeModern sends one frame in the modern era. A request POSTs on its own
// goroutine and its answer comes through Read; notifications/cancelled
// closes the cancelled request's stream, which is how this revision
// cancels over HTTP (nothing is POSTed); other notifications are POSTed.
func (s *Stream) writeModern(ctx context.Context, m message, frame []byte) error {
	switch {
	case m.isRequest():
		if !s.spawn(func() { s.runModern(m, frame) }) {
			return ErrClosed
		}
		return nil
	case m.method == "notifications/cancelled":
		s.abort(cancelledID(frame))
		return nil
	case m.method == "":
		return fmt.Errorf("%w: a 2026-07-28 client sends no JSON-RPC responses over HTTP (the server sends no requests)", ErrBadOptions)
	}
	return s.postModernAck(ctx, m, frame)
}

// modernFrame is what the headers are taken from.
type modernFrame struct {
	Method string `json:"method"`
	Params struct {
		Name      *string         `json:"name"`
		URI       *string         `json:"uri"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      struct {
			Version string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	} `json:"params"`
}

// modernHeaders sets the request metadata headers of a frame:
// MCP-Protocol-Version (the _meta version), Mcp-Method, Mcp-Name for
// tools/call, prompts/get and resources/read, and Mcp-Param-* for the
// tool's x-mcp-header arguments.
func (s *Stream) modernHeaders(h http.Header, frame []byte) {
	var f modernFrame
	if json.Unmarshal(frame, &f) != nil {
		return // the server answers a malformed body itself
	}
	if f.Params.Meta.Version != "" {
		h.Set("Mcp-Protocol-Version", f.Params.Meta.Version)
	}
	h.Set("Mcp-Method", EncodeHeaderValue(f.Method))
	switch f.Method {
	case "tools/call", "prompts/get":
		if f.Params.Name != nil {
			h.Set("Mcp-Name", EncodeHeaderValue(*f.Params.Name))
		}
	case "resources/read":
		if f.Params.URI != nil {
			h.Set("Mcp-Name", EncodeHeaderValue(*f.Params.URI))
		}
	}
	if f.Method != "tools/call" || f.Params.Name == nil || s.opts.Modern.ParamHeaders == nil {
		return
	}
	for _, ph := range s.opts.Modern.ParamHeaders(*f.Params.Name) {
		if v, ok := paramHeaderValue(f.Params.Arguments, ph.Path); ok {
			h.Set("Mcp-Param-"+ph.Name, v)
		}
	}
}

func (s *Stream) postModern(ctx context.Context, frame []byte) (*http.Response, error) {
	req, err := s.newRequest(ctx, http.MethodPost, s.url, frame)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", acceptPost)
	s.modernHeaders(req.Header, frame)
	return s.client.Do(req)
}

// runModern POSTs one request and pushes whatever answers it into the
// Read queue. Only rejected credentials end the whole stream: a modern
// request is independent of every other, so any other failure fails this
// request alone.
func (s *Stream) runModern(m message, frame []byte) {
	ctx, done := s.tracked(m)
	defer done()

	what := "POST " + m.method + " to"
	resp, err := s.postModern(ctx, frame)
	if err != nil {
		if ctx.Err() == nil {
			s.deliver(errorFrame(m.id, describeNetError(what, s.url, err)))
		}
		return
	}
	if resp.StatusCode/100 != 2 {
		body := errorBody(resp)
		err := s.statusError(what, s.url, resp, body)
		if errors.Is(err, ErrUnauthorized) {
			s.fail(err)
			return
		}
		if answer := rpcErrorAnswer(m, body); answer != nil {
			s.deliver(answer)
			return
		}
		s.deliver(errorFrame(m.id, err))
		return
	}
	switch mediaType(resp) {
	case "application/json":
		s.readJSON(ctx, m, s.url, resp.Body)
	case "text/event-stream":
		s.readModernEvents(ctx, m, resp.Body)
	default:
		body := errorBody(resp)
		s.deliver(errorFrame(m.id, fmt.Errorf("%s %s: %w: answered %s with content type %q, expected application/json or text/event-stream: %s",
			what, safeURL(s.url), ErrBadResponse, resp.Status, resp.Header.Get("Content-Type"), s.redact.excerpt(body))))
	}
}

// readModernEvents takes the answer to m from its own SSE stream: the
// related notifications, then the response. A stream that ends first loses
// the request; it is never resumed (this revision has no Last-Event-ID).
// When the caller cancelled (ctx ended) nobody waits for an answer.
func (s *Stream) readModernEvents(ctx context.Context, m message, body io.ReadCloser) {
	stop := context.AfterFunc(ctx, func() { body.Close() })
	defer stop()
	r := newSSEReader(body, s.opts.MaxMessageSize)
	over, err := s.takeAnswer(ctx, m, r, body, func(err error) { s.deliver(errorFrame(m.id, err)) })
	if over {
		return
	}
	s.deliver(lostFrame(m.id, fmt.Errorf("reading the answer to %s from %s: %w: the response stream ended before the response (%s); the server may or may not have run it, and it can be sent again",
		m.method, safeURL(s.url), ErrRequestLost, endReason(err))))
}

// lostFrame is errorFrame with the lost marker as data.
func lostFrame(id json.RawMessage, err error) []byte {
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   any             `json:"error"`
	}{"2.0", id, map[string]any{"code": CodeTransportError, "message": err.Error(), "data": json.RawMessage(lostMarker)}})
	return b
}

// postModernAck POSTs a notification with the metadata headers and waits
// for the server's acknowledgement.
func (s *Stream) postModernAck(caller context.Context, m message, frame []byte) error {
	ctx, cancel := s.ackContext(caller)
	defer cancel()
	what := "POST " + m.method + " to"
	resp, err := s.postModern(ctx, frame)
	if err != nil {
		if ended := s.ackEnded(caller); ended != nil {
			return ended
		}
		return describeNetError(what, s.url, err)
	}
	if resp.StatusCode/100 == 2 {
		drain(resp.Body)
		return nil
	}
	err = s.statusError(what, s.url, resp, errorBody(resp))
	if errors.Is(err, ErrUnauthorized) {
		s.fail(err)
	}
	return err
}
