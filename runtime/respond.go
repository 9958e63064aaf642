package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
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

// responderFrom returns the responder ctx carries, or nil.
func responderFrom(ctx context.Context) CallResponder {
	r, _ := ctx.Value(responderKey{}).(CallResponder)
	return r
}

// callerResponder returns the responder every request in flight on the
// session carries, or nil when there is none, or more than one.
func (s *session) callerResponder() CallResponder {
	s.mu.Lock()
	defer s.mu.Unlock()
	var found CallResponder
	for _, cs := range s.calls {
		switch {
		case cs.responder == nil:
			return nil
		case found == nil:
			found = cs.responder
		case !sameResponder(found, cs.responder):
			return nil
		}
	}
	return found
}

func sameResponder(a, b CallResponder) bool {
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && ta.Comparable() && a == b
}

// routeToCaller answers a server's question with the responder of the
// request it belongs to, when that is unambiguous; handled is false when
// the session-wide handling should answer instead.
func (s *session) routeToCaller(ctx context.Context, req *jsonrpc.Request) (result any, handled bool, err error) {
	if req.Method != mcp.MethodElicit && req.Method != mcp.MethodListRoots {
		return nil, false, nil
	}
	r := s.callerResponder()
	if r == nil {
		return nil, false, nil
	}
	if req.Method == mcp.MethodListRoots {
		roots, err := r.Roots(ctx, s.name)
		if errors.Is(err, ErrNotAnswered) {
			return nil, false, nil
		}
		if err != nil {
			return nil, true, err
		}
		return rootsResult(roots), true, nil
	}
	er, err := s.elicitRequest(req.Params)
	if err != nil {
		return nil, true, err
	}
	resp, err := r.Elicit(ctx, er)
	if errors.Is(err, ErrNotAnswered) {
		return nil, false, nil
	}
	return resp, true, err
}

// fulfilForCaller answers an input request of a modern server's
// input_required answer with the responder of the request it belongs to:
// here ctx is that request's, so there is no doubt whose it is. handled is
// false when there is no responder, or it leaves the question to the
// session-wide handling (ErrNotAnswered).
func (s *session) fulfilForCaller(ctx context.Context, req mcp.InputRequest) (raw json.RawMessage, handled bool, err error) {
	r := responderFrom(ctx)
	if r == nil {
		return nil, false, nil
	}
	switch req.Method {
	case mcp.MethodElicit:
		er, err := req.Elicitation()
		if err != nil {
			return nil, true, err
		}
		resp, err := r.Elicit(ctx, ElicitRequest{Server: s.name, Mode: er.Mode, Message: er.Message, RequestedSchema: er.RequestedSchema, URL: er.URL})
		switch {
		case errors.Is(err, ErrNotAnswered):
			return nil, false, nil
		case err != nil:
			return nil, true, err
		}
		if resp.Action == "accept" && er.Mode == "url" {
			resp.Content = nil // URL mode: accept is consent, nothing more
		}
		raw, err := json.Marshal(resp)
		return raw, true, err
	case mcp.MethodListRoots:
		roots, err := r.Roots(ctx, s.name)
		switch {
		case errors.Is(err, ErrNotAnswered):
			return nil, false, nil
		case err != nil:
			return nil, true, err
		}
		out := make([]mcp.Root, 0, len(roots))
		for _, root := range roots {
			out = append(out, mcp.Root{URI: root.URI, Name: root.Name})
		}
		return mcp.RootsResult(out), true, nil
	}
	return nil, false, nil
}

// BridgeNames names (server, name) pairs the way tools are bridged —
// server__name, sanitized, at most 64 characters, unique, stable across
// reconnects — for anything else a face lists across servers (the
// gateway's prompts). The result maps {server, name} to the bridged name.
func BridgeNames(perServer map[string][]string) map[[2]string]string {
	tools := make(map[string][]Tool, len(perServer))
	for server, names := range perServer {
		for _, n := range names {
			tools[server] = append(tools[server], Tool{ServerTool: n})
		}
	}
	out := map[[2]string]string{}
	for _, t := range bridgeTools(tools) {
		out[[2]string{t.Server, t.ServerTool}] = t.Name
	}
	return out
}
