package apphost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"mcpdeck/internal/clip"
	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// outboxLimit bounds the messages waiting for a page's stream; past it the
// oldest go (a page that never connects must not grow mcpdeck).
const outboxLimit = 1024

// app is one opened app. The HTTP handlers of its page run concurrently;
// mu guards what they share.
type app struct {
	h      *Host
	id     string
	token  string // the one-time link's; spent (with the key minted) by the first load
	server string
	tool   runtime.Tool
	ui     mcp.ToolUI
	args   json.RawMessage
	result *runtime.Result
	doc    mcp.AppDocument
	policy string
	allow  string
	notify chan struct{} // signalled when outbox grows; capacity 1

	mu          sync.Mutex
	key         string                          // the page's key; "" until the link is used
	views       map[string]bool                 // unspent single-use paths of the view's document
	page        pageInfo                        // what the page said of itself at start
	outbox      [][]byte                        // lines for the page's stream
	stream      chan struct{}                   // closed to end the current stream when another takes over
	initialized bool                            // the current view sent ui/notifications/initialized
	appInfo     string                          // the view's appInfo, "name version"
	waiting     map[string]chan json.RawMessage // our requests to the view, by id
	links       map[string]string               // the view's ui/open-link requests waiting for the operator, by id
	seq         int
}

// pageInfo is what the host page tells of its browser, for hostContext.
type pageInfo struct {
	Theme     string  `json:"theme"`
	Locale    string  `json:"locale"`
	TimeZone  string  `json:"timeZone"`
	Width     float64 `json:"width"`
	Height    float64 `json:"height"`
	UserAgent string  `json:"userAgent"`
	Touch     bool    `json:"touch"`
}

// message is one JSON-RPC message of the bridge.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

func (m message) isRequest() bool  { return m.Method != "" && len(m.ID) > 0 && !isNull(m.ID) }
func (m message) isResponse() bool { return m.Method == "" && len(m.ID) > 0 }

// pageAction is what the page must do besides relaying a reply.
type pageAction struct {
	// Link asks the operator whether to open URL; the page answers with
	// the request's id.
	Link *linkAsk `json:"link,omitempty"`
	// Teardown says the view asked to be closed.
	Teardown bool `json:"teardown,omitempty"`
	// Closed says mcpdeck stopped: the view is gone.
	Closed string `json:"closed,omitempty"`
}

type linkAsk struct {
	ID  json.RawMessage `json:"id"`
	URL string          `json:"url"`
}

// bridgeAnswer is the body of the answer to a page's POST: the reply to
// relay to the view, if any, and what the page should do.
type bridgeAnswer struct {
	Reply json.RawMessage `json:"reply,omitempty"`
	Page  *pageAction     `json:"page,omitempty"`
}

// fromView handles one message the view posted to its parent.
func (a *app) fromView(ctx context.Context, raw []byte) bridgeAnswer {
	var m message
	err := json.Unmarshal(raw, &m)
	a.trace(jsonrpc.In, raw, m, a.methodOfResponse(m))
	switch {
	case err != nil || m.JSONRPC != "2.0":
		if err == nil && len(m.ID) > 0 && m.Method != "" {
			return a.reply(m, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: `not a JSON-RPC 2.0 message: "jsonrpc" must be "2.0"`})
		}
		return bridgeAnswer{} // nothing to answer: no id to answer to
	case m.isResponse():
		a.mu.Lock()
		ch := a.waiting[idKey(m.ID)]
		delete(a.waiting, idKey(m.ID))
		a.mu.Unlock()
		if ch != nil {
			ch <- raw
		}
		return bridgeAnswer{}
	case m.isRequest():
		return a.request(ctx, m)
	case m.Method != "":
		return a.notification(m)
	}
	return bridgeAnswer{}
}

// request answers a request of the view.
func (a *app) request(ctx context.Context, m message) bridgeAnswer {
	switch m.Method {
	case "ui/initialize":
		return a.reply(m, a.initialize(m.Params), nil)
	case "ping":
		return a.reply(m, struct{}{}, nil)
	case mcp.MethodCallTool:
		res, err := a.callTool(ctx, m.Params)
		return a.reply(m, res, err)
	case mcp.MethodReadResource:
		res, err := a.readResource(ctx, m.Params)
		return a.reply(m, res, err)
	case "ui/open-link":
		return a.openLink(m)
	case "ui/request-display-mode":
		return a.reply(m, map[string]string{"mode": "inline"}, nil)
	case "ui/message", "ui/update-model-context":
		a.h.notice(Notice{Kind: NoticeRefused, App: a.id, Server: a.server, Tool: a.tool.ServerTool,
			Text: m.Method + ": mcpdeck has no model conversation to add it to (the Traffic tab shows what the app sent)"})
		return a.reply(m, nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "%s is not supported: mcpdeck is not a chat host and has no model conversation (it did not declare the capability)", m.Method))
	}
	return a.reply(m, nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "mcpdeck's app host does not support %s", m.Method))
}

// notification handles a notification of the view.
func (a *app) notification(m message) bridgeAnswer {
	switch m.Method {
	case "ui/notifications/initialized":
		a.mu.Lock()
		a.initialized = true
		info := a.appInfo
		a.mu.Unlock()
		// The tool's input, then its result: the host must send both,
		// and nothing before initialized.
		a.deliver(mustMarshal(message{JSONRPC: "2.0", Method: "ui/notifications/tool-input", Params: mustMarshal(map[string]any{"arguments": a.arguments()})}))
		if a.result != nil {
			a.deliver(mustMarshal(message{JSONRPC: "2.0", Method: "ui/notifications/tool-result", Params: mustMarshal(wireResult(a.result))}))
		} else {
			a.deliver(mustMarshal(message{JSONRPC: "2.0", Method: "ui/notifications/tool-cancelled", Params: json.RawMessage(`{"reason":"the tool was not called"}`)}))
		}
		a.h.notice(Notice{Kind: NoticeInitialized, App: a.id, Server: a.server, Tool: a.tool.ServerTool, Text: info})
	case "notifications/message":
		var p mcp.LoggingMessageParams
		_ = json.Unmarshal(m.Params, &p)
		text := string(p.Data)
		var s string
		if json.Unmarshal(p.Data, &s) == nil {
			text = s
		}
		a.h.notice(Notice{Kind: NoticeLog, App: a.id, Server: a.server, Tool: a.tool.ServerTool, Text: "[" + string(p.Level) + "] " + text})
	case "ui/notifications/request-teardown":
		a.h.notice(Notice{Kind: NoticeTeardown, App: a.id, Server: a.server, Tool: a.tool.ServerTool, Text: "the app asks to be closed"})
		return bridgeAnswer{Page: &pageAction{Teardown: true}}
	}
	// ui/notifications/size-changed is applied by the page; it and any
	// other notification are traced and need no answer.
	return bridgeAnswer{}
}

// initialize answers ui/initialize: the version, who the host is, what it
// offers, and the host context with the tool's definition.
func (a *app) initialize(params json.RawMessage) any {
	var p struct {
		AppInfo struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"appInfo"`
	}
	_ = json.Unmarshal(params, &p)
	a.mu.Lock()
	a.appInfo = strings.TrimSpace(p.AppInfo.Name + " " + p.AppInfo.Version)
	a.initialized = false // a reloaded view initializes again
	pg := a.page
	a.mu.Unlock()

	sandbox := map[string]any{}
	if perms := a.doc.UI.Permissions; len(perms) > 0 {
		granted := map[string]struct{}{}
		for _, k := range perms {
			granted[k] = struct{}{}
		}
		sandbox["permissions"] = granted
	}
	if !a.doc.UI.CSP.Empty() {
		sandbox["csp"] = a.doc.UI.CSP
	}
	theme := pg.Theme
	if theme != "dark" {
		theme = "light"
	}
	hostContext := map[string]any{
		"toolInfo":              map[string]any{"id": a.requestID(), "tool": a.tool.Wire(a.tool.ServerTool)},
		"theme":                 theme,
		"displayMode":           "inline",
		"availableDisplayModes": []string{"inline"},
		"platform":              "web",
		"userAgent":             "mcpdeck/" + a.h.version(),
		"deviceCapabilities":    map[string]bool{"hover": true, "touch": pg.Touch},
	}
	if pg.Width > 0 {
		hostContext["containerDimensions"] = map[string]float64{"maxWidth": pg.Width}
	}
	if pg.Locale != "" {
		hostContext["locale"] = pg.Locale
	}
	if pg.TimeZone != "" {
		hostContext["timeZone"] = pg.TimeZone
	}
	return map[string]any{
		"protocolVersion": mcp.AppsVersion,
		"hostInfo":        map[string]string{"name": "mcpdeck", "version": a.h.version()},
		"hostCapabilities": map[string]any{
			"openLinks":       struct{}{},
			"serverTools":     struct{}{},
			"serverResources": struct{}{},
			"logging":         struct{}{},
			"sandbox":         sandbox,
		},
		"hostContext": hostContext,
	}
}

// callTool proxies the view's tools/call to the live connection: only to
// a tool of the app's own server whose visibility includes "app".
func (a *app) callTool(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.Name == "" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "tools/call: params need a tool \"name\"")
	}
	v, _ := a.h.rt.Snapshot().Server(a.server)
	var tool *runtime.Tool
	for i := range v.Tools {
		if v.Tools[i].ServerTool == p.Name {
			tool = &v.Tools[i]
		}
	}
	if tool == nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unknown tool %q: server %q lists no such tool (an app may call its own server's tools only)", p.Name, a.server)
	}
	if ui, _ := mcp.ToolUIOf(tool.Meta); !ui.AppCallable() {
		a.h.notice(Notice{Kind: NoticeRefused, App: a.id, Server: a.server, Tool: a.tool.ServerTool,
			Text: fmt.Sprintf("refused the app's call of tool %q: its visibility %s leaves out \"app\"", p.Name, ui.VisibilityText())})
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "tool %q may not be called by an app: its _meta.ui.visibility is %s", p.Name, ui.VisibilityText())
	}
	res, err := a.h.rt.Call(ctx, runtime.CallRequest{Server: a.server, Tool: p.Name, Arguments: p.Arguments})
	if err != nil {
		return nil, wireError(err)
	}
	return wireResult(res), nil
}

// readResource proxies the view's resources/read to its server.
func (a *app) readResource(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		URI string `json:"uri"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.URI == "" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "resources/read: params need a \"uri\"")
	}
	raw, err := a.h.rt.ReadResource(ctx, a.server, p.URI)
	if err != nil {
		return nil, wireError(err)
	}
	return raw, nil
}

// openLink shows the view's request to the operator: the page asks, and
// answers through answerLink. Only http and https links are asked about.
func (a *app) openLink(m message) bridgeAnswer {
	var p struct {
		URL string `json:"url"`
	}
	_ = json.Unmarshal(m.Params, &p)
	u, err := url.Parse(p.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		a.h.notice(Notice{Kind: NoticeLinkRefused, App: a.id, Server: a.server, Tool: a.tool.ServerTool, URL: p.URL, Text: "not an http or https URL"})
		return a.reply(m, nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid URL %q: mcpdeck opens http and https links only", clip.Text(p.URL, 200)))
	}
	a.mu.Lock()
	a.links[idKey(m.ID)] = u.String()
	a.mu.Unlock()
	a.h.notice(Notice{Kind: NoticeLink, App: a.id, Server: a.server, Tool: a.tool.ServerTool, URL: u.String(), Text: "the app asks to open a link; choose in its page"})
	return bridgeAnswer{Page: &pageAction{Link: &linkAsk{ID: m.ID, URL: u.String()}}}
}

// answerLink answers a ui/open-link request with the operator's choice.
func (a *app) answerLink(id json.RawMessage, open bool) (bridgeAnswer, error) {
	a.mu.Lock()
	u, ok := a.links[idKey(id)]
	delete(a.links, idKey(id))
	a.mu.Unlock()
	if !ok {
		return bridgeAnswer{}, fmt.Errorf("no link request with id %s is waiting", clip.Text(string(id), 40))
	}
	m := message{ID: id, Method: "ui/open-link"}
	if !open {
		a.h.notice(Notice{Kind: NoticeLinkRefused, App: a.id, Server: a.server, Tool: a.tool.ServerTool, URL: u, Text: "the operator declined"})
		return a.reply(m, nil, &jsonrpc.Error{Code: -32000, Message: "Link opening denied by user"}), nil
	}
	a.h.notice(Notice{Kind: NoticeLinkOpened, App: a.id, Server: a.server, Tool: a.tool.ServerTool, URL: u, Text: "opened by the operator"})
	return a.reply(m, struct{}{}, nil), nil
}

// reply builds the response to request m, traces it and returns it for
// the page to relay.
func (a *app) reply(m message, result any, err error) bridgeAnswer {
	out := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	if err != nil {
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			je = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		e := map[string]any{"code": je.Code, "message": je.Message}
		if len(je.Data) > 0 {
			e["data"] = json.RawMessage(je.Data)
		}
		out["error"] = e
	} else {
		out["result"] = result
	}
	raw := mustMarshal(out)
	a.trace(jsonrpc.Out, raw, message{ID: m.ID, Error: ifErr(err)}, m.Method)
	return bridgeAnswer{Reply: raw}
}

func ifErr(err error) json.RawMessage {
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return nil
}

// deliver queues a message for the view, for the page's stream.
func (a *app) deliver(raw json.RawMessage) {
	var m message
	_ = json.Unmarshal(raw, &m)
	a.trace(jsonrpc.Out, raw, m, "")
	a.push(mustMarshal(bridgeAnswer{Reply: raw}))
}

// push queues one line for the page's stream.
func (a *app) push(line []byte) {
	a.mu.Lock()
	a.outbox = append(a.outbox, line)
	if len(a.outbox) > outboxLimit {
		a.outbox = a.outbox[len(a.outbox)-outboxLimit:]
	}
	a.mu.Unlock()
	select {
	case a.notify <- struct{}{}:
	default:
	}
}

// teardown sends ui/resource-teardown to an initialized view and waits
// for its answer, at most TeardownWait.
func (a *app) teardown(ctx context.Context, reason string) {
	a.mu.Lock()
	if !a.initialized || a.stream == nil {
		a.mu.Unlock()
		return
	}
	a.seq++
	id := json.RawMessage(fmt.Sprintf(`"mcpdeck-teardown-%d"`, a.seq))
	ch := make(chan json.RawMessage, 1)
	a.waiting[idKey(id)] = ch
	a.mu.Unlock()
	a.deliver(mustMarshal(message{JSONRPC: "2.0", ID: id, Method: "ui/resource-teardown", Params: mustMarshal(map[string]string{"reason": reason})}))
	t := time.NewTimer(a.h.opts.TeardownWait)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	case <-ctx.Done():
	}
	a.mu.Lock()
	delete(a.waiting, idKey(id))
	a.mu.Unlock()
}

// trace publishes a message of the bridge; method names a response's
// request when known.
func (a *app) trace(dir jsonrpc.Direction, raw []byte, m message, method string) {
	f := runtime.Frame{Dir: dir, Time: time.Now(), Size: len(raw), ID: strings.Trim(string(m.ID), `"`)}
	switch {
	case m.Method != "" && len(m.ID) > 0:
		f.Kind, f.Method = jsonrpc.KindRequest, m.Method
	case m.Method != "":
		f.Kind, f.Method = jsonrpc.KindNotification, m.Method
	case len(m.Error) > 0:
		f.Kind, f.Method = jsonrpc.KindError, method
	default:
		f.Kind, f.Method = jsonrpc.KindResult, method
	}
	if len(raw) > jsonrpc.TraceRawLimit {
		raw = raw[:jsonrpc.TraceRawLimit]
	}
	f.Raw = bytes.Clone(raw)
	a.h.rt.TraceApp(runtime.AppMessage{EventHeader: runtime.EventHeader{Time: f.Time, Server: a.server}, View: a.id, Tool: a.tool.ServerTool, Frame: f})
}

// methodOfResponse names the request a response of the view answers.
func (a *app) methodOfResponse(m message) string {
	if !m.isResponse() {
		return ""
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.waiting[idKey(m.ID)]; ok {
		return "ui/resource-teardown"
	}
	return ""
}

func (a *app) arguments() json.RawMessage {
	if len(bytes.TrimSpace(a.args)) == 0 {
		return json.RawMessage(`{}`)
	}
	return a.args
}

func (a *app) requestID() any {
	if a.result == nil || a.result.RequestID == 0 {
		return nil
	}
	return a.result.RequestID
}

// wireResult is a result as the server sent it: the view gets a
// CallToolResult, not mcpdeck's own fields.
func wireResult(r *runtime.Result) mcp.CallToolResult {
	content := r.Content
	if content == nil {
		content = []runtime.Content{}
	}
	return mcp.CallToolResult{Content: content, StructuredContent: r.StructuredContent, IsError: r.IsError, Meta: r.Meta}
}

// wireError is the JSON-RPC error a proxied request answers the view
// with: the server's own error when it sent one.
func wireError(err error) error {
	var rpc *runtime.RPCError
	var args *runtime.ArgumentsError
	switch {
	case errors.As(err, &rpc):
		return rpc
	case errors.As(err, &args):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: args.Error()}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

func idKey(id json.RawMessage) string { return string(bytes.TrimSpace(id)) }

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// mustMarshal encodes a bridge message. Every value in one came decoded
// from JSON, so it encodes; should one not, the view gets an internal
// error in its place rather than mcpdeck stopping.
func mustMarshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "error": map[string]any{"code": jsonrpc.CodeInternalError, "message": "mcpdeck could not encode a bridge message: " + err.Error()}})
	}
	return b
}
