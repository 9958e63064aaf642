package mcphttp

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"mcpdeck/jsonrpc"
)

// openStandalone starts the standalone GET stream, on which the server
// sends what is not tied to a request (list changes, log messages, its own
// requests), and waits until it is established. It runs in the Write of
// notifications/initialized just before that notification is POSTed, as the
// official Go SDK's client does: servers without an event store drop what
// they send while no stream is open, and some (server-everything) send
// notifications/tools/list_changed while still handling
// notifications/initialized, before its 202 could even reach us. A server
// that refuses the stream until it is initialized gets a second attempt
// right after the notification is acknowledged.
func (s *Stream) openStandalone() {
	s.mu.Lock()
	started := s.standalone || s.endpoint != nil
	s.standalone = true
	s.mu.Unlock()
	if started {
		return
	}
	ready := make(chan struct{})
	var once sync.Once
	signal := func() { once.Do(func() { close(ready) }) }
	if !s.spawn(func() { defer signal(); s.runStandalone(signal) }) {
		return
	}
	t := time.NewTimer(standaloneWait)
	defer t.Stop()
	select {
	case <-ready:
	case <-t.C:
	case <-s.ctx.Done():
	}
}

// runStandalone keeps the standalone stream open: it reopens it with
// backoff (honouring retry:) and Last-Event-ID when it drops. A 405 means
// the server has none, which is fine. An expired session or rejected
// credentials end the whole stream; so does a server that stays
// unreachable. Other refusals stop only the standalone stream after a few
// attempts, leaving requests working.
func (s *Stream) runStandalone(established func()) {
	const what = "GET (the server's event stream) from"
	r := newSSEReader(nil, s.opts.MaxMessageSize)
	failures := 0
	for attempt := 1; ; attempt++ {
		resp, err := s.get(s.ctx, r.lastID)
		if s.ctx.Err() != nil {
			if err == nil {
				resp.Body.Close()
			}
			return
		}
		switch {
		case err != nil:
			established()
			failures++
			if failures > maxResumeAttempts {
				s.fail(fmt.Errorf("reopening the server's event stream, %d attempts: %w", maxResumeAttempts, describeNetError(what, s.url, err)))
				return
			}
		case resp.StatusCode == http.StatusMethodNotAllowed:
			errorBody(resp)
			established()
			return
		case attempt == 1 && resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden &&
			(resp.StatusCode/100 != 2 || mediaType(resp) != "text/event-stream"):
			// Refused before notifications/initialized: not a verdict yet.
			errorBody(resp)
			established()
			select {
			case <-s.initializedAcked:
				continue
			case <-s.ctx.Done():
				return
			}
		case resp.StatusCode/100 != 2 || mediaType(resp) != "text/event-stream":
			err := s.exchangeError(what, s.url, resp, errorBody(resp))
			established()
			if errors.Is(err, ErrSessionExpired) || errors.Is(err, ErrUnauthorized) {
				s.fail(err)
				return
			}
			failures++
			if failures > maxResumeAttempts {
				return
			}
		default:
			established()
			r = r.reset(resp.Body)
			_, err := s.pump(r, "")
			resp.Body.Close()
			if s.ctx.Err() != nil || errors.Is(err, ErrClosed) {
				return
			}
			if errors.Is(err, jsonrpc.ErrMessageTooLarge) {
				s.fail(fmt.Errorf("reading the server's event stream from %s: %w", safeURL(s.url), err))
				return
			}
			if r.progress {
				failures = 0
			}
			failures++
			if failures > maxResumeAttempts {
				return // it keeps closing at once without a word: let it be
			}
		}
		if !sleep(s.ctx, backoff(r.retry, failures)) {
			return
		}
	}
}
