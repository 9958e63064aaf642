package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"mcpdeck/internal/cause"
)

// maxResumeAttempts bounds consecutive reconnections of a response stream
// (or the standalone stream) that bring nothing new.
const maxResumeAttempts = 5

// pump moves the JSON-RPC messages of an SSE stream into the Read queue
// until the stream ends or, when want is set, the response with that id
// has been queued. Events that carry no data (priming events) and events
// of other types are skipped; their id and retry fields still count.
func (s *Stream) pump(r *sseReader, want string) (answered bool, err error) {
	for {
		ev, err := r.next()
		if err != nil {
			return false, err
		}
		if (ev.name != "" && ev.name != "message") || len(ev.data) == 0 {
			continue
		}
		isAnswer := false
		if want != "" {
			m := classify(ev.data)
			isAnswer = m.method == "" && m.key() == want
		}
		if !s.deliver(ev.data) {
			return false, ErrClosed
		}
		if isAnswer {
			return true, nil
		}
	}
}

// readEvents takes the answer to m from an SSE response stream. When the
// stream drops before the response, that is not a cancellation: it waits
// the server's retry: delay and resumes with GET and Last-Event-ID, taking
// the result from the resumed stream.
func (s *Stream) readEvents(ctx context.Context, m message, body io.ReadCloser) {
	r := newSSEReader(body, s.opts.MaxMessageSize)
	where := safeURL(s.url)
	failures := 0
	for {
		r.progress = false
		over, err := s.takeAnswer(ctx, m, r, body, func(err error) { s.requestFailed(m, err) })
		if over {
			return
		}
		if r.lastID == "" {
			s.requestFailed(m, fmt.Errorf("reading the answer to %s from %s: %w: the response stream ended before the response (%s) and carried no event id to resume from",
				m.method, where, ErrBadResponse, endReason(err)))
			return
		}
		if r.progress {
			failures = 0
		}
		var ok bool
		body, ok = s.resume(ctx, m, r, &failures)
		if !ok {
			return
		}
		r = r.reset(body)
	}
}

// tailTimeout bounds how long a response stream is read after the
// response; the server should end it right away.
const tailTimeout = 2 * time.Second

// finish reads a response stream to its end after the response: whatever
// else it carries is delivered, and a body read to EOF lets net/http reuse
// the connection, where closing it early would cost a new TCP (and TLS)
// handshake per request. A server that keeps the stream open is cut off
// after tailTimeout.
func (s *Stream) finish(ctx context.Context, r *sseReader, body io.ReadCloser) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { body.Close() })
	defer stop()
	t := time.AfterFunc(tailTimeout, cancel)
	defer t.Stop()
	_, _ = s.pump(r, "")
	body.Close()
}

// resume reopens a dropped response stream. It reports false when it gave
// up (after failing the request or the stream) or the request ended.
func (s *Stream) resume(ctx context.Context, m message, r *sseReader, failures *int) (io.ReadCloser, bool) {
	what := "resuming the answer to " + m.method + " (GET with Last-Event-ID) from"
	var lastErr error
	for {
		*failures++
		if *failures > maxResumeAttempts {
			if lastErr == nil {
				lastErr = fmt.Errorf("%w: the stream kept ending without the response", ErrBadResponse)
			}
			s.requestFailed(m, fmt.Errorf("gave up after %d attempts: %w", maxResumeAttempts, lastErr))
			return nil, false
		}
		if !sleep(ctx, backoff(r.retry, *failures)) {
			return nil, false
		}
		resp, err := s.get(ctx, r.lastID)
		if err != nil {
			if ctx.Err() != nil {
				return nil, false
			}
			lastErr = describeNetError(what, s.url, err)
			continue
		}
		if resp.StatusCode/100 == 2 && mediaType(resp) == "text/event-stream" {
			return resp.Body, true
		}
		if resp.StatusCode == http.StatusMethodNotAllowed {
			errorBody(resp)
			s.requestFailed(m, fmt.Errorf("%s %s: %w: the response stream dropped and the server does not allow GET (405), so the answer cannot be resumed", what, safeURL(s.url), ErrBadResponse))
			return nil, false
		}
		lastErr = s.exchangeError(what, s.url, resp, errorBody(resp))
		if errors.Is(lastErr, ErrSessionExpired) || errors.Is(lastErr, ErrUnauthorized) {
			s.fail(lastErr)
			return nil, false
		}
	}
}

// get opens an SSE stream with GET: the standalone stream, or with
// lastEventID a resumed one.
func (s *Stream) get(ctx context.Context, lastEventID string) (*http.Response, error) {
	req, err := s.newRequest(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", acceptSSE)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	return s.client.Do(req)
}

// reset continues parsing on a new body, keeping the last event id and the
// retry delay, which belong to the logical stream.
func (p *sseReader) reset(body io.Reader) *sseReader {
	n := newSSEReader(body, p.max)
	n.lastID, n.retry = p.lastID, p.retry
	return n
}

func endReason(err error) string {
	if err == nil || errors.Is(err, io.EOF) {
		return "the server closed it"
	}
	return cause.Of(err).Error()
}
