package demoserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"mcpdeck/runtime/mcp"
)

const instructions = "mcpdeck's built-in demo server. Tools: echo (returns your text), " +
	"add (sums two numbers, with structured output), sleep (waits, reporting progress; cancellable) " +
	"and fail (always returns an error result). Read demo://status for uptime and call counts; " +
	"a heartbeat log message arrives every few seconds (logging/setLevel warning silences it)."

// server is the jsonrpc2.Handler for one session. Handle runs on jsonrpc2's
// read loop, so everything it does directly must be quick; tool calls run in
// goroutines started through spawn so that ping and notifications/cancelled
// are read while a call is running.
type server struct {
	opts    Options
	started time.Time
	tools   []*tool // in tools/list order; read-only after newServer

	// level is the minimum log level sent to the client. It is atomic
	// because the heartbeat and tool goroutines read it while the read
	// loop's logging/setLevel writes it.
	level atomic.Int32
	// logMu orders setLevel after log messages already being sent (see log).
	logMu sync.RWMutex

	// ctx ends when the session ends; every goroutine the server starts
	// watches it, so shutdown can stop them all.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// mu guards the fields below. They are touched by the read loop and by
	// tool goroutines; no I/O happens while it is held, so a client that is
	// slow to read can never stall the read loop through this lock.
	mu         sync.Mutex
	closed     bool // set by shutdown; no goroutine may start after it
	version    string
	heartbeat  bool // the heartbeat goroutine has been started
	inflight   map[jsonrpc2.ID]context.CancelFunc
	calls      map[string]int
	subscribed map[string]bool
}

func newServer(opts Options) *server {
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{
		opts:       opts,
		started:    time.Now(),
		tools:      demoTools(),
		ctx:        ctx,
		cancel:     cancel,
		inflight:   map[jsonrpc2.ID]context.CancelFunc{},
		calls:      map[string]int{},
		subscribed: map[string]bool{},
	}
	s.level.Store(int32(levelInfo))
	return s
}

// spawn runs fn in a goroutine that shutdown waits for. It refuses once
// shutdown has begun, because WaitGroup.Add must not race with Wait.
func (s *server) spawn(fn func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		fn()
	}()
	return true
}

// shutdown cancels every running tool call and the heartbeat and waits for
// them to return.
func (s *server) shutdown() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
}

// Handle implements jsonrpc2.Handler.
func (s *server) Handle(_ context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Notif {
		s.notification(conn, req)
		return
	}
	if req.Method == "tools/call" {
		s.startToolCall(conn, req)
		return
	}
	result, rerr := s.request(conn, req.Method, req.Params)
	s.respond(conn, req.ID, result, rerr)
}

func (s *server) request(conn *jsonrpc2.Conn, method string, params *json.RawMessage) (any, *jsonrpc2.Error) {
	switch method {
	case "initialize":
		return s.initialize(params)
	case "ping":
		return struct{}{}, nil
	case "tools/list":
		return map[string]any{"tools": s.tools}, nil
	case "prompts/list":
		return map[string]any{"prompts": []prompt{greetPrompt}}, nil
	case "prompts/get":
		return getPrompt(params)
	case "resources/list":
		return map[string]any{"resources": []resource{statusResource}}, nil
	case "resources/templates/list":
		return map[string]any{"resourceTemplates": []resourceTemplate{greetingTemplate}}, nil
	case "completion/complete":
		return complete(params)
	case "resources/read":
		return s.readResource(params)
	case "resources/subscribe":
		return s.subscribe(params, true)
	case "resources/unsubscribe":
		return s.subscribe(params, false)
	case "logging/setLevel":
		return s.setLevel(params)
	}
	return nil, &jsonrpc2.Error{
		Code:    jsonrpc2.CodeMethodNotFound,
		Message: fmt.Sprintf("method %q is not supported by the demo server; the initialize result lists its capabilities", method),
	}
}

// respond sends a result or an error. Send failures are not handled here:
// ErrClosed means the session is ending, and a write failure has already
// been recorded by the stream, which ends the session.
func (s *server) respond(conn *jsonrpc2.Conn, id jsonrpc2.ID, result any, rerr *jsonrpc2.Error) {
	if rerr != nil {
		_ = conn.ReplyWithError(context.Background(), id, rerr)
		return
	}
	_ = conn.Reply(context.Background(), id, result)
}

func (s *server) notification(conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	switch req.Method {
	case "notifications/initialized":
		s.startHeartbeat(conn)
	case "notifications/cancelled":
		var p cancelledParams
		if decodeParams(req.Params, &p) == nil {
			s.cancelRequest(p.RequestID)
		}
	}
	// Other notifications (roots/list_changed, progress, …) need no action,
	// and a notification never gets a reply, not even an error.
}

func (s *server) initialize(params *json.RawMessage) (any, *jsonrpc2.Error) {
	var p mcp.InitializeParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	version := negotiate(p.ProtocolVersion)
	s.mu.Lock()
	s.version = version
	s.mu.Unlock()
	return mcp.InitializeResult{
		ProtocolVersion: version,
		Capabilities: mcp.ServerCapabilities{
			Tools:     &mcp.ListChangedCapability{ListChanged: true},
			Prompts:   &mcp.ListChangedCapability{},
			Resources: &mcp.ResourcesCapability{Subscribe: true},
			Logging:   &mcp.Empty{},
			// The greet prompt and the greeting template complete their
			// name argument.
			Completions: &mcp.Empty{},
		},
		ServerInfo:   mcp.Implementation{Name: s.opts.Name, Title: "mcpdeck demo server", Version: s.opts.Version},
		Instructions: instructions,
	}, nil
}

// beginCall registers an in-flight request so notifications/cancelled can
// find it. It runs on the read loop, before the call's goroutine starts, so
// a cancellation read right after the request always finds the entry.
func (s *server) beginCall(id jsonrpc2.ID, toolName string) (context.Context, *jsonrpc2.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.inflight[id]; dup {
		return nil, &jsonrpc2.Error{
			Code:    jsonrpc2.CodeInvalidRequest,
			Message: fmt.Sprintf("request id %s is already in use by a running call; use a new id for every request", id),
		}
	}
	ctx, cancel := context.WithCancel(s.ctx)
	s.inflight[id] = cancel
	s.calls[toolName]++
	return ctx, nil
}

// endCall unregisters a call and reports whether it may still be answered:
// a cancelled request (by the client or by shutdown) is never answered.
func (s *server) endCall(ctx context.Context, id jsonrpc2.ID) bool {
	s.mu.Lock()
	cancel := s.inflight[id]
	delete(s.inflight, id)
	s.mu.Unlock()
	live := ctx.Err() == nil
	if cancel != nil {
		cancel()
	}
	return live
}

func (s *server) cancelRequest(id jsonrpc2.ID) {
	s.mu.Lock()
	cancel := s.inflight[id]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// startToolCall answers malformed calls at once and runs valid ones in
// their own goroutine.
func (s *server) startToolCall(conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	var p mcp.CallToolParams
	if rerr := decodeParams(req.Params, &p); rerr != nil {
		s.respond(conn, req.ID, nil, rerr)
		return
	}
	t := s.tool(p.Name)
	if t == nil {
		s.respond(conn, req.ID, nil, invalidParams(
			"unknown tool %q: the demo server has the tools echo, add, sleep and fail; call tools/list for their schemas", p.Name))
		return
	}
	args, rerr := parseArguments(p.Arguments)
	if rerr != nil {
		s.respond(conn, req.ID, nil, rerr)
		return
	}
	ctx, rerr := s.beginCall(req.ID, t.Name)
	if rerr != nil {
		s.respond(conn, req.ID, nil, rerr)
		return
	}
	s.log(conn, levelDebug, map[string]any{"msg": "tool call", "tool": t.Name, "id": req.ID})
	s.statusChanged(conn)

	call := &toolCall{args: args}
	// The token is kept raw: a string or a number, echoed back exactly.
	if token := mcp.MetaValue(p.Meta, mcp.MetaProgressToken); len(token) > 0 {
		call.progress = func(progress, total float64, message string) {
			if ctx.Err() != nil {
				return
			}
			_ = conn.Notify(context.Background(), "notifications/progress",
				mcp.ProgressParams{ProgressToken: token, Progress: progress, Total: total, Message: message})
		}
	}
	id := req.ID
	started := s.spawn(func() {
		result := t.run(ctx, call)
		if s.endCall(ctx, id) {
			s.respond(conn, id, result, nil)
		}
	})
	if !started {
		s.endCall(ctx, id)
	}
}

func (s *server) tool(name string) *tool {
	for _, t := range s.tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}
