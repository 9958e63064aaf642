package gateway

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// gatewayCapabilities is what the gateway offers every client, whatever
// the servers behind it offer today: the offer is live, so the lists may
// fill later.
var gatewayCapabilities = mcp.ServerCapabilities{
	Tools:       &mcp.ListChangedCapability{ListChanged: true},
	Prompts:     &mcp.ListChangedCapability{ListChanged: true},
	Resources:   &mcp.ResourcesCapability{Subscribe: true, ListChanged: true},
	Logging:     &mcp.Empty{},
	Completions: &mcp.Empty{},
}

// modernCapabilities are what server/discover says: the same, and the
// tasks extension (tasks.go), which 2026-07-28 clients may declare.
var modernCapabilities = func() mcp.ServerCapabilities {
	c := gatewayCapabilities
	c.Extensions = map[string]json.RawMessage{mcp.ExtensionTasks: json.RawMessage(`{}`)}
	return c
}()

// legacyCapabilities are what initialize says: the same, and the
// 2025-11-25 tasks of tools/call (legacytasks.go).
var legacyCapabilities = func() mcp.ServerCapabilities {
	c := gatewayCapabilities
	c.LegacyTasks = &mcp.TasksCapability{List: &mcp.Empty{}, Cancel: &mcp.Empty{}}
	_ = json.Unmarshal([]byte(`{"tools":{"call":{}}}`), &c.LegacyTasks.Requests)
	return c
}()

// modernOnly and legacyOnly are the methods of one era.
var (
	modernOnly = []string{mcp.MethodDiscover, mcp.MethodListen, mcp.MethodTasksUpdate}
	legacyOnly = []string{"initialize", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", methodTasksResult, methodTasksList}
	// forwarded methods go to a server: they wait for Ready, count against
	// the concurrency limit and answer on a stream (HTTP).
	forwarded = []string{"tools/call", "prompts/get", "resources/read", "completion/complete"}
)

// handshakeWait bounds how long initialize and server/discover wait for
// the first enable (Options.Ready).
const handshakeWait = 10 * time.Second

// knownMethod reports whether the gateway serves method (HTTP answers 404
// to the others).
func knownMethod(method string) bool {
	switch method {
	case "ping", "tools/list", "prompts/list", "resources/list", "resources/templates/list", mcp.MethodTasksGet, mcp.MethodTasksCancel:
		return true // tasks/get and tasks/cancel: both eras
	}
	return slices.Contains(modernOnly, method) || slices.Contains(legacyOnly, method) || slices.Contains(forwarded, method)
}

// streams reports whether a method's answer may be preceded by related
// messages (progress, logs, elicitation), so HTTP answers it with SSE.
func streams(method string) bool {
	return slices.Contains(forwarded, method) || method == mcp.MethodListen || method == methodTasksResult
}

// handle serves one request of a client. ctx ends when the client cancels
// the request or goes away; notify sends notifications related to it.
func (g *Gateway) handle(ctx context.Context, cl *client, req *jsonrpc.Request, notify func(context.Context, string, any) error) (any, error) {
	// ctx also ends when the client detaches: detaching closes the
	// client's connection, which cancels the requests it is serving.
	c := &call{cl: cl, ctx: ctx, id: req.ID, method: req.Method, params: req.Params, notify: notify, started: time.Now()}
	// Close waits for the requests being handled, so that a request
	// cancelled by the shutdown ends (the server told) before the caller
	// stops the runtime under it. None is counted once Close has begun.
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil, rpcError(CodeUnavailable, runtime.KindShutdown, errData{Reason: "shutdown"}, "the mcpdeck gateway is shutting down; reconnect once it is back")
	}
	g.wg.Add(1)
	g.mu.Unlock()
	defer g.wg.Done()
	var err error
	if len(req.Params) > 0 && json.Unmarshal(req.Params, &c.p) != nil {
		err = invalidParams("%s: params must be a JSON object", req.Method)
	}
	if err == nil {
		c.env, c.token, err = cl.envelope(c.p.Meta)
	}
	c.srv, c.name = g.peek(c)
	cl.begin(c)
	var res any
	if err == nil {
		res, err = g.dispatch(ctx, c)
	}
	if err != nil && c.env == nil {
		err = cl.urlElicitationsRequired(c.server(), err)
	}
	if streams(c.method) {
		// What was queued for this request before its answer (its last
		// progress) goes out before the answer, not dropped after it.
		cl.out.flush(ctx)
	}
	cl.end(c, err)
	g.opts.Audit.record(c, res, err, time.Now())
	if err != nil {
		return nil, err
	}
	return res, nil
}

// mergeCancel returns a ctx that ends when either parent ends.
func mergeCancel(a, b context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(a)
	stop := context.AfterFunc(b, func() { cancel(context.Cause(b)) })
	return ctx, func() { stop(); cancel(nil) }
}

func (g *Gateway) dispatch(ctx context.Context, c *call) (any, error) {
	modern := c.env != nil
	switch {
	case modern && slices.Contains(legacyOnly, c.method):
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "%s is not part of protocol revision %s", c.method, c.env.version)
	case !modern && slices.Contains(modernOnly, c.method):
		return nil, invalidParams("%s is a 2026-07-28 request: its _meta must carry %q and %q", c.method, mcp.MetaProtocolVersion, mcp.MetaClientCapabilities)
	case modern:
		c.cl.identify(c.env.info, mcp.Modern, c.env.version)
	case c.method != "initialize" && !c.cl.isInitialized():
		return nil, invalidParams("no session: send initialize first, or a 2026-07-28 request with _meta[%q]", mcp.MetaProtocolVersion)
	}
	switch {
	case slices.Contains(forwarded, c.method) || c.method == "tools/list" || c.method == "prompts/list" ||
		c.method == "resources/list" || c.method == "resources/templates/list":
		if err := g.waitReady(ctx); err != nil {
			return nil, err
		}
	case c.method == "initialize" || c.method == mcp.MethodDiscover:
		// Their instructions describe the servers; wait a little for them,
		// not so long that a client gives up on the handshake.
		wctx, cancel := context.WithTimeout(ctx, handshakeWait)
		_ = g.waitReady(wctx)
		cancel()
	}
	res, cacheable, err := g.method(ctx, c)
	if err != nil {
		return res, err
	}
	if !modern {
		return legacyResult(res), nil
	}
	if _, ok := res.(inputRequired); ok {
		cacheable = false // an input_required answer is never cached
	}
	return g.modernResult(res, cacheable)
}

// method runs the method's handler; cacheable says whether a modern
// answer carries ttlMs and cacheScope.
func (g *Gateway) method(ctx context.Context, c *call) (res any, cacheable bool, err error) {
	cat := g.catalog()
	switch c.method {
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list", "initialize", mcp.MethodDiscover:
		// Rare, and right after a change in the runtime they must not
		// answer from a catalog the event pump has not updated yet.
		cat = g.refresh()
	}
	pol := c.cl.policy()
	switch c.method {
	case "initialize":
		res, err = g.initialize(c, cat, pol)
	case mcp.MethodDiscover:
		res = mcp.DiscoverResult{SupportedVersions: mcp.Versions(), Capabilities: cat.offered(true), Instructions: cat.instructions(pol)}
		cacheable = true
	case "ping":
		res = struct{}{}
	case "tools/list":
		res, err = listResult(c, "tools", offeredTools(c, cat.toolsFor(pol)))
		cacheable = true
	case "prompts/list":
		res, err = listResult(c, "prompts", cat.promptsFor(pol))
		cacheable = true
	case "resources/list":
		res, err = listResult(c, "resources", cat.resourcesFor(pol))
		cacheable = true
	case "resources/templates/list":
		res, err = listResult(c, "resourceTemplates", cat.templatesFor(pol))
		cacheable = true
	case "logging/setLevel":
		err = g.setLevel(c)
		res = struct{}{}
	case "resources/subscribe", "resources/unsubscribe":
		err = g.subscribe(ctx, c, cat, pol, c.method == "resources/subscribe")
		res = struct{}{}
	case mcp.MethodListen:
		res, err = g.listen(ctx, c, cat, pol)
	case mcp.MethodTasksGet, mcp.MethodTasksUpdate, mcp.MethodTasksCancel, methodTasksResult, methodTasksList:
		if c.env == nil {
			res, err = g.legacyTaskMethod(ctx, c)
		} else {
			res, err = g.taskMethod(c)
		}
	case "tools/call", "prompts/get", "resources/read", "completion/complete":
		res, err = g.forward(ctx, c, cat, pol)
		cacheable = c.method == "resources/read"
	default:
		err = jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "mcpdeck's gateway does not serve %s", c.method)
	}
	return res, cacheable, err
}

// listResult answers a list request: everything in one page (the offer is
// live and small); a cursor, which the gateway never hands out, is invalid.
func listResult[T any](c *call, key string, items []T) (any, error) {
	var p mcp.ListParams
	if len(c.params) > 0 && json.Unmarshal(c.params, &p) != nil {
		return nil, invalidParams("%s: params must be an object", c.method)
	}
	if p.Cursor != "" {
		return nil, invalidParams("%s: invalid cursor %q: mcpdeck's gateway answers in one page and hands out no cursors", c.method, p.Cursor)
	}
	return map[string]any{key: items}, nil
}

// initialize opens a legacy session: the version is the client's when
// the gateway speaks it, else the newest legacy one.
func (g *Gateway) initialize(c *call, cat *catalog, pol *policy) (any, error) {
	var p mcp.InitializeParams
	if err := json.Unmarshal(c.params, &p); err != nil {
		return nil, invalidParams("initialize: %v", err)
	}
	version := p.ProtocolVersion
	if !slices.Contains(mcp.LegacyVersions(), version) {
		version = mcp.LatestLegacy
	}
	cl := c.cl
	cl.mu.Lock()
	cl.caps = p.Capabilities
	cl.mu.Unlock()
	cl.identify(&p.ClientInfo, mcp.Legacy, version)
	return mcp.InitializeResult{
		ProtocolVersion: version,
		Capabilities:    cat.offered(false),
		ServerInfo:      g.implementationIn(cat),
		Instructions:    cat.instructions(cl.policy()),
	}, nil
}

// isInitialized reports whether a legacy client sent initialize (its
// requests are served from then on; notifications wait for initialized).
func (cl *client) isInitialized() bool {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.era == mcp.Legacy
}

// onNotification handles a client's notifications (cancellation is done
// by the connection itself).
func (g *Gateway) onNotification(cl *client, n jsonrpc.Notification) {
	cl.touch()
	switch n.Method {
	case "notifications/initialized":
		cl.mu.Lock()
		cl.initialized = true
		cl.mu.Unlock()
	case mcp.NotificationRootsChanged:
		g.rootsChanged(cl)
	}
}

// setLevel is logging/setLevel: the lowest level of log messages this
// client gets. It does not change what mcpdeck asks of the servers (other
// clients and the TUI share them).
func (g *Gateway) setLevel(c *call) error {
	var p mcp.SetLevelParams
	_ = json.Unmarshal(c.params, &p)
	if _, err := mcp.ParseLogLevel(string(p.Level)); err != nil {
		return invalidParams("logging/setLevel: %v", err)
	}
	c.cl.mu.Lock()
	c.cl.level = p.Level.Rank()
	c.cl.mu.Unlock()
	return nil
}

// peek names what a request is about before it is served, for the
// RequestStarted event: the bridged tool or prompt and its server, or the
// resource URI.
func (g *Gateway) peek(c *call) (server, name string) {
	cat := g.catalog()
	switch c.method {
	case "tools/call":
		if t := cat.toolByName[c.p.Name]; t != nil {
			return t.Server, c.p.Name
		}
		return "", c.p.Name
	case "prompts/get":
		if pr := cat.promptBy[c.p.Name]; pr != nil {
			return pr.Server, c.p.Name
		}
		return "", c.p.Name
	case "resources/read", "resources/subscribe":
		return cat.resourceBy[c.p.URI], c.p.URI
	}
	return "", ""
}
