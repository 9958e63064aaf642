package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
	"mcpdeck/runtime/telemetry"
)

// resolve finds a published server and its session for a request.
func (c *Controller) resolve(server string) (*session, ServerSnapshot, error) {
	pub := c.pub.Load()
	v, ok := pub.snap.Server(server)
	switch {
	case !ok:
		return nil, v, fmt.Errorf("%w %q (configured: %s)", ErrUnknownServer, server, serverNames(pub.snap))
	case !pub.snap.Enabled:
		return nil, v, fmt.Errorf("%q: %w", server, ErrNotEnabled)
	}
	sess := pub.published[server]
	if sess == nil {
		reason := v.State.String()
		if v.Reason != "" {
			reason += ": " + v.Reason
		}
		return nil, v, fmt.Errorf("%q: %w (%s)", server, ErrNotReady, reason)
	}
	return sess, v, nil
}

func serverNames(s *Snapshot) string {
	if len(s.Servers) == 0 {
		return "none"
	}
	out := ""
	for i, v := range s.Servers {
		if i > 0 {
			out += ", "
		}
		out += v.Name
	}
	return out
}

// Call invokes a tool. The arguments are validated against the tool's
// input schema first (unless NoValidate). The timeout is the server's call
// timeout unless req.Timeout is set; progress notifications extend it, up to
// MaxCallTime. A result with isError is a *Result, not an error; errors are
// *CallError or *ArgumentsError.
//
// Every call that names a known tool is kept in the History, whatever its
// outcome.
func (c *Controller) Call(ctx context.Context, req CallRequest) (*Result, error) {
	started := time.Now()
	res, tool, err := c.call(ctx, req)
	if tool != "" {
		c.record(req, tool, started, res, err)
	}
	return res, err
}

// call is Call without the history; tool is the server's name of the tool
// once it was found.
func (c *Controller) call(ctx context.Context, req CallRequest) (res *Result, tool string, err error) {
	sess, v, err := c.resolve(req.Server)
	if err != nil {
		return nil, "", callError(req.Server, "tools/call", err)
	}
	t, err := c.findTool(v, req)
	if err != nil {
		return nil, "", err
	}
	res, err = c.callTool(ctx, sess, t, req)
	return res, t.ServerTool, err
}

func (c *Controller) findTool(v ServerSnapshot, req CallRequest) (*Tool, error) {
	var tool *Tool
	for i := range v.Tools {
		if v.Tools[i].ServerTool == req.Tool || v.Tools[i].Name == req.Tool {
			tool = &v.Tools[i]
			break
		}
	}
	if tool == nil {
		err := fmt.Errorf("%w %q on server %q", ErrUnknownTool, req.Tool, req.Server)
		return nil, callError(req.Server, "tools/call", err)
	}
	return tool, nil
}

func (c *Controller) callTool(ctx context.Context, sess *session, tool *Tool, req CallRequest) (*Result, error) {
	args := req.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if !req.NoValidate {
		fields, err := ValidateArguments(tool.InputSchema, args)
		if err != nil {
			fields = []FieldError{{Message: "the tool's input schema does not compile: " + err.Error()}}
		}
		if len(fields) > 0 {
			return nil, &ArgumentsError{Server: req.Server, Tool: tool.ServerTool, Fields: fields}
		}
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = sess.cfg.CallTimeout
	}
	o := callOpts{method: "tools/call", tool: tool.ServerTool, timeout: timeout, total: req.Timeout, onStarted: req.OnStarted,
		task: sess.legacyTasks() && (tool.TaskSupport == "required" || (tool.TaskSupport == "optional" && req.Task))}
	raw, err := sess.call(ctx, o, map[string]any{"name": tool.ServerTool, "arguments": args})
	if err != nil {
		return nil, callError(req.Server, "tools/call", err)
	}
	res, err := decodeResult(raw.body, c.opts.ResultLimit, tool.OutputSchema)
	if err != nil {
		return nil, callError(req.Server, "tools/call", err)
	}
	res.RequestID, res.Duration, res.Rounds, res.TaskID = raw.id, raw.took, raw.rounds, raw.task
	return res, nil
}

// callOpts say how to drive one request.
type callOpts struct {
	method, tool string
	timeout      time.Duration // per round trip; progress extends it
	// total, when set (CallRequest.Timeout), bounds the whole call, a task
	// it runs as included; see taskDeadline.
	total     time.Duration
	onStarted func(uint64) // told each round's id
	task      bool         // legacy: augment the request with a task (2025-11-25)
}

// rawResult is a request's final result and how it got there.
type rawResult struct {
	body   json.RawMessage
	took   time.Duration
	id     uint64 // the first round's id: the request's row
	rounds int    // round trips of the request itself (MRTR retries count)
	task   string // the task that produced the result, if one did
}

// mrtrMethods are the requests that may answer input_required.
var mrtrMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

// call drives one request to its end: a round trip; in the modern era the
// rounds of a multi round-trip request (input_required, answered and
// retried); a task (either era) followed to its terminal state. Cancelling
// ctx, or Controller.Cancel with any of its ids, cancels it on the wire
// (notifications/cancelled, or tasks/cancel for a task).
func (s *session) call(ctx context.Context, o callOpts, params map[string]any) (rawResult, error) {
	target := o.tool
	if target == "" {
		target, _ = params["uri"].(string)
	}
	if target == "" {
		target, _ = params["name"].(string)
	}
	// The span covers the whole request, every round and poll; its trace
	// context goes into each request's _meta, with the keys a caller asked
	// to pass on (WithRequestMeta).
	trace := map[string]any{}
	ctx, span := s.startSpan(ctx, o.method, target, trace)
	addRequestMeta(ctx, trace)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ac := s.active.add(o, cancel)
	defer s.active.remove(ac)

	token := "mcpdeck-" + strconv.FormatUint(s.c.progressID.Add(1), 10)
	cs := &callState{tool: o.tool, span: span, responder: responderFrom(ctx)}
	s.mu.Lock()
	s.calls[token] = cs
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.calls, token)
		s.mu.Unlock()
	}()

	start := time.Now()
	var body json.RawMessage
	var err error
	var task string
	switch {
	case s.modern() && mrtrMethods[o.method]:
		var t mcp.ResultType
		body, t, err = s.mrtr(ctx, o, s.wire(params, token, trace), cs, ac)
		if err == nil && t == mcp.TaskResult {
			tctx, stop := s.taskDeadline(ctx, o, cs)
			body, task, err = s.modernTask(tctx, o, body, ac)
			stop()
		}
	case o.task:
		params["task"] = map[string]any{}
		if body, err = s.round(ctx, o, s.wire(params, token, trace), cs, ac); err == nil {
			tctx, stop := s.taskDeadline(ctx, o, cs)
			body, task, err = s.legacyTask(tctx, o, body, ac)
			stop()
		}
	default:
		body, err = s.round(ctx, o, s.wire(params, token, trace), cs, ac)
		if err == nil && s.modern() {
			if t, terr := mcp.TypeOf(body, false); terr != nil {
				err = fmt.Errorf("%w: %w", ErrProtocol, terr)
			} else if t != mcp.Complete {
				err = fmt.Errorf("%w: %s answered %s, which it cannot", ErrProtocol, o.method, t)
			}
		}
	}
	endSpan(span, body, err)
	return rawResult{body: body, took: time.Since(start), id: ac.first.Load(), rounds: int(ac.rounds.Load()), task: task}, err
}

// taskDeadline bounds the task a call follows by the call's own timeout
// when one was asked for (CallRequest.Timeout, call --timeout): as for any
// call, the task is given up on (and cancelled with tasks/cancel) after
// that long without progress; a progress notification starts the clock
// again. Without one, each of the task's requests has the server's call
// timeout and the task as a whole MaxCallTime: tasks are for work that
// takes long.
func (s *session) taskDeadline(ctx context.Context, o callOpts, cs *callState) (context.Context, func()) {
	if o.total <= 0 {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	expired := fmt.Errorf("%w after %s without progress (the call's timeout, which covers its task)", jsonrpc.ErrTimeout, o.total)
	var mu sync.Mutex
	timer := time.AfterFunc(o.total, func() { cancel(expired) })
	s.mu.Lock()
	cs.extend = func() {
		mu.Lock()
		timer.Reset(o.total)
		mu.Unlock()
	}
	s.mu.Unlock()
	return ctx, func() {
		mu.Lock()
		timer.Stop()
		mu.Unlock()
		cancel(nil)
	}
}

// endSpan ends a request's span with its outcome.
func endSpan(span *telemetry.Span, body json.RawMessage, err error) {
	if span == nil {
		return // telemetry is off: no need to read the result again
	}
	var ce *jsonrpc.CancelledError
	switch {
	case errors.As(err, &ce):
		span.Cancelled(ce.Reason)
		span.End(err, errorType(err, false))
	case err != nil:
		span.End(err, errorType(err, false))
	default:
		span.End(nil, errorType(nil, isErrorResult(body)))
	}
}

// round sends one request with a timeout that progress extends up to the
// maximum, and publishes its request events (the round number and the
// first round's id let the Requests view group the rounds of one request).
func (s *session) round(ctx context.Context, o callOpts, params any, cs *callState, ac *activeCall) (json.RawMessage, error) {
	c := s.c
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
	timer := time.AfterFunc(o.timeout, func() { cancel(fmt.Errorf("%w after %s", jsonrpc.ErrTimeout, o.timeout)) })
	defer func() { mu.Lock(); timer.Stop(); mu.Unlock() }()
	s.mu.Lock()
	cs.extend = func() {
		mu.Lock()
		timer.Reset(o.timeout) // progress proves life: the clock starts again
		mu.Unlock()
	}
	s.mu.Unlock()

	var id uint64
	h := func() EventHeader { return EventHeader{Time: time.Now(), Server: s.name} }
	start := time.Now()
	raw, err := s.conn.Call(ctx, o.method, params, jsonrpc.WithLabel(o.tool), jsonrpc.WithIDFunc(func(n64 uint64) {
		id = n64
		cs.id.Store(id)
		ac.addID(&s.active, id)
		cs.span.SetRequestID(jsonrpc.FormatID(id))
		c.bus.publish(RequestStarted{EventHeader: h(), ID: id, Method: o.method, Tool: o.tool, Round: n, FirstID: ac.first.Load()})
		if o.onStarted != nil {
			o.onStarted(id)
		}
	}))
	took := time.Since(start)
	s.completed.Add(1)
	first := ac.first.Load()
	var ce *jsonrpc.CancelledError
	switch {
	case errors.As(err, &ce):
		s.errs.Add(1)
		c.bus.publish(RequestCancelled{EventHeader: h(), ID: id, Method: o.method, Tool: o.tool, Reason: ce.Reason, Round: n, FirstID: first})
	case err != nil:
		s.errs.Add(1)
		c.bus.publish(RequestFinished{EventHeader: h(), ID: id, Method: o.method, Tool: o.tool, Duration: took, Err: err.Error(), Round: n, FirstID: first})
	default:
		ev := RequestFinished{EventHeader: h(), ID: id, Method: o.method, Tool: o.tool, Duration: took, Round: n, FirstID: first}
		ev.Continues, ev.Inputs = continuation(raw, s.modern(), o.task && n == 1)
		if ev.Continues == "" {
			ev.IsError = isErrorResult(raw)
			if ev.IsError {
				s.errs.Add(1)
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

// Cancel cancels an outstanding request of a server: a tool call (any of
// its round ids, or a task it is following) or any other request. The
// server is told (notifications/cancelled with reason, or tasks/cancel for
// a task). It reports whether the request was outstanding.
func (c *Controller) Cancel(server string, id uint64, reason string) bool {
	pub := c.pub.Load()
	sess := pub.live[server]
	if sess == nil {
		return false
	}
	if reason == "" {
		reason = "cancelled by the user"
	}
	if sess.active.cancel(id, reason) {
		return true
	}
	return sess.conn.Cancel(id, reason)
}

// Request sends any request to a ready server and returns the raw result:
// prompts/get, resources/read and the like.
func (c *Controller) Request(ctx context.Context, server, method string, params map[string]any) (json.RawMessage, error) {
	sess, _, err := c.resolve(server)
	if err != nil {
		return nil, callError(server, method, err)
	}
	return sess.request(ctx, c, method, params)
}

// request sends a request with the server's call timeout and returns the
// raw result, or a *CallError.
func (s *session) request(ctx context.Context, c *Controller, method string, params map[string]any) (json.RawMessage, error) {
	if params == nil {
		params = map[string]any{}
	}
	raw, err := s.call(ctx, callOpts{method: method, timeout: s.cfg.CallTimeout}, params)
	if err != nil {
		return nil, callError(s.name, method, err)
	}
	return raw.body, nil
}

// GetPrompt gets a prompt with arguments.
func (c *Controller) GetPrompt(ctx context.Context, server, name string, args map[string]string) (json.RawMessage, error) {
	return c.Request(ctx, server, "prompts/get", map[string]any{"name": name, "arguments": args})
}

// ReadResource reads a resource.
func (c *Controller) ReadResource(ctx context.Context, server, uri string) (json.RawMessage, error) {
	return c.Request(ctx, server, "resources/read", map[string]any{"uri": uri})
}

// Ping sends a ready server one health probe, as the health checks do:
// ping, or server/discover on a modern server (2026-07-28 has no ping). It
// returns the method used and the round trip.
func (c *Controller) Ping(ctx context.Context, server string) (string, time.Duration, error) {
	sess, _, err := c.resolve(server)
	if err != nil {
		return "", 0, callError(server, "ping", err)
	}
	method := sess.healthMethod()
	start := time.Now()
	if err := sess.healthCheck(ctx); err != nil {
		return method, time.Since(start), callError(server, method, err)
	}
	return method, time.Since(start), nil
}
