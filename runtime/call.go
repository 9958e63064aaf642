package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"mcpdeck/jsonrpc"
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
	raw, id, err := sess.call(ctx, c, "tools/call", tool.ServerTool, map[string]any{"name": tool.ServerTool, "arguments": args}, timeout, req.OnStarted)
	if err != nil {
		ce := callError(req.Server, "tools/call", err)
		ce.Info.Message = sess.redact.str(ce.Info.Message)
		return nil, ce
	}
	res, err := decodeResult(raw.body, c.opts.ResultLimit, tool.OutputSchema)
	if err != nil {
		return nil, callError(req.Server, "tools/call", err)
	}
	res.RequestID, res.Duration = id, raw.took
	return res, nil
}

type rawResult struct {
	body json.RawMessage
	took time.Duration
}

// call sends a request with a progress token, a timeout that progress
// extends up to the maximum, and request events.
func (s *session) call(ctx context.Context, c *Controller, method, tool string, params map[string]any, timeout time.Duration, onStarted func(uint64)) (rawResult, uint64, error) {
	token := "mcpdeck-" + strconv.FormatUint(c.progressID.Add(1), 10)
	meta := map[string]any{"progressToken": token}
	params["_meta"] = meta
	target := tool
	if target == "" {
		target, _ = params["uri"].(string)
	}
	if target == "" {
		target, _ = params["name"].(string)
	}
	ctx, span := s.startSpan(ctx, method, target, meta)

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	start := time.Now()
	hardStop := time.AfterFunc(c.opts.MaxCallTime, func() {
		cancel(fmt.Errorf("%w: still running after the maximum of %s, even with progress", jsonrpc.ErrTimeout, c.opts.MaxCallTime))
	})
	defer hardStop.Stop()
	timeoutErr := fmt.Errorf("%w after %s", jsonrpc.ErrTimeout, timeout)
	var mu sync.Mutex
	timer := time.AfterFunc(timeout, func() { cancel(timeoutErr) })
	defer func() { mu.Lock(); timer.Stop(); mu.Unlock() }()

	cs := &callState{tool: tool, span: span, responder: responderFrom(ctx), extend: func() {
		mu.Lock()
		timer.Reset(timeout) // progress proves life: the clock starts again
		mu.Unlock()
	}}
	s.mu.Lock()
	s.calls[token] = cs
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.calls, token)
		s.mu.Unlock()
	}()

	h := func() EventHeader { return EventHeader{Time: time.Now(), Server: s.name} }
	raw, err := s.conn.Call(ctx, method, params, jsonrpc.WithLabel(tool), jsonrpc.WithIDFunc(func(id uint64) {
		cs.id.Store(id)
		span.SetRequestID(jsonrpc.FormatID(id))
		c.bus.publish(RequestStarted{EventHeader: h(), ID: id, Method: method, Tool: tool})
		if onStarted != nil {
			onStarted(id)
		}
	}))
	id := cs.id.Load()
	took := time.Since(start)
	s.completed.Add(1)
	var ce *jsonrpc.CancelledError
	switch {
	case errors.As(err, &ce):
		s.errs.Add(1)
		span.Cancelled(ce.Reason)
		span.End(err, errorType(err, false))
		c.bus.publish(RequestCancelled{EventHeader: h(), ID: id, Method: method, Tool: tool, Reason: ce.Reason})
	case err != nil:
		s.errs.Add(1)
		span.End(err, errorType(err, false))
		c.bus.publish(RequestFinished{EventHeader: h(), ID: id, Method: method, Tool: tool, Duration: took, Err: s.redact.str(err.Error())})
	default:
		var isErr struct {
			IsError bool `json:"isError"`
		}
		_ = json.Unmarshal(raw, &isErr)
		if isErr.IsError {
			s.errs.Add(1)
		}
		span.End(nil, errorType(nil, isErr.IsError))
		c.bus.publish(RequestFinished{EventHeader: h(), ID: id, Method: method, Tool: tool, Duration: took, IsError: isErr.IsError})
	}
	return rawResult{body: raw, took: took}, id, err
}

// Cancel cancels an outstanding request of a server; the server is sent
// notifications/cancelled with reason. It reports whether the request was
// outstanding.
func (c *Controller) Cancel(server string, id uint64, reason string) bool {
	pub := c.pub.Load()
	sess := pub.live[server]
	if sess == nil {
		return false
	}
	if reason == "" {
		reason = "cancelled by the user"
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
	raw, _, err := s.call(ctx, c, method, "", params, s.cfg.CallTimeout, nil)
	if err != nil {
		ce := callError(s.name, method, err)
		ce.Info.Message = s.redact.str(ce.Info.Message)
		return nil, ce
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
