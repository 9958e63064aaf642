package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"mcpdeck/jsonrpc/mcphttp"
	"mcpdeck/runtime/mcp"
)

// roundsLink drives a modern tools/call, prompts/get or resources/read
// through its rounds (MRTR): every input_required answer is fulfilled
// (the session's peer part answers: elicitation through the Elicitor,
// roots/list from the roots offered) and retried with a new id, the
// answers and the byte-exact requestState, at most mcp.DefaultMaxRounds
// times. Any other modern request a caller makes must answer complete.
//
// Two failures are retried once on the spot, as the 2026-07-28 Streamable
// HTTP transport says: a request lost with its response stream (re-issued
// with a new id), and a tools/call the server refused with -32020 because
// the tool's x-mcp-header annotations changed (the tools are listed again
// first, so the retry carries the new headers).
func roundsLink(ctx context.Context, s *session, r *request, next sender) (json.RawMessage, error) {
	switch {
	case !s.modern():
		return next(ctx, r)
	case !mrtrMethods[r.method]:
		body, err := next(ctx, r)
		if err == nil && r.forCaller {
			err = mustComplete(r.method, body)
		}
		return body, err
	}
	first, ok := r.wire.(json.RawMessage)
	if !ok {
		var err error
		if first, err = json.Marshal(r.wire); err != nil {
			return nil, fmt.Errorf("encoding the request: %w", err)
		}
	}
	relisted, resent := false, false
	caller := func(ctx context.Context, p json.RawMessage) (json.RawMessage, error) {
		r.wire = p
		for {
			raw, err := next(ctx, r)
			switch {
			case err == nil:
				return raw, nil
			case mcphttp.IsLost(err) && !resent:
				resent = true
				continue
			case isHeaderMismatch(err) && r.method == "tools/call" && s.remote && !relisted:
				relisted = true
				if ls, lerr := s.lists.refetch("tools"); lerr == nil {
					s.c.send(s.ctx, msgListed{name: s.name, gen: s.gen, kind: "tools", lists: ls, leaks: leaks(ls)})
				}
				continue
			}
			return nil, err
		}
	}
	flow := mcp.Flow{Capabilities: s.declaredFor(ctx), MaxRounds: mcp.DefaultMaxRounds}
	raw, _, err := flow.Run(ctx, caller, first, declineOnce(s.peer.fulfil))
	if err != nil && isMRTRBreach(err) {
		err = fmt.Errorf("%w: %w", ErrProtocol, err)
	}
	return raw, err
}

// mustComplete checks that a modern answer to a request that cannot go on
// (not an MRTR method) is complete.
func mustComplete(method string, body json.RawMessage) error {
	t, err := mcp.TypeOf(body, false)
	switch {
	case err != nil:
		return fmt.Errorf("%w: %w", ErrProtocol, err)
	case t != mcp.Complete:
		return fmt.Errorf("%w: %s answered %s, which it cannot", ErrProtocol, method, t)
	}
	return nil
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
