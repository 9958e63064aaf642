package runtime

import (
	"context"
	"errors"
)

// CallResponder answers, on behalf of whoever made a request, what a server
// asks while that request is in flight: elicitation/create and roots/list.
// The gateway gives each of its clients one, so that a question a server
// asks during a client's tool call reaches that client, not the TUI.
//
// A 2026-07-28 server asks inside the answer to the request itself
// (input_required), so its question always reaches that request's
// responder. A legacy server sends a request of its own, and nothing says
// which of mcpdeck's requests it belongs to: the session routes it to a
// responder only when that is unambiguous, every request in flight on the
// server carrying the same responder. Otherwise the session-wide handling
// applies: the Controller's Elicitor, the configured roots.
type CallResponder interface {
	// Elicit answers an elicitation. Return ErrNotAnswered to leave it to
	// the Controller's Elicitor (the caller cannot ask anyone).
	Elicit(ctx context.Context, req ElicitRequest) (ElicitResponse, error)
	// Roots answers roots/list for server. Return ErrNotAnswered to offer
	// the roots mcpdeck is configured with instead.
	Roots(ctx context.Context, server string) ([]Root, error)
}

// ErrNotAnswered is returned by a CallResponder that leaves a question to
// the session-wide handling.
var ErrNotAnswered = errors.New("not answered by the caller")

type responderKey struct{}

// WithResponder returns ctx carrying r: requests made with it (Call,
// GetPrompt, ReadResource, Complete, Request) route the questions their
// server asks while they are in flight to r. Use a pointer type: responders
// are compared by identity.
func WithResponder(ctx context.Context, r CallResponder) context.Context {
	return context.WithValue(ctx, responderKey{}, r)
}

type progressKey struct{}

// WithProgress returns ctx carrying f: each progress notification routed
// to a request made with it (Call, GetPrompt, ReadResource, Complete,
// Request) is handed to f as it is handled, on the goroutine that takes
// in the server's notifications: in the order the server sent them, and
// before the request's answer reaches its caller (the bus delivers its
// Progress events later, on each subscriber's own goroutine). f must not
// block: the server's notifications wait for it. The gateway forwards a
// server's progress to its client this way, so that each goes out before
// the answer it precedes.
func WithProgress(ctx context.Context, f func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

func progressFrom(ctx context.Context) func(Progress) {
	f, _ := ctx.Value(progressKey{}).(func(Progress))
	return f
}

// responderFrom returns the responder ctx carries, or nil.
func responderFrom(ctx context.Context) CallResponder {
	r, _ := ctx.Value(responderKey{}).(CallResponder)
	return r
}
