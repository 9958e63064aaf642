package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"mcpdeck/jsonrpc/mcphttp"
	"mcpdeck/runtime/mcp"
)

// mrtr drives a modern tools/call, prompts/get or resources/read through
// its rounds: every input_required answer is fulfilled (elicitation
// through the session's Elicitor, roots/list from the roots offered) and
// retried with a new id, the answers and the byte-exact requestState, at
// most mcp.DefaultMaxRounds times. It returns the final result and its
// type: complete, or a task to follow.
//
// Two failures are retried once on the spot, as the 2026-07-28 Streamable
// HTTP transport says: a request lost with its response stream (re-issued
// with a new id), and a tools/call the server refused with -32020 because
// the tool's x-mcp-header annotations changed (the tools are listed again
// first, so the retry carries the new headers).
func (s *session) mrtr(ctx context.Context, o callOpts, params any, cs *callState, ac *activeCall) (json.RawMessage, mcp.ResultType, error) {
	first, ok := params.(json.RawMessage)
	if !ok {
		var err error
		if first, err = json.Marshal(params); err != nil {
			return nil, "", fmt.Errorf("encoding the request: %w", err)
		}
	}
	relisted, resent := false, false
	caller := func(ctx context.Context, p json.RawMessage) (json.RawMessage, error) {
		for {
			raw, err := s.round(ctx, o, p, cs, ac)
			switch {
			case err == nil:
				return raw, nil
			case mcphttp.IsLost(err) && !resent:
				resent = true
				continue
			case isHeaderMismatch(err) && o.method == "tools/call" && s.remote && !relisted:
				relisted = true
				if ls, lerr := s.refetch("tools"); lerr == nil {
					s.c.send(s.ctx, msgListed{name: s.name, gen: s.gen, kind: "tools", lists: ls, leaks: leaks(ls)})
				}
				continue
			}
			return nil, err
		}
	}
	flow := mcp.Flow{Capabilities: s.declared(), MaxRounds: mcp.DefaultMaxRounds}
	raw, t, err := flow.Run(ctx, caller, first, declineOnce(s.fulfil))
	if err != nil && isMRTRBreach(err) {
		err = fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	return raw, t, err
}

// declineOnce wraps fulfil for one flow: an elicitation declined (or
// cancelled) and then asked again word for word ends the flow with
// ErrDeclined at once. The server cannot go on without that answer, and
// asking the person again, or declining again until the round limit,
// would only loop and end as the server's fault.
func declineOnce(fulfil mcp.Fulfiller) mcp.Fulfiller {
	declined := map[string]string{} // params of a declined elicitation → what was done
	return func(ctx context.Context, key string, req mcp.InputRequest) (json.RawMessage, error) {
		if req.Method != mcp.MethodElicit {
			return fulfil(ctx, key, req)
		}
		if action, again := declined[string(req.Params)]; again {
			msg := ""
			if er, err := req.Elicitation(); err == nil {
				msg = fmt.Sprintf(" (%q)", er.Message)
			}
			return nil, fmt.Errorf("%w: the server asked again for the input%s after it was %s; it needs an answer to go on", ErrDeclined, msg, action)
		}
		raw, err := fulfil(ctx, key, req)
		var resp ElicitResponse
		if err == nil && json.Unmarshal(raw, &resp) == nil && resp.Action != "accept" {
			done := "declined"
			if resp.Action == "cancel" {
				done = "cancelled"
			}
			declined[string(req.Params)] = done
		}
		return raw, err
	}
}

// isHeaderMismatch reports a -32020 answer.
func isHeaderMismatch(err error) bool {
	return errors.Is(mcp.AsModern(err), mcp.ErrHeaderMismatch)
}

// isMRTRBreach reports the server breaking the MRTR rules (as opposed to
// a transport or JSON-RPC error): those are protocol errors.
func isMRTRBreach(err error) bool {
	return errors.Is(err, mcp.ErrTooManyRounds) || errors.Is(err, mcp.ErrBadInputRequired) ||
		errors.Is(err, mcp.ErrUnknownResultType) || errors.Is(err, mcp.ErrBadResult)
}

// fulfil answers one input request of an input_required result or an
// input_required task: elicitation through the Elicitor (the TUI's form,
// the CLI's --elicitation), roots/list with the roots offered to the
// server, sampling as sampling.go says (the caller's responder, else the
// Sampler); a declined sampling request ends the request (ErrDeclined):
// the revision has the client not retry.
func (s *session) fulfil(ctx context.Context, key string, req mcp.InputRequest) (json.RawMessage, error) {
	if req.Method == mcp.MethodSample {
		return s.sample(ctx, responderFrom(ctx), req.Params)
	}
	if raw, handled, err := s.fulfilForCaller(ctx, req); handled {
		return raw, err
	}
	switch req.Method {
	case mcp.MethodElicit:
		e := s.c.elicitor()
		if e == nil {
			return mcp.ElicitDecline(), nil
		}
		er, err := req.Elicitation()
		if err != nil {
			return nil, err
		}
		resp, err := e.Elicit(ctx, ElicitRequest{Server: s.name, Mode: er.Mode, Message: er.Message, RequestedSchema: er.RequestedSchema, URL: er.URL})
		if err != nil {
			return nil, err
		}
		if resp.Action == "accept" && er.Mode == "url" {
			resp.Content = nil // URL mode: accept is consent, nothing more
		}
		return json.Marshal(resp)
	case mcp.MethodListRoots:
		var roots []mcp.Root
		for _, r := range s.c.rootsFor(s.name, s.cfg.Roots) {
			roots = append(roots, mcp.Root{URI: r.URI, Name: r.Name})
		}
		return mcp.RootsResult(roots), nil
	}
	return nil, fmt.Errorf("%w: mcpdeck does not offer %s", ErrUnsupported, req.Method)
}
