package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
)

// roundLink sends one round trip. A caller's round has a timeout that
// progress extends up to the maximum, and publishes its request events
// (the round number and the first round's id let the Requests view group
// the rounds of one request); it records what the answer asks for next
// (request.next) for the links above. The session's own requests have a
// plain timeout, when they ask for one.
func roundLink(ctx context.Context, s *session, r *request, next sender) (json.RawMessage, error) {
	if !r.forCaller {
		if r.timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, r.timeout)
			defer cancel()
		}
		return next(ctx, r)
	}
	return s.round(ctx, r, next)
}

func (s *session) round(ctx context.Context, r *request, next sender) (json.RawMessage, error) {
	c, ac := s.c, r.active
	n := int(ac.rounds.Add(1))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	hardStop := time.AfterFunc(c.opts.MaxCallTime, func() {
		cancel(fmt.Errorf("%w: still running after the maximum of %s, even with progress", jsonrpc.ErrTimeout, c.opts.MaxCallTime))
	})
	defer hardStop.Stop()
	var mu sync.Mutex
	// The timeout's error is worded when it fires: most calls never time
	// out, and wording it up front cost every call three allocations.
	timer := time.AfterFunc(r.timeout, func() { cancel(fmt.Errorf("%w after %s", jsonrpc.ErrTimeout, r.timeout)) })
	defer func() { mu.Lock(); timer.Stop(); mu.Unlock() }()
	s.inflight.setExtend(ac, func() {
		mu.Lock()
		timer.Reset(r.timeout) // progress proves life: the clock starts again
		mu.Unlock()
	})

	var id uint64
	h := func() EventHeader { return EventHeader{Time: time.Now(), Server: s.name} }
	r.onID = func(n64 uint64) {
		id = n64
		ac.current.Store(id)
		s.inflight.addID(ac, id)
		ac.span.SetRequestID(jsonrpc.FormatID(id))
		c.bus.publish(RequestStarted{EventHeader: h(), ID: id, Method: r.method, Tool: r.label, Round: n, FirstID: ac.first.Load()})
		if r.onStarted != nil {
			r.onStarted(id)
		}
	}
	start := time.Now()
	raw, err := next(ctx, r)
	took := time.Since(start)
	s.intake.completed.Add(1)
	first := ac.first.Load()
	r.next = ""
	var ce *jsonrpc.CancelledError
	switch {
	case errors.As(err, &ce):
		s.intake.errs.Add(1)
		c.bus.publish(RequestCancelled{EventHeader: h(), ID: id, Method: r.method, Tool: r.label, Reason: ce.Reason, Round: n, FirstID: first})
	case err != nil:
		s.intake.errs.Add(1)
		c.bus.publish(RequestFinished{EventHeader: h(), ID: id, Method: r.method, Tool: r.label, Duration: took, Err: err.Error(), Round: n, FirstID: first})
	default:
		ev := RequestFinished{EventHeader: h(), ID: id, Method: r.method, Tool: r.label, Duration: took, Round: n, FirstID: first}
		ev.Continues, ev.Inputs = continuation(raw, s.modern(), r.task && n == 1)
		r.next = ev.Continues
		if ev.Continues == "" {
			ev.IsError = isErrorResult(raw)
			if ev.IsError {
				s.intake.errs.Add(1)
			}
		}
		c.bus.publish(ev)
	}
	return raw, err
}

// isErrorResult reports a tool result with isError: true. Most results
// have no isError at all, and are not decoded to find that out.
func isErrorResult(raw json.RawMessage) bool {
	if !bytes.Contains(raw, []byte(`"isError"`)) {
		return false
	}
	var r mcp.CallToolResult
	_ = json.Unmarshal(raw, &r)
	return r.IsError
}

// continuation says whether a response asks for more (input_required,
// or a task to follow) and, for input_required, what it asks for.
func continuation(raw json.RawMessage, modern, legacyTask bool) (string, []string) {
	if legacyTask {
		if _, ok := legacyTaskOf(raw); ok {
			return string(mcp.TaskResult), nil
		}
		return "", nil
	}
	if !modern {
		return "", nil
	}
	switch t, _ := mcp.TypeOf(raw, true); t {
	case mcp.InputRequired:
		ir, _ := mcp.DecodeInputRequired(raw)
		inputs := make([]string, 0, len(ir.Keys))
		for _, k := range ir.Keys {
			inputs = append(inputs, k+": "+ir.Requests[k].Method)
		}
		return string(t), inputs
	case mcp.TaskResult:
		return string(t), nil
	}
	return "", nil
}
