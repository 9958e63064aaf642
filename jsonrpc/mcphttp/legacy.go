package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"mcpdeck/internal/cause"
	"mcpdeck/jsonrpc"
)

// connectLegacy opens the HTTP+SSE transport of protocol 2024-11-05: GET
// the SSE URL and wait for the endpoint event, whose URL receives every
// POST from then on. The SSE stream then carries the server's messages as
// "message" events for as long as the session lives. ctx bounds only the
// wait for the endpoint.
func (s *Stream) connectLegacy(ctx context.Context) error {
	got := make(chan error, 1)
	if !s.spawn(func() { s.runLegacy(got) }) {
		return ErrClosed
	}
	select {
	case err := <-got:
		return err
	case <-ctx.Done():
		return fmt.Errorf("waiting for the endpoint event from %s: %w: %v; is this an MCP SSE url?", safeURL(s.url), ErrBadResponse, context.Cause(ctx))
	}
}

// runLegacy reads the legacy SSE stream. Until the endpoint event, errors
// go to got (connectLegacy reports them); afterwards the stream ending
// ends the session, since this transport cannot resume.
func (s *Stream) runLegacy(got chan<- error) {
	const what = "GET (SSE stream) from"
	connected := false
	report := func(err error) {
		if connected {
			s.fail(err)
		} else {
			got <- err
		}
	}
	resp, err := s.get(s.ctx, "")
	if err != nil {
		report(describeNetError(what, s.url, err))
		return
	}
	if resp.StatusCode/100 != 2 {
		report(s.statusError(what, s.url, resp, errorBody(resp)))
		return
	}
	defer resp.Body.Close()
	if mt := mediaType(resp); mt != "text/event-stream" {
		report(fmt.Errorf("%s %s: %w: answered with content type %q instead of an event stream; is this the server's SSE url?", what, safeURL(s.url), ErrBadResponse, mt))
		return
	}
	r := newSSEReader(resp.Body, s.opts.MaxMessageSize)
	for {
		ev, err := r.next()
		if err != nil {
			if s.ctx.Err() != nil {
				return
			}
			if errors.Is(err, jsonrpc.ErrMessageTooLarge) {
				report(fmt.Errorf("reading the SSE stream from %s: %w", safeURL(s.url), err))
				return
			}
			if !connected {
				report(fmt.Errorf("%s %s: %w: the stream ended (%s) before the endpoint event", what, safeURL(s.url), ErrBadResponse, endReason(err)))
				return
			}
			report(fmt.Errorf("reading the SSE stream from %s: %w: the stream ended (%s); the legacy transport cannot resume, so the session is over: reconnect to start a new one",
				safeURL(s.url), ErrSessionExpired, endReason(err)))
			return
		}
		switch ev.name {
		case "endpoint":
			if connected {
				continue // a repeated endpoint event changes nothing
			}
			ep, err := s.endpointURL(string(ev.data))
			if err != nil {
				report(err)
				return
			}
			s.mu.Lock()
			s.endpoint = ep
			s.mu.Unlock()
			connected = true
			got <- nil
		case "", "message":
			if len(ev.data) > 0 && !s.deliver(ev.data) {
				return
			}
		}
	}
}

// endpointURL resolves the endpoint event's URL against the SSE URL. It
// must stay on the same origin: the configured headers (credentials) go to
// it.
func (s *Stream) endpointURL(data string) (*url.URL, error) {
	ref, err := url.Parse(strings.TrimSpace(data))
	if err != nil {
		return nil, fmt.Errorf("reading the endpoint event from %s: %w: the endpoint is not a url: %v", safeURL(s.url), ErrBadResponse, cause.Of(err))
	}
	ep := s.url.ResolveReference(ref)
	if ep.Scheme != s.url.Scheme || ep.Host != s.url.Host {
		return nil, fmt.Errorf("reading the endpoint event from %s: %w: the endpoint %s is on another origin; refusing to send the configured headers there",
			safeURL(s.url), ErrBadResponse, safeURL(ep))
	}
	return ep, nil
}
