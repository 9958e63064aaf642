package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"mcpdeck/jsonrpc"
)

const (
	acceptPost = "application/json, text/event-stream"
	acceptSSE  = "text/event-stream"
)

// target is where messages are POSTed: the endpoint in legacy mode, the
// configured URL otherwise.
func (s *Stream) target() (*url.URL, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.endpoint != nil {
		return s.endpoint, true
	}
	return s.url, false
}

// runRequest POSTs one request and pushes whatever answers it into the
// Read queue: the response, or a synthesized error response when the
// exchange failed for this request alone.
func (s *Stream) runRequest(m message, frame []byte) {
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	key := m.key()
	s.track(key, cancel)
	defer s.untrack(key)

	target, legacy := s.target()
	what := "POST " + m.method + " to"
	resp, err := s.post(ctx, target, frame)
	if err != nil {
		if ctx.Err() == nil {
			s.requestFailed(m, describeNetError(what, target, err))
		}
		return
	}
	if !legacy && m.method == "initialize" {
		if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
			s.mu.Lock()
			s.sessionID = sid
			s.mu.Unlock()
		}
	}
	if resp.StatusCode/100 != 2 {
		body := errorBody(resp)
		if !legacy && m.method == "initialize" && s.opts.AutoFallback && fallbackStatus(resp.StatusCode) {
			s.fallback(ctx, m, frame, resp.Status)
			return
		}
		err := s.exchangeError(what, target, resp, body)
		if !errors.Is(err, ErrSessionExpired) && !errors.Is(err, ErrUnauthorized) {
			if answer := rpcErrorAnswer(m, body); answer != nil {
				s.deliver(answer)
				return
			}
		}
		if !legacy && m.method == "initialize" && fallbackStatus(resp.StatusCode) {
			err = fmt.Errorf("%w; if this is a legacy HTTP+SSE server, set \"type\": \"sse\" (or leave the type out to probe)", err)
		}
		s.requestFailed(m, err)
		return
	}
	if legacy || resp.StatusCode == http.StatusAccepted {
		// Legacy: the answer comes on the SSE stream. 202 to a request is
		// unusual but means the same: it will come on the GET stream.
		drain(resp.Body)
		return
	}
	switch mediaType(resp) {
	case "application/json":
		s.readJSON(ctx, m, target, resp.Body)
	case "text/event-stream":
		s.readEvents(ctx, m, resp.Body)
	default:
		body := errorBody(resp)
		s.requestFailed(m, fmt.Errorf("%s %s: %w: answered with content type %q, expected application/json or text/event-stream: %s; is this url an MCP endpoint?",
			what, safeURL(target), ErrBadResponse, resp.Header.Get("Content-Type"), s.redact.excerpt(body)))
	}
}

// rpcErrorAnswer returns the JSON-RPC error a non-2xx body carries, as the
// answer to request m: some servers (the Go SDK's among them) answer an
// unknown method or bad params with HTTP 400 and a proper JSON-RPC error,
// and the caller should see the server's own code and message rather than
// a transport error. It returns nil when the body is no such error.
func rpcErrorAnswer(m message, body []byte) []byte {
	var r jsonrpc.Response[json.RawMessage]
	if !m.isRequest() || json.Unmarshal(bytes.TrimSpace(body), &r) != nil || r.Error == nil {
		return nil
	}
	answer, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.id, "error": r.Error})
	if err != nil {
		return nil
	}
	return answer
}

func fallbackStatus(code int) bool {
	return code == http.StatusBadRequest || code == http.StatusNotFound || code == http.StatusMethodNotAllowed
}

func (s *Stream) post(ctx context.Context, target *url.URL, frame []byte) (*http.Response, error) {
	req, err := s.newRequest(ctx, http.MethodPost, target, frame)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", acceptPost)
	return s.client.Do(req)
}

func mediaType(resp *http.Response) string {
	mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil {
		return ""
	}
	return strings.ToLower(mt)
}

// exchangeError describes a non-2xx answer, recognising an expired session
// (404, or 400 that says so) when there was one to expire.
func (s *Stream) exchangeError(what string, target *url.URL, resp *http.Response, body []byte) error {
	s.mu.Lock()
	hadSession := s.sessionID != "" || s.endpoint != nil
	s.mu.Unlock()
	gone := resp.StatusCode == http.StatusNotFound ||
		(resp.StatusCode == http.StatusBadRequest && bytes.Contains(bytes.ToLower(body), []byte("session")))
	if hadSession && gone {
		return fmt.Errorf("%s %s: %w: the server answered %s (%s); the session is gone (the server restarted or expired it): reconnect to start a new one",
			what, safeURL(target), ErrSessionExpired, resp.Status, s.redact.excerpt(body))
	}
	return s.statusError(what, target, resp, body)
}

// readJSON takes the answer from an application/json body.
func (s *Stream) readJSON(ctx context.Context, m message, target *url.URL, body io.ReadCloser) {
	defer body.Close()
	max := s.opts.MaxMessageSize
	data, err := io.ReadAll(io.LimitReader(body, int64(max)+1))
	if err != nil {
		if ctx.Err() == nil {
			s.requestFailed(m, describeNetError("reading the answer to "+m.method+" from", target, err))
		}
		return
	}
	if len(data) > max {
		s.requestFailed(m, fmt.Errorf("reading the answer to %s from %s: %w", m.method, safeURL(target), tooLarge(max)))
		return
	}
	if !json.Valid(data) {
		s.requestFailed(m, fmt.Errorf("reading the answer to %s from %s: %w: the application/json body is not valid JSON (%d bytes): %s",
			m.method, safeURL(target), ErrBadResponse, len(data), s.redact.excerpt(data)))
		return
	}
	answered := false
	for _, part := range splitBatch(data) {
		if r := classify(part); r.method == "" && r.key() == m.key() {
			answered = true
		}
		if !s.deliver(part) {
			return
		}
	}
	if !answered {
		s.requestFailed(m, fmt.Errorf("reading the answer to %s from %s: %w: the JSON body held no response with id %s", m.method, safeURL(target), ErrBadResponse, m.key()))
	}
}

// postAck POSTs a notification or a response and waits for the server to
// acknowledge it (202, or any 2xx).
func (s *Stream) postAck(m message, frame []byte) error {
	ctx, cancel := context.WithTimeout(s.ctx, s.opts.AckTimeout)
	defer cancel()
	target, _ := s.target()
	what := "POST " + m.method + " to"
	if m.method == "" {
		what = "POST response " + m.key() + " to"
	}
	resp, err := s.post(ctx, target, frame)
	if err != nil {
		switch {
		case s.ctx.Err() != nil:
			return ErrClosed
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return fmt.Errorf("%s %s: %w: no acknowledgement within %s; the server is stalled or overloaded", what, safeURL(target), ErrUnreachable, s.opts.AckTimeout)
		}
		err = describeNetError(what, target, err)
		s.mu.Lock()
		initialized := s.initialized
		s.mu.Unlock()
		if !initialized || errors.Is(err, ErrRedirected) {
			s.fail(err)
		}
		return err
	}
	if resp.StatusCode/100 == 2 {
		drain(resp.Body)
		return nil
	}
	err = s.exchangeError(what, target, resp, errorBody(resp))
	if errors.Is(err, ErrSessionExpired) || errors.Is(err, ErrUnauthorized) {
		s.fail(err)
	}
	return err
}

// deleteSession ends the session on the server; any answer is fine (405
// means the server does not let clients end sessions).
func (s *Stream) deleteSession() {
	ctx, cancel := context.WithTimeout(context.Background(), deleteTimeout)
	defer cancel()
	req, err := s.newRequest(ctx, http.MethodDelete, s.url, nil)
	if err != nil {
		return
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return
	}
	drain(resp.Body)
}

// fallback switches to the legacy transport after POST initialize was
// refused, then sends initialize there.
func (s *Stream) fallback(ctx context.Context, m message, frame []byte, status string) {
	ctx, cancel := context.WithTimeout(ctx, endpointTimeout)
	err := s.connectLegacy(ctx)
	cancel()
	if err != nil {
		s.fail(fmt.Errorf("POST initialize to %s was answered %s, so tried the legacy HTTP+SSE transport, which failed too: %w", safeURL(s.url), status, err))
		return
	}
	s.mu.Lock()
	s.sessionID = "" // a streamable session id, if any was sent, means nothing now
	s.mu.Unlock()
	if s.opts.OnFallback != nil {
		s.opts.OnFallback(fmt.Sprintf("POST initialize to %s was answered %s: using the legacy HTTP+SSE transport (protocol 2024-11-05); set \"type\": \"sse\" to skip the probe", safeURL(s.url), status))
	}
	s.runRequest(m, frame)
}
