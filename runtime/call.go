package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
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
	if t.Disabled {
		return nil, t.ServerTool, switchedOff(req.Server, t)
	}
	res, err = c.callTool(ctx, sess, t, req)
	return res, t.ServerTool, err
}

func (c *Controller) findTool(v ServerSnapshot, req CallRequest) (*Tool, error) {
	tool, ok := LookupTool(v.Tools, req.Tool)
	if !ok {
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
		// A schema that does not compile is the server's fault, not the
		// arguments': asking the caller (a person, or a model through the
		// gateway) to fix them would send them round in circles.
		if serr := tool.InputSchemaError(); serr != nil {
			return nil, inputSchemaRefused(req.Server, tool, serr)
		}
		fields, err := ValidateArguments(tool.InputSchema, args)
		if err != nil {
			return nil, callError(req.Server, "tools/call", err)
		}
		if len(fields) > 0 {
			return nil, &ArgumentsError{Server: req.Server, Tool: tool.ServerTool, Fields: fields, Example: ExampleArguments(tool.InputSchema)}
		}
	}
	timeout, total := req.Timeout, req.Timeout
	if timeout <= 0 {
		timeout = sess.cfg.CallTimeout
	}
	if req.AtMost > 0 {
		timeout = min(timeout, req.AtMost)
		total = timeout
	}
	params := map[string]any{"name": tool.ServerTool, "arguments": args}
	r := &request{method: "tools/call", params: params, label: tool.ServerTool, timeout: timeout, total: total, onStarted: req.OnStarted}
	if sess.legacyTasks() && (tool.TaskSupport == "required" || (tool.TaskSupport == "optional" && req.Task)) {
		r.task, params["task"] = true, map[string]any{} // a 2025-11-25 task-augmented call
	}
	raw, err := sess.ask(ctx, r)
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
	if sess.inflight.cancel(id, reason) {
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
	raw, err := s.ask(ctx, &request{method: method, params: params, timeout: s.cfg.CallTimeout})
	if err != nil {
		return nil, callError(s.name, method, err)
	}
	return raw.body, nil
}

// GetPrompt gets a prompt with arguments. Nil arguments are left out of
// the request: "arguments" is an object or absent, never null.
func (c *Controller) GetPrompt(ctx context.Context, server, name string, args map[string]string) (json.RawMessage, error) {
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	return c.Request(ctx, server, "prompts/get", params)
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
	method := sess.health.method()
	start := time.Now()
	if err := sess.health.check(ctx); err != nil {
		return method, time.Since(start), callError(server, method, err)
	}
	return method, time.Since(start), nil
}
