// Package apphost is mcpdeck's host for MCP Apps (the
// io.modelcontextprotocol/ui extension): it opens a tool's app in the
// operator's browser and speaks the apps bridge with it.
//
// A Host serves, on a loopback port of its own, one host page per opened
// app. The page is reachable only through a one-time link (a token in
// its path, spent by the first load; a reload of the same tab goes on
// with the key the first load left in that tab's sessionStorage). The
// page puts the server's ui:// HTML into an iframe with
// sandbox="allow-scripts" and no allow-same-origin, so the view runs in
// an opaque origin; the view's document is served by the Host with a
// Content-Security-Policy header built from the resource's _meta.ui.csp
// (csp.go), under a single-use path of its own, so the view cannot learn
// the page's key from its own location.
//
// The bridge itself is in Go (bridge.go): the page only relays. Every
// message the view posts to its parent is POSTed by the page to the
// Host, which answers it (ui/initialize with the host context, tools/call
// and resources/read proxied to the runtime's live connection, only to
// tools whose visibility includes "app"), and every message for the view
// (the tool's input and result, teardown) reaches the page on one
// streamed response per page. Every message, both ways, is published as a
// runtime.AppMessage, so the Traffic tab and recordings show the bridge.
// Link-open requests are shown to the operator (Options.OnNotice, and a
// bar in the page where the operator chooses); size changes resize the
// iframe.
//
// The bridge is written from the specification (SEP-1865, revision
// 2026-01-26) rather than embedding the extension's own AppBridge: that
// one is a TypeScript class built on the SDK's Protocol and zod, which
// would need bundling (a few hundred KiB of someone else's JavaScript
// served from mcpdeck) and would move the decisions — which tools an app
// may call, what a link request needs — into the browser, where mcpdeck
// could neither test nor trace them.
package apphost

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// Errors of Open.
var (
	// ErrNoApp: the tool declares no app (_meta.ui.resourceUri).
	ErrNoApp = errors.New("the tool has no MCP App")
	// ErrClosed: the host was closed.
	ErrClosed = errors.New("the app host is closed")
)

// Runtime is what the host needs of the runtime: the tools, the calls and
// reads it proxies, and the event bus it traces to. *runtime.Controller
// is one.
type Runtime interface {
	Snapshot() *runtime.Snapshot
	Call(ctx context.Context, req runtime.CallRequest) (*runtime.Result, error)
	ReadResource(ctx context.Context, server, uri string) (json.RawMessage, error)
	TraceApp(m runtime.AppMessage)
}

// Options configure a Host.
type Options struct {
	// Addr is where to listen: a loopback address, 127.0.0.1:0 (a random
	// port) by default. Anything else is refused: the pages proxy the
	// servers' tools to whoever reaches them.
	Addr string
	// Version is mcpdeck's, for hostInfo.
	Version string
	// OnNotice, if set, hears what the operator should know: a page
	// opened, an app initialized, asked to open a link, logged. It is
	// called from the host's goroutines and must not block.
	OnNotice func(Notice)
	// TeardownWait bounds how long Close waits for each view to answer
	// ui/resource-teardown; default 2 s.
	TeardownWait time.Duration
}

// NoticeKind says what a Notice is about.
type NoticeKind int

// The kinds of Notice.
const (
	NoticePageOpened  NoticeKind = iota // the page loaded and connected
	NoticeInitialized                   // the view completed ui/initialize
	NoticeLink                          // the view asks to open Notice.URL
	NoticeLinkOpened                    // the operator opened it
	NoticeLinkRefused                   // the operator (or the host) refused it
	NoticeLog                           // the view logged (notifications/message)
	NoticeTeardown                      // the view asked to be closed
	NoticeRefused                       // the host refused a request of the view
)

// Notice is something the operator should know about an open app.
type Notice struct {
	Kind   NoticeKind
	App    string // the app's id
	Server string
	Tool   string
	Text   string // one line, server text not yet sanitised for a terminal
	URL    string // NoticeLink*
}

// Host serves opened apps on loopback. It is safe for concurrent use.
type Host struct {
	rt   Runtime
	opts Options

	mu      sync.Mutex
	ln      net.Listener
	srv     *http.Server
	base    string          // http://127.0.0.1:PORT
	apps    map[string]*app // by id
	closed  bool
	closing chan struct{} // closed by Close: the page streams end
	serving sync.WaitGroup
}

// New returns a host that listens once the first app is opened.
func New(rt Runtime, opts Options) *Host {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.TeardownWait <= 0 {
		opts.TeardownWait = 2 * time.Second
	}
	return &Host{rt: rt, opts: opts, apps: map[string]*app{}, closing: make(chan struct{})}
}

// Request opens an app: the tool a call was made to, with its arguments
// and result, which the view is given.
type Request struct {
	Server    string
	Tool      string // the server's name of the tool, or its bridged name
	Arguments json.RawMessage
	Result    *runtime.Result
}

// App is an opened app.
type App struct {
	ID          string
	URL         string // the one-time link to the host page
	Server      string
	Tool        string
	ResourceURI string
	// Policy is the Content-Security-Policy the view's document gets.
	Policy string
	// Permissions are the browser features granted to the iframe.
	Permissions []string
	// Problems are what is malformed in the tool's and the resource's
	// _meta.ui (malformed CSP origins are left out of Policy).
	Problems []string
	// Size is the HTML's size in bytes.
	Size int
}

// Open reads the tool's app resource and serves it: the returned App's URL
// opens it, once. ctx bounds the resources/read.
func (h *Host) Open(ctx context.Context, req Request) (*App, error) {
	snap := h.rt.Snapshot()
	v, ok := snap.Server(req.Server)
	if !ok {
		return nil, fmt.Errorf("opening an app: %w %q", runtime.ErrUnknownServer, req.Server)
	}
	tool, ok := runtime.LookupTool(v.Tools, req.Tool)
	if !ok {
		return nil, fmt.Errorf("opening an app: %w %q on server %q", runtime.ErrUnknownTool, req.Tool, req.Server)
	}
	ui, _ := mcp.ToolUIOf(tool.Meta)
	if !ui.HasApp() {
		return nil, fmt.Errorf("%w: tool %q of server %q has no _meta.ui.resourceUri", ErrNoApp, tool.ServerTool, req.Server)
	}
	raw, err := h.rt.ReadResource(ctx, req.Server, ui.ResourceURI)
	if err != nil {
		return nil, fmt.Errorf("reading the app of tool %q (%s): %w", tool.ServerTool, ui.ResourceURI, err)
	}
	doc, err := mcp.AppDocumentOf(raw, ui.ResourceURI)
	if err != nil {
		return nil, fmt.Errorf("opening the app of tool %q: %w", tool.ServerTool, err)
	}
	if !resourceCSPDeclared(raw) { // hosts fall back to the resources/list entry
		for _, r := range v.Resources {
			if r.URI == ui.ResourceURI {
				doc.UI = mcp.ResourceUIOf(r.Meta)
			}
		}
	}
	a := &app{
		h: h, id: randomID(12), token: randomID(32),
		server: req.Server, tool: *tool, ui: ui, args: req.Arguments, result: req.Result, doc: doc,
		policy: Policy(doc.UI.CSP), allow: Allow(doc.UI.Permissions),
		views: map[string]bool{}, waiting: map[string]chan json.RawMessage{}, links: map[string]string{},
		notify: make(chan struct{}, 1),
	}
	base, err := h.listen()
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, ErrClosed
	}
	h.apps[a.id] = a
	h.mu.Unlock()
	return &App{
		ID: a.id, URL: base + "/app/" + a.id + "/" + a.token, Server: a.server, Tool: tool.ServerTool,
		ResourceURI: ui.ResourceURI, Policy: a.policy, Permissions: doc.UI.Permissions,
		Problems: append(append([]string(nil), ui.Problems...), doc.UI.Problems...), Size: len(doc.HTML),
	}, nil
}

// resourceCSPDeclared reports whether the read result's contents carry a
// _meta.ui of their own.
func resourceCSPDeclared(raw json.RawMessage) bool {
	var r mcp.ReadResourceResult
	if json.Unmarshal(raw, &r) != nil {
		return false
	}
	for _, c := range r.Contents {
		if mcp.MetaValue(c.Meta, "ui") != nil {
			return true
		}
	}
	return false
}

// listen starts the server on the first Open and returns its base URL.
func (h *Host) listen() (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return "", ErrClosed
	}
	if h.ln != nil {
		return h.base, nil
	}
	if err := loopbackOnly(h.opts.Addr); err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", h.opts.Addr)
	if err != nil {
		return "", fmt.Errorf("starting the app host on %s: %w; choose another address", h.opts.Addr, err)
	}
	h.ln = ln
	h.base = "http://" + ln.Addr().String()
	h.srv = &http.Server{Handler: h.routes(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: discardLog()}
	h.serving.Add(1)
	go func() {
		defer h.serving.Done()
		_ = h.srv.Serve(ln)
	}()
	return h.base, nil
}

// loopbackOnly refuses an address that is not on loopback.
func loopbackOnly(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("app host address %q: %w; give HOST:PORT such as 127.0.0.1:0", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("app host address %q is not on loopback: apps are served to this machine only (forward the port over SSH to reach them from another)", addr)
	}
	return nil
}

// Addr is the base URL the host listens on ("" before the first Open).
func (h *Host) Addr() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.base
}

// Close tears every open app down (ui/resource-teardown to each view
// that is up, waiting at most TeardownWait for its answer), ends the
// pages' streams and stops the server. It is idempotent; ctx bounds it.
func (h *Host) Close(ctx context.Context) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		h.serving.Wait()
		return nil
	}
	h.closed = true
	apps := make([]*app, 0, len(h.apps))
	for _, a := range h.apps {
		apps = append(apps, a)
	}
	srv := h.srv
	h.mu.Unlock()

	var wg sync.WaitGroup
	for _, a := range apps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.teardown(ctx, "mcpdeck is stopping")
		}()
	}
	wg.Wait()
	close(h.closing) // the streams tell their pages and end
	// A connection still open after a short grace is closed by force, and
	// that is a normal stop, not an error: a browser keeps idle connections
	// it opened speculatively (http.Server counts those as active for 5 s),
	// and a page that went away may leave one behind.
	var err error
	if srv != nil {
		sctx, cancel := context.WithTimeout(ctx, time.Second)
		if srv.Shutdown(sctx) != nil {
			err = srv.Close()
		}
		cancel()
	}
	h.serving.Wait()
	return err
}

// lookup finds an open app.
func (h *Host) lookup(id string) *app {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.apps[id]
}

// notice tells the operator, if anyone listens.
func (h *Host) notice(n Notice) {
	if h.opts.OnNotice != nil {
		h.opts.OnNotice(n)
	}
}

// randomID is n random bytes, URL-safe.
func randomID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// equal compares secrets in constant time.
func equal(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// hostAllowed guards against DNS rebinding: the Host header must name
// the loopback address the host listens on.
func (h *Host) hostAllowed(r *http.Request) bool {
	_, port, err := net.SplitHostPort(h.ln.Addr().String())
	if err != nil {
		return false
	}
	host, p, err := net.SplitHostPort(r.Host)
	if err != nil || p != port {
		return false
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
