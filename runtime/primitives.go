package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"mcpdeck/runtime/mcp"
)

// ErrUnsupported: the server does not offer what was asked (it did not
// declare the capability).
var ErrUnsupported = errors.New("not offered by the server")

// LogLevels are MCP's logging levels, least severe first.
var LogLevels = mcp.LevelNames()

// wishes are what a person asked of a server that outlive its connections:
// resource subscriptions and a log level. A reconnect restores them.
type wishes struct {
	mu     sync.Mutex
	subs   map[string]map[string]bool // server → subscribed URIs
	levels map[string]string          // server → log level chosen at run time
	roots  map[string][]string        // server → roots chosen at run time (present: overrides)
}

func (w *wishes) subscribed(server string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for uri := range w.subs[server] {
		out = append(out, uri)
	}
	sort.Strings(out)
	return out
}

func (w *wishes) setSub(server, uri string, on bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.subs == nil {
		w.subs = map[string]map[string]bool{}
	}
	if on {
		if w.subs[server] == nil {
			w.subs[server] = map[string]bool{}
		}
		w.subs[server][uri] = true
	} else {
		delete(w.subs[server], uri)
	}
}

// logLevel is the level in force for a server: chosen at run time, else
// configured, else the session's default; "" sends none.
func (c *Controller) logLevel(server, configured string) string {
	c.wish.mu.Lock()
	level := c.wish.levels[server]
	c.wish.mu.Unlock()
	switch {
	case level != "":
		return level
	case configured != "":
		return configured
	}
	return c.opts.LogLevel
}

// SetLogLevel chooses the lowest level of log messages a server sends
// (logging/setLevel; for a modern server, which has no such request, the
// level every later request carries in its _meta). It is kept across
// reconnects.
func (c *Controller) SetLogLevel(ctx context.Context, server, level string) error {
	if !slices.Contains(LogLevels, level) {
		return callError(server, "logging/setLevel", fmt.Errorf("log level %q: %w (use one of %v)", level, ErrInvalidArguments, LogLevels))
	}
	sess, _, err := c.resolve(server)
	if err != nil {
		return callError(server, "logging/setLevel", err)
	}
	if sess.init.Capabilities.Logging == nil {
		return callError(server, "logging/setLevel", fmt.Errorf("%q does not declare logging: %w", server, ErrUnsupported))
	}
	if !sess.modern() {
		if _, err := sess.request(ctx, c, mcp.MethodSetLevel, map[string]any{"level": level}); err != nil {
			return err
		}
	}
	c.wish.mu.Lock()
	if c.wish.levels == nil {
		c.wish.levels = map[string]string{}
	}
	c.wish.levels[server] = level
	c.wish.mu.Unlock()
	if sess.modern() {
		if err := sess.reencode(); err != nil {
			return callError(server, "logging/setLevel", err)
		}
	}
	c.bus.publish(LogLevelSet{EventHeader: EventHeader{Time: time.Now(), Server: server}, Level: level})
	return nil
}

// SubscribeResource asks for notifications/resources/updated on uri. The
// subscription is kept across reconnects until UnsubscribeResource.
func (c *Controller) SubscribeResource(ctx context.Context, server, uri string) error {
	return c.subscription(ctx, server, uri, true)
}

// UnsubscribeResource ends a subscription.
func (c *Controller) UnsubscribeResource(ctx context.Context, server, uri string) error {
	return c.subscription(ctx, server, uri, false)
}

func (c *Controller) subscription(ctx context.Context, server, uri string, on bool) error {
	method := "resources/subscribe"
	if !on {
		method = "resources/unsubscribe"
	}
	sess, _, err := c.resolve(server)
	if err != nil {
		return callError(server, method, err)
	}
	if r := sess.init.Capabilities.Resources; r == nil || !r.Subscribe {
		return callError(server, method, fmt.Errorf("%q does not offer resource subscriptions: %w", server, ErrUnsupported))
	}
	if sess.modern() {
		// The 2026-07-28 revision subscribes through the listen stream's
		// resourceSubscriptions: listen again with the new set.
		c.wish.setSub(server, uri, on)
		granted, err := sess.listen.relisten(ctx)
		if err != nil {
			return callError(server, mcp.MethodListen, err)
		}
		if on && !slices.Contains(granted.ResourceSubscriptions, uri) {
			c.wish.setSub(server, uri, false)
			return callError(server, mcp.MethodListen, fmt.Errorf("%q did not grant a subscription to %s (it granted %s): %w", server, uri, FilterString(granted), ErrUnsupported))
		}
	} else if _, err := sess.request(ctx, c, method, map[string]any{"uri": uri}); err != nil {
		return err
	}
	c.wish.setSub(server, uri, on)
	c.bus.publish(SubscriptionChanged{EventHeader: EventHeader{Time: time.Now(), Server: server}, URI: uri, Subscribed: on})
	return nil
}

// restoreWishes re-sends a new session what the person asked of the
// server before: its subscriptions. (The log level goes with the
// connection attempt.)
func (s *session) restoreWishes() {
	if r := s.init.Capabilities.Resources; r == nil || !r.Subscribe || s.modern() {
		return // a modern session's listen stream carries them from the start
	}
	for _, uri := range s.c.wish.subscribed(s.name) {
		ctx, cancel := context.WithTimeout(s.ctx, s.cfg.CallTimeout)
		_, _ = s.request(ctx, s.c, "resources/subscribe", map[string]any{"uri": uri})
		cancel()
	}
}

// CompletionRef names what an argument belongs to: a prompt or a resource
// template.
type CompletionRef struct {
	Prompt   string // a prompt's name, or
	Template string // a resource template's URI template
}

// CompleteRequest asks for completions of one argument's value.
type CompleteRequest struct {
	Server   string
	Ref      CompletionRef
	Argument string
	Value    string
	// Context holds the values of arguments already filled in.
	Context map[string]string
}

// Completion is what completion/complete answered.
type Completion = mcp.Completion

// Complete asks the server for completions (completion/complete).
func (c *Controller) Complete(ctx context.Context, req CompleteRequest) (*Completion, error) {
	raw, err := c.CompleteRaw(ctx, req)
	if err != nil {
		return nil, err
	}
	var r mcp.CompleteResult
	_ = json.Unmarshal(raw, &r) // CompleteRaw decoded it once
	return &r.Completion, nil
}

// CompleteRaw is Complete's result as the server sent it (checked to
// decode): what it says beyond values — hasMore false, a total of 0,
// _meta — is kept for whoever passes it on (the gateway).
func (c *Controller) CompleteRaw(ctx context.Context, req CompleteRequest) (json.RawMessage, error) {
	const method = mcp.MethodComplete
	ref := mcp.CompletionReference{Type: mcp.RefPrompt, Name: req.Ref.Prompt}
	if req.Ref.Template != "" {
		ref = mcp.CompletionReference{Type: mcp.RefResource, URI: req.Ref.Template}
	}
	params := map[string]any{"ref": ref, "argument": mcp.CompleteArgument{Name: req.Argument, Value: req.Value}}
	if len(req.Context) > 0 {
		params["context"] = mcp.CompleteContext{Arguments: req.Context}
	}
	sess, _, err := c.resolve(req.Server)
	if err != nil {
		return nil, callError(req.Server, method, err)
	}
	if sess.init.Capabilities.Completions == nil {
		return nil, callError(req.Server, method, fmt.Errorf("%q does not declare completions: %w", req.Server, ErrUnsupported))
	}
	raw, err := sess.request(ctx, c, method, params)
	if err != nil {
		return nil, err
	}
	var r mcp.CompleteResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, callError(req.Server, method, fmt.Errorf("decoding the result: %w: %w", ErrProtocol, err))
	}
	return raw, nil
}

// rootsFor returns the roots a server is offered: chosen at run time, else
// its configured ones, else the session's.
func (c *Controller) rootsFor(server string, configured []string) []Root {
	c.wish.mu.Lock()
	dirs, chosen := c.wish.roots[server]
	c.wish.mu.Unlock()
	switch {
	case chosen:
	case len(configured) > 0:
		dirs = configured
	default:
		dirs = c.opts.Roots
	}
	return rootsOf(dirs)
}

// NotifyRootsChanged tells server that the roots it was given changed
// (notifications/roots/list_changed): a gateway's client whose roots it
// was given said so. Only a live session-era session that was declared
// roots is told; 2026-07-28 has no such notification, and there is
// nothing to tell a server that is not connected.
func (c *Controller) NotifyRootsChanged(ctx context.Context, server string) error {
	sess := c.pub.Load().live[server]
	if sess == nil || sess.modern() || !sess.env.rootsDeclared.Load() {
		return nil
	}
	if err := sess.conn.Notify(ctx, mcp.NotificationRootsChanged, nil); err != nil {
		return callError(server, mcp.NotificationRootsChanged, err)
	}
	return nil
}

// declaresRoots reports whether a server is declared the roots
// capability: when it is offered roots, or always with Relay.
func (c *Controller) declaresRoots(server string, configured []string) bool {
	return c.opts.Relay || len(c.rootsFor(server, configured)) > 0
}

// SetRoots chooses the directories a server is offered (roots/list) for
// the rest of the session. A connected server is told with
// notifications/roots/list_changed; when it gains its first roots or loses
// its last, the roots capability itself changes, which only a new
// connection can declare, so the server is reconnected.
func (c *Controller) SetRoots(ctx context.Context, server string, dirs []string) error {
	pub := c.pub.Load()
	if _, ok := pub.snap.Server(server); !ok {
		return callError(server, "", fmt.Errorf("%w %q", ErrUnknownServer, server))
	}
	c.wish.mu.Lock()
	if c.wish.roots == nil {
		c.wish.roots = map[string][]string{}
	}
	c.wish.roots[server] = append([]string{}, dirs...)
	c.wish.mu.Unlock()
	c.bus.publish(RootsChanged{EventHeader: EventHeader{Time: time.Now(), Server: server}, Roots: rootsOf(dirs)})
	sess := pub.live[server]
	switch {
	case sess == nil:
		return nil // the next connection declares them
	case sess.modern():
		// Capabilities travel with every modern request: the next one
		// declares roots (or not); there is no list_changed to send.
		sess.env.rootsDeclared.Store(c.opts.Relay || len(dirs) > 0)
		if err := sess.reencode(); err != nil {
			return callError(server, "", err)
		}
		return nil
	case sess.env.rootsDeclared.Load() != (c.opts.Relay || len(dirs) > 0):
		return c.Reconnect(ctx, server)
	case sess.env.rootsDeclared.Load():
		if err := sess.conn.Notify(ctx, "notifications/roots/list_changed", nil); err != nil {
			return callError(server, "notifications/roots/list_changed", err)
		}
	}
	return nil
}
