package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
)

// The peer part of a session answers what a server asks of mcpdeck: as a
// request of its own (the session revisions: handle, the connection's
// Handler, on its own goroutine) or as an input request inside an
// input_required answer (2026-07-28 MRTR, and a task's: fulfil, on the
// asking request's goroutine). Both go through peerMethods, one row a
// method; a new kind of question (sampling/createMessage) is one row there
// and one capability in clientCapabilities. The part keeps no state: who
// may answer comes from the request in flight (inflight, or the ctx).

// peer is the part itself: no state of its own.
type peer struct{ s *session }

// question is one thing a server asks.
type question struct {
	method string
	params json.RawMessage
	// responder is the caller's who may answer first (CallResponder); nil
	// leaves it to the session-wide handling.
	responder CallResponder
	// input marks an input request of an input_required answer (modern):
	// it is answered with a result object, and "cannot" is a decline or an
	// error of the request, not a JSON-RPC error.
	input bool
}

// peerMethods answer questions by method.
var peerMethods = map[string]func(p *peer, ctx context.Context, q question) (any, error){
	mcp.MethodElicit:    (*peer).answerElicit,
	mcp.MethodListRoots: (*peer).answerRoots,
	mcp.MethodSample:    (*peer).answerSample,
}

// handle answers the server's requests to us (the connection's Handler).
// A question is routed to a caller's responder only when that is
// unambiguous: every request in flight carries the same one.
func (pr *peer) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	s := pr.s
	answer := peerMethods[req.Method]
	if answer == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "mcpdeck does not handle %s", req.Method)
	}
	return answer(pr, ctx, question{method: req.Method, params: req.Params, responder: s.inflight.responder()})
}

// fulfil answers one input request of an input_required result or an
// input_required task; ctx is the asking request's, so its caller's
// responder may answer first. A declined sampling request ends the
// request (ErrDeclined): the revision has the client not retry.
func (pr *peer) fulfil(ctx context.Context, _ string, req mcp.InputRequest) (json.RawMessage, error) {
	answer := peerMethods[req.Method]
	if answer == nil {
		return nil, fmt.Errorf("%w: mcpdeck does not offer %s", ErrUnsupported, req.Method)
	}
	out, err := answer(pr, ctx, question{method: req.Method, params: req.Params, responder: responderFrom(ctx), input: true})
	if err != nil {
		return nil, err
	}
	if raw, ok := out.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(out)
}

// answerElicit answers elicitation/create: the caller's responder, else
// the Controller's Elicitor (the TUI's form, the CLI's --elicitation).
func (pr *peer) answerElicit(ctx context.Context, q question) (any, error) {
	s := pr.s
	var er *ElicitRequest
	decode := func() (ElicitRequest, error) {
		if er == nil {
			r, err := pr.elicitRequest(q)
			if err != nil {
				return r, err
			}
			er = &r
		}
		return *er, nil
	}
	finish := func(resp ElicitResponse) ElicitResponse {
		if q.input && resp.Action == "accept" && er.Mode == "url" {
			resp.Content = nil // URL mode: accept is consent, nothing more
		}
		return resp
	}
	if r := q.responder; r != nil {
		req, err := decode()
		if err != nil {
			return nil, err
		}
		resp, err := r.Elicit(ctx, req)
		switch {
		case errors.Is(err, ErrNotAnswered):
		case err != nil:
			return nil, err
		default:
			return finish(resp), nil
		}
	}
	e := s.c.elicitor()
	if e == nil {
		if q.input {
			return mcp.ElicitDecline(), nil
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "mcpdeck did not declare elicitation")
	}
	req, err := decode()
	if err != nil {
		return nil, err
	}
	if req.Mode == "url" && s.c.opts.Relay && !s.c.opts.Operator {
		// Declared for the callers that can open a URL; this one cannot,
		// and no person is there to (Options.Operator).
		if q.input {
			return mcp.ElicitDecline(), nil
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams,
			"elicitation/create: URL mode is not supported by the client whose request this is: it did not declare elicitation.url (mcpdeck passes a URL elicitation only to a client that did)")
	}
	resp, err := e.Elicit(ctx, req)
	if err != nil {
		return nil, err
	}
	return finish(resp), nil
}

// elicitRequest decodes the params of elicitation/create.
func (pr *peer) elicitRequest(q question) (ElicitRequest, error) {
	s := pr.s
	if q.input {
		er, err := mcp.InputRequest{Method: q.method, Params: q.params}.Elicitation()
		if err != nil {
			return ElicitRequest{}, err
		}
		return ElicitRequest{Server: s.name, Mode: er.Mode, Message: er.Message, RequestedSchema: er.RequestedSchema, URL: er.URL}, nil
	}
	var p mcp.ElicitRequest
	if err := json.Unmarshal(q.params, &p); err != nil {
		return ElicitRequest{}, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "elicitation/create: %v", err)
	}
	if p.Mode == "" {
		p.Mode = "form"
	}
	return ElicitRequest{Server: s.name, Mode: p.Mode, Message: p.Message, RequestedSchema: p.RequestedSchema, URL: p.URL, ElicitationID: p.ElicitationID}, nil
}

// answerRoots answers roots/list: the caller's responder, else the roots
// offered to the server (none, to a caller without roots, with Relay). A
// session-era question no caller can be found for, with Relay and no
// roots offered, is refused (Options.Relay says why).
func (pr *peer) answerRoots(ctx context.Context, q question) (any, error) {
	s := pr.s
	if r := q.responder; r != nil {
		roots, err := r.Roots(ctx, s.name)
		switch {
		case errors.Is(err, ErrNotAnswered):
		case err != nil:
			return nil, err
		default:
			return rootsAnswer(roots, q.input), nil
		}
	}
	offered := s.c.rootsFor(s.name, s.cfg.Roots)
	if len(offered) == 0 && !q.input {
		switch {
		case !s.env.rootsDeclared.Load():
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "mcpdeck offers this server no roots")
		case q.responder == nil && s.c.opts.Relay:
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError,
				"roots/list: mcpdeck serves several clients over this connection and gives a client's roots only during a request that client makes; none is in flight now, or several are, and mcpdeck has no roots of its own for this server (ask during a tool call, or configure roots in mcp.json)")
		}
	}
	return rootsAnswer(offered, q.input), nil
}

// rootsAnswer is the answer to roots/list: a result object, or for an
// input request, its raw JSON.
func rootsAnswer(roots []Root, input bool) any {
	out := make([]mcp.Root, 0, len(roots))
	for _, r := range roots {
		out = append(out, mcp.Root{URI: r.URI, Name: r.Name})
	}
	if input {
		return mcp.RootsResult(out)
	}
	return mcp.ListRootsResult{Roots: out}
}

// answerSample answers sampling/createMessage as sampling.go says: the
// caller's responder, else the Controller's Sampler. A legacy server gets
// a decline or an undeclared capability as a JSON-RPC error; an input
// request's error ends the request that asked.
func (pr *peer) answerSample(ctx context.Context, q question) (any, error) {
	raw, err := pr.s.sample(ctx, q.responder, q.params)
	if q.input {
		return raw, err
	}
	var declined *samplingDeclined
	switch {
	case errors.As(err, &declined):
		return nil, declined.wire()
	case errors.Is(err, ErrUnsupported):
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "mcpdeck did not declare sampling")
	case err != nil:
		return nil, err
	}
	return raw, nil
}
