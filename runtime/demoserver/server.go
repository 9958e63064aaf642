package demoserver

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const instructions = "mcpdeck's built-in demo server. Tools: echo (returns your text), " +
	"add (sums two numbers, with structured output), sleep (waits, reporting progress; cancellable) " +
	"and fail (always returns an error result). Read demo://status for uptime and call counts; " +
	"a heartbeat log message arrives every few seconds (logging/setLevel warning silences it)."

// demo is one session of the demo server: a go-sdk mcp.Server with the demo
// features, and the state its status resource reports. Run makes one per
// session, so the state is the session's.
type demo struct {
	opts    Options
	started time.Time
	srv     *mcp.Server
	tools   []*tool // in tools/list order; read-only after newDemo

	// level is the minimum log level sent to the client. It is atomic
	// because the heartbeat and tool handlers read it while
	// logging/setLevel writes it.
	level atomic.Int32
	// logMu orders setLevel after log messages already being sent (see log).
	logMu sync.RWMutex

	// ctx ends when the session ends; the heartbeat watches it.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// mu guards the fields below, which go-sdk's handler goroutines and
	// the heartbeat share. No I/O happens while it is held.
	mu        sync.Mutex
	closed    bool   // set by shutdown; no goroutine may start after it
	version   string // negotiated by initialize
	heartbeat bool   // the heartbeat goroutine has been started
	calls     map[string]int
}

func newDemo(opts Options) *demo {
	ctx, cancel := context.WithCancel(context.Background())
	d := &demo{
		opts:    opts,
		started: time.Now(),
		tools:   demoTools(),
		ctx:     ctx,
		cancel:  cancel,
		calls:   map[string]int{},
	}
	d.level.Store(int32(levelInfo))
	d.srv = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Title: "mcpdeck demo server", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		// go-sdk's own diagnostics, errors only: its info log is a line per
		// request.
		Logger:             slog.New(slog.NewTextHandler(opts.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
		InitializedHandler: d.startHeartbeat,
		CompletionHandler:  complete,
		SubscribeHandler:   subscribe,
		UnsubscribeHandler: unsubscribe,
		// Stated in full: go-sdk would otherwise announce list changes the
		// demo server never makes for prompts and resources.
		Capabilities: withLogging(&mcp.ServerCapabilities{
			Tools:       &mcp.ToolCapabilities{ListChanged: true},
			Prompts:     &mcp.PromptCapabilities{ListChanged: false},
			Resources:   &mcp.ResourceCapabilities{Subscribe: true, ListChanged: false},
			Completions: &mcp.CompletionCapabilities{},
		}),
		SupportedProtocolVersions: supportedVersions,
	})
	for _, t := range d.tools {
		d.srv.AddTool(&t.Tool, d.handle(t))
	}
	d.srv.AddPrompt(greetPrompt, getPrompt)
	d.srv.AddResource(statusResource, d.readStatus)
	d.srv.AddResourceTemplate(greetingTemplate, readGreeting)
	d.srv.AddReceivingMiddleware(d.middleware)
	return d
}

// middleware is where the demo server differs from go-sdk's defaults, by
// method: clearer errors for an unknown tool or resource, a checked log
// level, the negotiated version kept for demo://status, and the trace
// context echoed (see echoTraceContext).
func (d *demo) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/call":
			if p, _ := req.GetParams().(*mcp.CallToolParamsRaw); p != nil && d.tool(p.Name) == nil {
				return nil, invalidParams("unknown tool %q: the demo server has the tools echo, add, sleep and fail; call tools/list for their schemas", p.Name)
			}
		case "resources/read":
			if p, _ := req.GetParams().(*mcp.ReadResourceParams); p != nil && p.URI != StatusURI {
				if _, ok := greetingName(p.URI); !ok {
					return nil, resourceNotFound(p.URI)
				}
			}
		case "logging/setLevel":
			return d.setLevel(ctx, method, req, next)
		case "initialize":
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.InitializeResult); ok && err == nil {
				d.mu.Lock()
				d.version = r.ProtocolVersion
				d.mu.Unlock()
			}
			return res, err
		}
		return echoTraceContext(ctx, method, req, next)
	}
}

func (d *demo) tool(name string) *tool {
	for _, t := range d.tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// handle is the go-sdk handler of tool t: it parses the arguments (anything
// but an object is a malformed request, -32602), counts the call, logs it
// at debug, tells a subscriber that demo://status changed, and runs the
// tool. A call cancelled by the client or by the session's end returns an
// error that is never sent (see lineConn).
func (d *demo) handle(t *tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, perr := parseArguments(req.Params.Arguments)
		if perr != nil {
			return nil, perr
		}
		d.mu.Lock()
		d.calls[t.Name]++
		d.mu.Unlock()
		d.log(ctx, req.Session, levelDebug, map[string]any{"msg": "tool call", "tool": t.Name})
		d.statusChanged(ctx)

		call := &toolCall{args: args}
		if token := req.Params.GetProgressToken(); token != nil {
			call.progress = func(progress, total float64, message string) {
				if ctx.Err() != nil {
					return
				}
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: progress, Total: total, Message: message})
			}
		}
		result := t.run(ctx, call)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return result, nil
	}
}

// spawn runs fn in a goroutine that shutdown waits for. It refuses once
// shutdown has begun, because WaitGroup.Add must not race with Wait.
func (d *demo) spawn(fn func()) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return false
	}
	d.wg.Go(fn)
	return true
}

// shutdown stops the heartbeat and waits for it.
func (d *demo) shutdown() {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.cancel()
	d.wg.Wait()
}
