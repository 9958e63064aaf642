package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// fwdKey names one of the runtime's requests: its server and id.
type fwdKey struct {
	server string
	id     uint64
}

// forward is a runtime request in flight for a client: its progress and
// the attribution of the runtime's outstanding request go to target, the
// client request waiting on it now (nil while a modern client holds an
// input_required answer).
type forward struct {
	// key is the runtime request's newest round; keys are every round's
	// (a modern server's input_required is answered by a retry with a new
	// id), all filed until the request ends. Only the runtime's goroutine
	// running the request writes them, before unregister reads them.
	key    fwdKey
	keys   []fwdKey
	target atomic.Pointer[call]
	// task is set once the call became a task (startTask): its progress
	// then has no request to go to, and becomes the task's status message.
	task atomic.Pointer[task]
}

// target is where a forwarded request goes, resolved from the catalog
// and allowed by the policy.
type target struct {
	server string
	name   string // the bridged name, or the URI
	what   string // for messages: `tool "x__y"`
	// approval, when set, is the rule that makes the call wait for the
	// operator's approval (approval.go).
	approval string
	// run sends the request through the runtime; onStarted learns the
	// runtime's request id (tools/call only).
	run func(ctx context.Context, onStarted func(uint64)) (any, error)
}

// forward serves tools/call, prompts/get, resources/read and
// completion/complete: resolve, check the policy and the concurrency
// limit, then run through the runtime's session. Legacy requests run on
// the request's goroutine; modern ones run as a job that can ask the
// client for input (MRTR) and be resumed by its retry.
func (g *Gateway) forward(ctx context.Context, c *call, cat *catalog, pol *policy) (any, error) {
	if c.env != nil && c.p.State != nil {
		return g.resume(ctx, c, *c.p.State)
	}
	t, err := g.resolve(c, cat, pol)
	if err != nil && isNotOffered(err) {
		// The catalog follows the runtime's publications a moment late:
		// look at the newest one before saying no.
		if fresh := g.refresh(); fresh.generation != cat.generation {
			t, err = g.resolve(c, fresh, pol)
		}
	}
	if err != nil {
		return nil, err
	}
	c.resolved(t.server, t.name)
	if l := g.take(c.cl, pol, c.method, t.name, time.Now()); l != nil {
		return nil, rateLimited(l)
	}
	c.cl.mu.Lock()
	slots := c.cl.slots
	c.cl.mu.Unlock()
	select {
	case slots <- struct{}{}:
	default:
		return nil, rpcError(CodeBusy, runtime.KindRefused, errData{Reason: "busy", Rule: "gateway.maxConcurrent", Limit: cap(slots)},
			"mcpdeck gateway: this client already has %d requests in flight (gateway.maxConcurrent); wait for one to finish", cap(slots))
	}
	release := func() { <-slots }
	if t.approval != "" {
		// The wait holds the slot: a client has at most maxConcurrent
		// calls waiting for the operator.
		if err := g.awaitApproval(ctx, c, t); err != nil {
			release()
			return nil, err
		}
	}
	if legacyTaskRequested(c) {
		return g.startLegacyTask(c, t, release) // legacytasks.go
	}
	if c.env != nil && c.env.caps.Tasks() && c.method == "tools/call" {
		// The client takes a task: a long call, or one whose server asks
		// something, is answered with one (tasks.go).
		return g.startTask(ctx, c, t, release)
	}
	if c.env != nil && (c.env.caps.Elicitation != nil || c.env.caps.Roots != nil || c.env.caps.Sampling != nil) {
		// The server may ask this client something (MRTR): run as a job
		// that can be parked. A request that declared none of them cannot
		// be asked, and runs on its own goroutine like a legacy one.
		return g.startJob(ctx, c, t, release)
	}
	defer release()
	fwd := &forward{}
	fwd.target.Store(c)
	defer g.unregister(fwd)
	return t.run(g.hear(runtime.WithResponder(upstreamCtx(ctx, c), c.cl.responder)), g.register(fwd, c, t.server))
}

// upstreamCtx is the ctx of the runtime request that serves c: the
// client's trace context continues in it, the keys of the client's
// _meta that are its own (not reserved for the protocol) go along to the
// server, and so do its capabilities (callerCtx).
func upstreamCtx(ctx context.Context, c *call) context.Context {
	return runtime.WithRequestMeta(callerCtx(traced(ctx, c.p.Meta), c), c.p.Meta)
}

// callerCtx is ctx declaring to a 2026-07-28 server, on the request that
// serves c, what c's client can be asked (runtime.WithCallerCapabilities):
// the capabilities of its request (modern) or of its initialize
// (legacy), not those of every client the gateway serves.
func callerCtx(ctx context.Context, c *call) context.Context {
	if c.env != nil {
		return runtime.WithCallerCapabilities(ctx, c.env.caps)
	}
	c.cl.mu.Lock()
	caps := c.cl.caps
	c.cl.mu.Unlock()
	return runtime.WithCallerCapabilities(ctx, caps)
}

// isNotOffered reports an error saying the name is not in the catalog.
func isNotOffered(err error) bool {
	var e *jsonrpc.Error
	return errors.As(err, &e) && e.Code == jsonrpc.CodeInvalidParams && strings.Contains(e.Message, "not offered now")
}

// register returns the onStarted of a runtime request: it files the
// request under its runtime id for progress and attribution.
func (g *Gateway) register(fwd *forward, c *call, server string) func(uint64) {
	return func(id uint64) {
		fwd.key = fwdKey{server, id}
		fwd.keys = append(fwd.keys, fwd.key)
		g.mu.Lock()
		g.forwards[fwd.key] = fwd
		g.mu.Unlock()
		if cur := fwd.target.Load(); cur != nil {
			cur.mu.Lock()
			cur.upstream = id
			cur.mu.Unlock()
			g.ev.publish(RequestForwarded{Time: time.Now(), Request: cur.info()})
		}
	}
}

func (g *Gateway) unregister(fwd *forward) {
	if len(fwd.keys) == 0 {
		return
	}
	g.mu.Lock()
	for _, k := range fwd.keys {
		if g.forwards[k] == fwd {
			delete(g.forwards, k)
		}
	}
	g.mu.Unlock()
}

// resolve finds where a forwarded request goes.
func (g *Gateway) resolve(c *call, cat *catalog, pol *policy) (*target, error) {
	timeout := pol.callTimeout()
	switch c.method {
	case "tools/call":
		p := c.p
		if p.Name == "" {
			return nil, invalidParams("tools/call: params need a tool \"name\"")
		}
		tool := cat.toolByName[p.Name]
		if tool == nil && c.declaresUI() {
			tool = cat.appCalled(p.Name) // an app calls its server's tools by their own names
		}
		if tool != nil && !c.declaresUI() && appOnlyTool(tool) {
			tool = nil // not offered to a model's client
		}
		if tool == nil {
			return nil, unknown(runtime.KindUnknownTool,
				"unknown tool %q: it is not offered now (the offer is live; list tools again)", p.Name)
		}
		if ok, rule := pol.tool(tool.Server, tool.Name); !ok {
			return nil, refused("tool", tool.Name, rule)
		}
		if err := withheld(tool); err != nil {
			return nil, err
		}
		what := fmt.Sprintf("tool %q", tool.Name)
		server, name := tool.Server, tool.ServerTool
		_, approval := g.approvalFor(pol, tool)
		return &target{server: server, name: tool.Name, what: what, approval: approval, run: func(ctx context.Context, onStarted func(uint64)) (any, error) {
			// A client that asks for a task has the server asked for one
			// too, where the tool makes it optional.
			res, err := g.rt.Call(ctx, runtime.CallRequest{Server: server, Tool: name, Arguments: p.Arguments, AtMost: timeout, OnStarted: onStarted,
				Task: len(p.Task) > 0})
			return toolResult(server, what, timeout, res, err)
		}}, nil
	case "prompts/get":
		var p mcp.GetPromptParams
		if err := json.Unmarshal(c.params, &p); err != nil || p.Name == "" {
			return nil, invalidParams("prompts/get: params need a prompt \"name\" and string \"arguments\"")
		}
		pr, err := bridgedPrompt(cat, pol, p.Name)
		if err != nil {
			return nil, err
		}
		server, name := pr.Server, pr.Prompt.Name
		return rawTarget(server, pr.Name, fmt.Sprintf("prompt %q", pr.Name), timeout, func(ctx context.Context) (json.RawMessage, error) {
			return g.rt.GetPrompt(ctx, server, name, p.Arguments)
		}), nil
	case "resources/read":
		p := c.p
		if p.URI == "" {
			return nil, invalidParams("resources/read: params need a \"uri\"")
		}
		server, ok := cat.resourceServer(p.URI, pol.allows)
		if !ok {
			return nil, unknown(runtime.KindUnknownResource, "resource %q is not offered now: no server lists it or a template it matches (list resources and templates again)", p.URI)
		}
		return rawTarget(server, p.URI, fmt.Sprintf("resource %q", p.URI), timeout, func(ctx context.Context) (json.RawMessage, error) {
			return g.rt.ReadResource(ctx, server, p.URI)
		}), nil
	case "completion/complete":
		return g.resolveCompletion(c, cat, pol, timeout)
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "mcpdeck's gateway does not forward %s", c.method)
}

// bridgedPrompt is the prompt a client names by its bridged name, when the
// gateway offers it now and the client's policy allows it: prompts/get
// and the completion of a prompt's argument resolve it alike.
func bridgedPrompt(cat *catalog, pol *policy, name string) (*prompt, error) {
	pr := cat.promptBy[name]
	if pr == nil {
		return nil, unknown(runtime.KindUnknownPrompt, "unknown prompt %q: it is not offered now (list prompts again)", name)
	}
	if ok, rule := pol.prompt(pr.Server, pr.Name); !ok {
		return nil, refused("prompt", pr.Name, rule)
	}
	return pr, nil
}

// rawTarget is a request the runtime answers with the server's result as
// it came (prompts/get, resources/read): fetch runs bounded by timeout,
// its failure worded by upstreamError, its result passed on by hopResult.
func rawTarget(server, name, what string, timeout time.Duration, fetch func(ctx context.Context) (json.RawMessage, error)) *target {
	return &target{server: server, name: name, what: what, run: func(ctx context.Context, _ func(uint64)) (any, error) {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		raw, err := fetch(ctx)
		if err != nil {
			return nil, upstreamError(server, what, timeout, err)
		}
		return hopResult(raw), nil
	}}
}

// resolveCompletion maps a completion reference (a bridged prompt name, or
// a resource template) to its server.
func (g *Gateway) resolveCompletion(c *call, cat *catalog, pol *policy, timeout time.Duration) (*target, error) {
	var p mcp.CompleteParams
	if err := json.Unmarshal(c.params, &p); err != nil {
		return nil, invalidParams("completion/complete: %v", err)
	}
	req := runtime.CompleteRequest{Argument: p.Argument.Name, Value: p.Argument.Value}
	if p.Context != nil {
		req.Context = p.Context.Arguments
	}
	var what, name string
	switch p.Ref.Type {
	case mcp.RefPrompt:
		pr, err := bridgedPrompt(cat, pol, p.Ref.Name)
		if err != nil {
			return nil, err
		}
		req.Server, req.Ref.Prompt, what, name = pr.Server, pr.Prompt.Name, fmt.Sprintf("completion of prompt %q", pr.Name), pr.Name
	case mcp.RefResource:
		server, ok := cat.templateServer(p.Ref.URI, pol.allows)
		if !ok {
			return nil, unknown(runtime.KindUnknownResource, "resource template %q is not offered now (list resource templates again)", p.Ref.URI)
		}
		req.Server, req.Ref.Template, what, name = server, p.Ref.URI, fmt.Sprintf("completion of template %q", p.Ref.URI), p.Ref.URI
	default:
		return nil, invalidParams("completion/complete: ref.type must be ref/prompt or ref/resource, not %q", p.Ref.Type)
	}
	return &target{server: req.Server, name: name, what: what, run: func(ctx context.Context, _ func(uint64)) (any, error) {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		raw, err := g.rt.CompleteRaw(ctx, req)
		if errors.Is(err, runtime.ErrUnsupported) {
			return mcp.CompleteResult{Completion: mcp.Completion{Values: []string{}}}, nil
		}
		if err != nil {
			return nil, upstreamError(req.Server, what, timeout, err)
		}
		return hopResult(withValues(raw)), nil
	}}, nil
}

// withValues is a completion result as the server sent it (hasMore false
// and a total of 0 are answers a client pages on), but for a missing or
// null completion.values, which becomes [] so that a client can read it.
func withValues(raw json.RawMessage) json.RawMessage {
	var res map[string]json.RawMessage
	var comp map[string]json.RawMessage
	if json.Unmarshal(raw, &res) != nil || json.Unmarshal(res["completion"], &comp) != nil {
		return raw
	}
	if v, ok := comp["values"]; ok && string(v) != "null" {
		return raw
	}
	if comp == nil {
		comp = map[string]json.RawMessage{}
	}
	comp["values"] = json.RawMessage("[]")
	var err error
	if res["completion"], err = json.Marshal(comp); err != nil {
		return raw
	}
	out, err := json.Marshal(res)
	if err != nil {
		return raw
	}
	return out
}

// callResult is a tools/call result as the gateway answers it; resultType
// is set for a modern client. Extra are the server's own top-level
// members (runtime.Result.Extra), written after the specification's as
// the server sent them: a host behind the gateway sees what `call --json`
// shows.
type callResult struct {
	mcp.CallToolResult
	Extra []jsonrpc.RawMember
}

// MarshalJSON writes the result's members, then Extra's.
func (r callResult) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(r.CallToolResult)
	if err != nil {
		return nil, err
	}
	return jsonrpc.AppendMembers(b, r.Extra)
}

// toolResult turns the runtime's answer into the client's: a result
// (isError, content annotations and _meta included), a tool-level error
// for arguments that fail the input schema (so a model can correct them),
// or a JSON-RPC error.
func toolResult(server, what string, timeout time.Duration, res *runtime.Result, err error) (any, error) {
	var argErr *runtime.ArgumentsError
	switch {
	case errors.As(err, &argErr):
		lines := make([]string, len(argErr.Fields))
		for i, f := range argErr.Fields {
			lines[i] = f.String()
		}
		return callResult{CallToolResult: mcp.CallToolResult{IsError: true, Content: []mcp.Content{{Type: mcp.ContentText,
			Text: "invalid arguments for " + what + " (checked against its inputSchema):\n" + strings.Join(lines, "\n")}}}}, nil
	case err != nil:
		return nil, upstreamError(server, what, timeout, err)
	}
	content := res.Content
	if content == nil {
		content = []mcp.Content{}
	}
	return callResult{CallToolResult: mcp.CallToolResult{Content: content, StructuredContent: res.StructuredContent, IsError: res.IsError, Meta: hopMeta(res.Meta)}, Extra: res.Extra}, nil
}

// hopMeta is a server result's _meta as the gateway passes it on: the
// server's own keys as it sent them (an MCP App's viewUUID), without the
// keys the protocol reserves, which describe the hop between mcpdeck and
// the server (its serverInfo, a task mcpdeck followed). A modern answer
// gets the gateway's own serverInfo instead (modernResult).
func hopMeta(meta json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if !mcp.HasMeta(meta) || json.Unmarshal(meta, &m) != nil {
		return nil
	}
	n := len(m)
	maps.DeleteFunc(m, func(k string, _ json.RawMessage) bool { return mcp.ReservedMetaKey(k) })
	switch len(m) {
	case 0:
		return nil
	case n:
		return meta // nothing reserved: as the server sent it
	}
	out, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return out
}

// hopResult is a server's raw result (prompts/get, resources/read) with
// its _meta passed on as hopMeta says; a result without reserved _meta
// keys is passed on byte for byte.
func hopResult(raw json.RawMessage) json.RawMessage {
	meta := mcp.MetaOf(raw)
	if meta == nil {
		return raw
	}
	kept := hopMeta(meta)
	if bytes.Equal(kept, meta) {
		return raw
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return raw
	}
	if kept == nil {
		delete(fields, "_meta")
	} else {
		fields["_meta"] = kept
	}
	out, err := json.Marshal(fields)
	if err != nil {
		return raw
	}
	return out
}

// hear makes the runtime hand the progress of the request made with ctx
// to g.progress as the server's notifications are taken in: in wire
// order, before the request's answer returns (runtime.WithProgress). The
// event bus would hand it over later, often after the answer had gone.
func (g *Gateway) hear(ctx context.Context) context.Context {
	return runtime.WithProgress(ctx, g.progress)
}

// progress forwards a server's progress to the client request it serves,
// under the client's own progress token. It only queues the send on the
// client's outbox: it runs where the server's notifications are taken in.
func (g *Gateway) progress(e runtime.Progress) {
	if e.RequestID == 0 {
		return
	}
	g.mu.Lock()
	f := g.forwards[fwdKey{e.Server, e.RequestID}]
	g.mu.Unlock()
	if f == nil {
		return
	}
	c := f.target.Load()
	if c == nil {
		if tk := f.task.Load(); tk != nil {
			tk.progressed(e)
		}
		return
	}
	if c.token == nil {
		return
	}
	p := map[string]any{"progressToken": c.token, "progress": e.Progress}
	if e.Total > 0 {
		p["total"] = e.Total
	}
	if e.Message != "" {
		p["message"] = e.Message
	}
	c.relate("notifications/progress", p)
}

// logMessage forwards a server's log message: to every initialized legacy
// client at or above its level, and to every modern request in flight to
// that server that asked for logs at or below it. Clients that may not
// reach the server get nothing.
func (g *Gateway) logMessage(e runtime.LogMessage) {
	rank := mcp.LevelRank(e.Level)
	logger := e.Server
	switch {
	case g.catalog().own != nil:
		logger = e.Logger // the server's own words, as it sent them
	case e.Logger != "":
		logger += "/" + e.Logger
	}
	var data any
	if len(e.Data) > 0 {
		data = e.Data
	}
	params := map[string]any{"level": e.Level, "data": data}
	if logger != "" {
		params["logger"] = logger // optional: a transparent server's may have none
	}
	for _, cl := range g.clientList() {
		if !cl.policy().allows(e.Server) {
			continue
		}
		if level, ok := cl.legacySession(); ok && rank >= level {
			cl.notify("notifications/message", params)
		}
		for _, c := range cl.inflightOn(e.Server) {
			if c.env != nil && c.env.logLevel != "" && rank >= mcp.LevelRank(c.env.logLevel) {
				c.relate("notifications/message", params)
			}
		}
	}
}

// clientList returns the attached clients.
func (g *Gateway) clientList() []*client {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.clientListLocked()
}

// clientListLocked is clientList for a caller that holds mu.
func (g *Gateway) clientListLocked() []*client {
	return slices.Collect(maps.Values(g.clients))
}
