package mcphttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"mcpdeck/jsonrpc"
)

// RawRequest is one hand-built JSON-RPC request, sent outside the stream's
// own flow: a probe a client would never send (`mcpdeck check` asks for an
// unknown revision, leaves _meta out, sends a mismatched Mcp-Method or a
// forged token). It goes out exactly as the stream's requests do: the
// stream's client (its redirect policy, and the caller's Transport, such
// as MCP authorization), the configured headers, the session headers, the
// 2026-07-28 request metadata headers on a modern stream; then Header.
type RawRequest struct {
	// Frame is the JSON-RPC request, the POST's body.
	Frame []byte
	// Header is set after every header the stream sets, replacing any of
	// the same name.
	Header map[string]string
}

// RawAnswer is the server's answer to a RawRequest.
type RawAnswer struct {
	// Status is the HTTP status.
	Status int
	// Header are the response's headers.
	Header http.Header
	// Response is the JSON-RPC response carrying the request's id: the
	// JSON body (or its batch member), the SSE event, or the body of a
	// non-2xx answer when that is a JSON-RPC error. Nil when there is
	// none (202, an error page, a stream that ended first).
	Response []byte
	// Body is an excerpt of a body that held no response, with configured
	// header values blanked out.
	Body string
}

// SendRaw POSTs one RawRequest and reads its answer within the stream's
// message size limit, with the stream's SSE parser. A redirect to another
// origin is not followed (the error wraps ErrRedirected), and an exchange
// that fails says where and why, as the stream's own errors do. SendRaw
// needs no session: on a fresh stream it is the first exchange, and it
// never changes the stream's session state.
func (s *Stream) SendRaw(ctx context.Context, r RawRequest) (RawAnswer, error) {
	m := classify(r.Frame)
	x, err := s.exchange(ctx, r, "POST "+m.method+" to")
	if err != nil {
		return RawAnswer{}, err
	}
	a := RawAnswer{Status: x.resp.StatusCode, Header: x.resp.Header, Response: x.response}
	if a.Response == nil {
		a.Body = s.redact.excerpt(x.body)
	}
	return a, nil
}

// Client is the HTTP client the stream sends every exchange with: its
// redirect policy and the caller's Transport. It is for fetches that
// belong with the stream's exchanges but carry no JSON-RPC, such as
// authorization metadata; the configured headers are not added to them.
func (s *Stream) Client() *http.Client { return s.client }

// rawExchange is one exchange's outcome: the response (body read and
// closed), the JSON-RPC response it carried, and the raw body otherwise
// (at most 4 KiB of an error answer, the message size limit of a JSON one).
type rawExchange struct {
	resp     *http.Response
	response []byte
	body     []byte
}

// exchange sends r and reads its answer. what names the exchange in
// errors ("POST tools/list to").
func (s *Stream) exchange(ctx context.Context, r RawRequest, what string) (rawExchange, error) {
	m := classify(r.Frame)
	if !m.isRequest() {
		return rawExchange{}, fmt.Errorf("%w: a raw exchange sends one request, with an id and a method", ErrBadOptions)
	}
	if err := s.usable(); err != nil {
		return rawExchange{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel) // Close ends the exchange
	defer stop()
	target, _ := s.target()
	req, err := s.newRequest(ctx, http.MethodPost, target, r.Frame)
	if err != nil {
		return rawExchange{}, err
	}
	req.Header.Set("Accept", acceptPost)
	if s.opts.Modern != nil {
		s.modernHeaders(req.Header, r.Frame)
	}
	for k, v := range r.Header {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return rawExchange{}, describeNetError(what, target, err)
	}
	defer resp.Body.Close()
	x := rawExchange{resp: resp}
	switch {
	case resp.StatusCode/100 != 2:
		x.body = errorBody(resp)
		if isRPCError(x.body) {
			x.response = bytes.TrimSpace(x.body)
		}
	case mediaType(resp) == "text/event-stream":
		x.response, err = s.eventAnswer(resp.Body, m.key())
	default:
		x.body, err = io.ReadAll(io.LimitReader(resp.Body, int64(s.opts.MaxMessageSize)+1))
		if err == nil && len(x.body) > s.opts.MaxMessageSize {
			err = tooLarge(s.opts.MaxMessageSize)
		}
		for _, part := range splitBatch(x.body) {
			if pm := classify(part); pm.method == "" && pm.id != nil && pm.key() == m.key() {
				x.response = part
			}
		}
	}
	if err != nil {
		return x, fmt.Errorf("%s %s: reading the answer: %w", what, safeURL(target), err)
	}
	return x, nil
}

// isRPCError reports whether body is a JSON-RPC error response.
func isRPCError(body []byte) bool {
	env, err := jsonrpc.ReadEnvelope(bytes.TrimSpace(body))
	return err == nil && len(env.Error) > 0 && string(env.Error) != "null"
}

// eventAnswer reads an SSE answer until the response with key, skipping
// the notifications and requests before it.
func (s *Stream) eventAnswer(body io.Reader, key string) ([]byte, error) {
	r := newSSEReader(body, s.opts.MaxMessageSize)
	for {
		ev, err := r.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("%w: the event stream ended before the response", ErrBadResponse)
			}
			return nil, err
		}
		if (ev.name == "" || ev.name == "message") && len(ev.data) > 0 {
			if m := classify(ev.data); m.method == "" && m.key() == key {
				return ev.data, nil
			}
		}
	}
}
