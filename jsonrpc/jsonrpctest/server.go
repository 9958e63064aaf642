package jsonrpctest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// supportedVersions are the protocol revisions the fake accepts as asked; anything
// else is answered with the newest, as the specification tells servers to do.
var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// server is one fake MCP server on a pair of streams.
type server struct {
	mode  Mode
	cfg   settings
	out   *writer
	errMu sync.Mutex // keeps stderr lines whole across handlers
	errW  io.Writer
	exit  func(code int) // os.Exit; crash modes leave requests outstanding on purpose
	tools *catalogue

	ctx    context.Context // cancelled at stdin EOF so waiting handlers give up
	cancel context.CancelFunc
	wg     sync.WaitGroup // every handler goroutine, so EOF can drain them

	mu       sync.Mutex
	inflight map[string]*call // by compacted request id; guarded by mu

	flooded bool // Flood mode floods once, on the first notifications/initialized; read loop only

	modern      modernState // the modern modes' memory; guarded by mu
	dual        dualState   // DualLateDiscover's memory
	initialized atomic.Bool // an initialize request arrived
}

// call is one request being handled.
type call struct {
	ctx    context.Context
	cancel context.CancelFunc
	id     json.RawMessage
	key    string // compacted id, as it appears in notifications/cancelled
	method string
	params json.RawMessage
	// progressToken is set by tools/call before the tool runs, when the client asked
	// for progress.
	progressToken json.RawMessage
	// cancelled is set by notifications/cancelled: from then on the request is never
	// answered, which is what the specification asks of a receiver.
	cancelled atomic.Bool
}

// serve runs the fake server for mode on this process's stdio and returns its exit
// status. Startup-time defects (signals, early exit, a grandchild) happen here.
func serve(mode Mode) int {
	if !mode.known() {
		fmt.Fprintf(os.Stderr, "fake server: %v %q: set %s to one of %v\n", errUnknownMode, mode, EnvMode, allModes)
		return 2
	}
	cfg, err := loadSettings(os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fake server %s: %v\n", mode, err)
		return 2
	}
	switch mode {
	case ExitEarly:
		fmt.Fprintln(os.Stderr, "fatal: missing API key")
		return 1
	case Sleeper:
		signal.Ignore(syscall.SIGTERM)
		// Tell the parent we are past signal setup, so a test that reads the
		// grandchild's pid can rely on SIGTERM being ignored already.
		fmt.Fprintln(os.Stdout, "ready")
		blockForever()
	case IgnoreTerm:
		signal.Ignore(syscall.SIGTERM)
	case IgnoreEOF:
		term := make(chan os.Signal, 1)
		signal.Notify(term, syscall.SIGTERM)
		go func() {
			<-term
			os.Exit(0)
		}()
	case GoSDKModern, GoSDKModernHTTP:
		return serveGoSDK(mode, os.Stderr)
	case GoSDKFlood:
		return serveGoSDKFlood(cfg.count, os.Stderr)
	case Grandchild:
		pid, err := spawnSleeper()
		if err != nil {
			fmt.Fprintf(os.Stderr, "fake server %s: %v\n", mode, err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "grandchild %d\n", pid)
	}
	s := newServer(mode, cfg, os.Stdout, os.Stderr, os.Exit)
	return s.run(os.Stdin)
}

func newServer(mode Mode, cfg settings, stdout, stderr io.Writer, exit func(int)) *server {
	ctx, cancel := context.WithCancel(context.Background())
	return &server{
		mode:     mode,
		cfg:      cfg,
		out:      newWriter(stdout, mode == Noise),
		errW:     stderr,
		exit:     exit,
		tools:    newCatalogue(mode, cfg, os.Getpid()),
		ctx:      ctx,
		cancel:   cancel,
		inflight: make(map[string]*call),
	}
}

// run reads messages until stdin ends, then drains handlers and returns 0, except in
// the modes whose defect is to outlive stdin.
func (s *server) run(stdin io.Reader) int {
	if s.mode == Noise {
		s.out.raw(noiseLines[0]) // the banner; the writer's cycle starts after it
	}
	s.echoSecretStart()
	r := bufio.NewReaderSize(stdin, 64<<10)
	for {
		line, err := readLine(r, maxLine)
		if err == errLineTooLong {
			s.out.send(response{JSONRPC: "2.0", ID: nullID, Error: &rpcError{codeParse, "parse error: message longer than 64 MiB"}})
			continue
		}
		if err != nil {
			break // EOF or a broken pipe: either way the client is gone
		}
		s.dispatch(line)
	}
	if s.mode == IgnoreTerm || s.mode == IgnoreEOF {
		s.logf("stdin closed; still running")
		blockForever()
	}
	s.cancel()
	s.wg.Wait()
	return 0
}

// dispatch handles notifications inline, so a cancellation takes effect before the
// next message is read, and each request on its own goroutine, so a slow tool never
// blocks ping or cancellation.
func (s *server) dispatch(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if line[0] == '[' {
		s.out.send(response{JSONRPC: "2.0", ID: nullID, Error: &rpcError{codeInvalidRequest, "invalid request: JSON-RPC batches are not supported by MCP 2025-06-18 and later"}})
		return
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		s.out.send(response{JSONRPC: "2.0", ID: nullID, Error: &rpcError{codeParse, "parse error: " + err.Error()}})
		return
	}
	switch {
	case m.Method == "" && len(m.ID) > 0 && m.Result == nil && m.Error == nil:
		s.out.send(response{JSONRPC: "2.0", ID: m.ID, Error: &rpcError{codeInvalidRequest, "invalid request: no method"}})
	case m.Method == "":
		// A response to a request this server never sends: nothing to do.
	case len(m.ID) == 0:
		s.notification(m)
	case string(m.ID) == "null":
		s.out.send(response{JSONRPC: "2.0", ID: nullID, Error: &rpcError{codeInvalidRequest, "invalid request: id must be a string or an integer"}})
	case s.mode == StopReading && m.Method == "tools/call":
		s.logf("stopped reading")
		blockForever() // on the read loop: stdin is never read again
	default:
		c := s.track(m)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer s.untrack(c)
			s.handle(c)
		}()
	}
}

func (s *server) track(m message) *call {
	ctx, cancel := context.WithCancel(s.ctx)
	c := &call{ctx: ctx, cancel: cancel, id: m.ID, key: compact(m.ID), method: m.Method, params: m.Params}
	s.mu.Lock()
	s.inflight[c.key] = c
	s.mu.Unlock()
	return c
}

func (s *server) untrack(c *call) {
	c.cancel()
	s.mu.Lock()
	if s.inflight[c.key] == c {
		delete(s.inflight, c.key)
	}
	s.mu.Unlock()
}

func (s *server) notification(m message) {
	switch m.Method {
	case "notifications/initialized":
		// Flooding on the read loop means nothing read after notifications/initialized
		// is answered before the flood ends, so every later response follows it.
		if s.mode == Flood && !s.flooded {
			s.flooded = true
			s.out.floodMessages("flood", s.cfg.count)
		}
		if s.mode == HostileEscapes {
			s.hostileGreeting()
		}
		s.hostileInitialized()
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
			Reason    string          `json:"reason"`
		}
		_ = json.Unmarshal(m.Params, &p)
		key := compact(p.RequestID)
		// Logged in every mode so tests can tell that a cancellation arrived.
		s.logf("%s", strings.TrimSpace("cancelled "+key+" "+p.Reason))
		s.mu.Lock()
		c := s.inflight[key]
		s.mu.Unlock()
		if c != nil {
			c.cancelled.Store(s.mode != AnswerCancelled)
			c.cancel()
		}
	}
}

func (s *server) handle(c *call) {
	if s.mode.modern() {
		s.handleModern(c)
		return
	}
	if s.mode == DualLateDiscover && s.dualRoute(c) {
		return
	}
	switch c.method {
	case "initialize":
		s.initialize(c)
	case "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe":
		s.reply(c, struct{}{})
	case "tools/list":
		s.listTools(c)
	case "tools/call":
		s.callTool(c)
	case "prompts/list":
		s.reply(c, map[string]any{"prompts": []any{}})
	case "resources/list":
		s.reply(c, map[string]any{"resources": []any{}})
	case "resources/templates/list":
		s.reply(c, map[string]any{"resourceTemplates": []any{}})
	default:
		if s.legacyProbeDefect(c) {
			return
		}
		if c.method == "resources/read" && s.readAppResource(c) {
			return
		}
		s.fail(c, codeMethodNotFound, s.echoSecretMessage("method not found: "+c.method))
	}
}

func (s *server) initialize(c *call) {
	s.initialized.Store(true)
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := unmarshalParams(c.params, &p); err != nil {
		s.fail(c, codeInvalidParams, "invalid initialize params: "+err.Error())
		return
	}
	version := supportedVersions[0]
	for _, v := range supportedVersions {
		if v == p.ProtocolVersion {
			version = v
		}
	}
	if s.mode == VersionBad {
		version = "1999-01-01"
	}
	if s.mode == SlowInit && !sleepCtx(c.ctx, s.cfg.delay) {
		return
	}
	res := map[string]any{
		"protocolVersion": version,
		"capabilities": map[string]any{
			"tools":     map[string]any{"listChanged": true},
			"logging":   struct{}{},
			"resources": map[string]any{"subscribe": true},
			"prompts":   struct{}{},
		},
		"serverInfo":   map[string]any{"name": "fake-" + string(s.mode), "version": "0.0.1"},
		"instructions": "A fake MCP server for mcpdeck's tests, in mode " + string(s.mode) + ".",
	}
	if s.mode == HostileEscapes {
		hostileInit(res)
	}
	s.echoSecretInit(res)
	s.reply(c, res)
}

// reply answers c unless the client cancelled it.
func (s *server) reply(c *call, result any) {
	if c.cancelled.Load() {
		return
	}
	s.out.send(response{JSONRPC: "2.0", ID: c.id, Result: result})
}

// fail answers c with a JSON-RPC error unless the client cancelled it.
func (s *server) fail(c *call, code int, msg string) {
	if c.cancelled.Load() {
		return
	}
	s.out.send(response{JSONRPC: "2.0", ID: c.id, Error: &rpcError{code, msg}})
}

// notify sends a server notification.
func (s *server) notify(method string, params any) {
	s.out.send(notification{JSONRPC: "2.0", Method: method, Params: params})
}

// logf writes one line to stderr, where tests look for evidence of what the
// fake saw, and to the $MCPDECK_FAKE_EVIDENCE file when one is named (for
// tests of a program that does not show its servers' stderr).
func (s *server) logf(format string, args ...any) {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	fmt.Fprintf(s.errW, format+"\n", args...)
	if path := os.Getenv(EnvEvidence); path != "" {
		if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			fmt.Fprintf(f, format+"\n", args...)
			f.Close()
		}
	}
}

// unmarshalParams treats absent params as an empty object, which JSON-RPC allows.
func unmarshalParams(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, v)
}

// compact gives an id one spelling, so `7`, ` 7` and `"a"` match whatever the
// cancellation carries.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(bytes.TrimSpace(raw))
	}
	return b.String()
}

// sleepCtx waits d and reports whether it ran to the end rather than being cancelled.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// blockForever parks the process for the modes that must outlive stdin. A sleeping
// loop, unlike select{}, cannot trip the runtime's deadlock detector.
func blockForever() {
	for {
		time.Sleep(time.Hour)
	}
}
