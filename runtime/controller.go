// Package runtime is mcpdeck's session: one controller goroutine that owns
// every server's state, connects and supervises servers, publishes their
// capabilities together as immutable snapshots, bridges their tools to one
// Result type, and publishes typed events. It knows nothing of terminals:
// the TUI and the CLI drive it through the Controller's methods and its
// event subscriptions.
package runtime

import (
	"context"
	"net/url"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime/auth"
	"mcpdeck/runtime/proc"
	"mcpdeck/runtime/telemetry"
)

// Options configure a Controller.
type Options struct {
	Config *config.Config
	// Elicitor answers elicitation/create; nil leaves elicitation
	// undeclared (servers then get -32601).
	Elicitor Elicitor
	// Sampler answers sampling/createMessage (the TUI's dialog, a canned
	// reply); nil leaves sampling undeclared (servers then get -32601).
	Sampler Sampler
	// Roots are the directories offered by roots/list to servers that do
	// not configure their own (global roots in mcp.json, --root). With none,
	// the roots capability is not declared: servers keep the directories
	// they were started with.
	Roots []string
	// Relay runs the controller for callers that answer for themselves
	// what a server asks during their requests (the clients of mcpdeck
	// gateway and of the TUI's --serve, through WithResponder): every server is declared roots, even with
	// none configured, and URL-mode elicitation beside form mode when
	// there is an Elicitor. What the caller cannot answer is answered as a
	// client without the capability answers: a URL-mode elicitation with
	// -32602 (declined, in an input_required answer), roots/list with the
	// configured roots or none. A session-era server's roots/list that no
	// one caller's request can be tied to (asked between requests, or
	// while several callers' are in flight) gets the configured roots, or
	// with none an error saying that roots are given during requests: an
	// empty list would be a false answer that servers keep.
	Relay bool
	// Operator says that a person answers through the Elicitor and the
	// Sampler (the TUI's dialogs), for the callers that cannot as for
	// mcpdeck's own requests: with Relay, a URL-mode elicitation no caller
	// answers goes to the Elicitor, as a form one does, where a headless
	// gateway's caller gets -32602; and a 2026-07-28 request made for a
	// caller (WithCallerCapabilities) declares URL mode too.
	Operator bool
	// LogLevel is sent with logging/setLevel to servers that declare
	// logging; default "info"; "-" sends nothing.
	LogLevel string
	// ResultLimit bounds a result's text and data; default 256 KiB.
	ResultLimit int
	// MaxCallTime caps how far progress may extend a call; default 10 min.
	MaxCallTime time.Duration
	// StopGrace is each step's grace period when stopping a process;
	// default 2 s.
	StopGrace time.Duration
	// MaxMessageSize bounds one incoming message; default 32 MiB.
	MaxMessageSize int
	// ClientVersion is sent in clientInfo.
	ClientVersion string
	// Auth, when set, authorizes requests to remote servers that require
	// MCP authorization with the tokens it stores. Without it such a
	// server ends in StateNeedsLogin as soon as it answers 401.
	Auth *auth.Manager
	// InteractiveLogin lets a server that needs a login run the browser
	// flow inline during its connection attempt (the CLI's --login).
	InteractiveLogin bool
	// Protocol, when set, overrides every server's own "protocol" setting:
	// auto, legacy, modern or a revision (the --protocol flag, when given
	// explicitly). Empty leaves each server's setting, whose default is auto.
	Protocol string
	// Eras is the era memory: which protocol era each server spoke, used
	// first on its next connection. Nil keeps it for this controller only
	// (NewEraMemory); the CLI and TUI share one file in the state directory
	// (OpenEraMemory).
	Eras *EraMemory
	// Tools are the operator's tool decisions: tools switched off and
	// pinned definitions, applied to every publication. Nil keeps them for
	// this controller only (NewToolPolicy); the CLI and TUI share one file
	// in the state directory (OpenToolPolicy).
	Tools *ToolPolicy
	// Telemetry, when set, gets a span per request, ping latencies,
	// session durations, and reads the servers' counters at collection
	// time. Nil records nothing.
	Telemetry *telemetry.Telemetry
	// NoAutoReconnect turns automatic reconnection off for every server,
	// whatever its configuration: for one-shot commands, which report
	// each server's first start and end before a retry could help.
	NoAutoReconnect bool
	// SpawnConcurrency bounds how many stdio servers are being spawned
	// at once; the others wait their turn, their startup timeout not yet
	// running (see spawn.go); default DefaultSpawnConcurrency.
	SpawnConcurrency int
	// SpawnQueueTimeout bounds a start's wait for its turn to spawn;
	// default DefaultSpawnQueueTimeout.
	SpawnQueueTimeout time.Duration
	// ToolsOnly lists each server's tools and nothing else: for a command
	// that only calls tools (call, bench), which would otherwise wait for
	// the server's prompts and resources before its first call and never
	// use them. The snapshot then has no prompts or resources, and their
	// list_changed notifications are not followed.
	ToolsOnly bool
}

// Root is one roots/list entry.
type Root struct{ URI, Name string }

// Controller is one mcpdeck session. Its loop goroutine owns all server
// state; every method is safe for concurrent use and talks to the loop by
// message.
type Controller struct {
	opts Options
	bus  *bus

	cmds     chan command  // user commands, collapsed by the loop
	internal chan any      // reports from attempts, sessions and timers
	loopExit chan struct{} // closed when the loop stops taking input
	loopDone chan struct{} // closed when the loop and every goroutine it started have ended
	// shutdown is closed (once, by shutdownOnce) to ask the loop for the
	// teardown. A close cannot block or be lost, whatever the caller's
	// ctx, so a Shutdown that gives up waiting has still asked.
	shutdown chan struct{}

	// pub is the latest publication; the loop stores it, readers load it.
	pub atomic.Pointer[publication]

	elicit     atomic.Pointer[elicitorBox]
	samplerBox atomic.Pointer[samplerBox]
	progressID atomic.Uint64
	hist       history   // the tool calls of the session
	wish       wishes    // subscriptions and log levels, kept across reconnects
	lists      listCache // list pages still fresh by the servers' ttlMs

	// eras is the era each server turned out to speak (Options.Eras).
	eras *EraMemory

	shutdownOnce sync.Once
}

type elicitorBox struct{ e Elicitor }

// Prepare starts, in the background, what starting cfg's enabled stdio
// servers needs and is slow to set up (the process watchdog, one per
// process), so that a command about to switch them on overlaps it with
// loading its own state before New. It starts no server; without it the
// first start does the same work itself.
func Prepare(cfg *config.Config) {
	if slices.ContainsFunc(cfg.Servers, func(s config.Server) bool { return s.Enabled && s.Transport == config.TransportStdio }) {
		proc.Prepare()
	}
}

// New builds a controller for cfg. It starts nothing: MCP stays off until
// SetEnabled(ctx, true).
func New(opts Options) *Controller {
	if opts.Config == nil {
		opts.Config = &config.Config{}
	}
	if opts.LogLevel == "" {
		opts.LogLevel = "info"
	} else if opts.LogLevel == "-" {
		opts.LogLevel = ""
	}
	if opts.ResultLimit == 0 {
		opts.ResultLimit = DefaultResultLimit
	}
	if opts.MaxCallTime == 0 {
		opts.MaxCallTime = 10 * time.Minute
	}
	if opts.ClientVersion == "" {
		opts.ClientVersion = "dev"
	}
	if opts.Eras == nil {
		opts.Eras = NewEraMemory()
	}
	if opts.Tools == nil {
		opts.Tools = NewToolPolicy()
	}
	if opts.SpawnConcurrency <= 0 {
		opts.SpawnConcurrency = DefaultSpawnConcurrency
	}
	if opts.SpawnQueueTimeout <= 0 {
		opts.SpawnQueueTimeout = DefaultSpawnQueueTimeout
	}
	c := &Controller{
		opts:     opts,
		bus:      newBus(),
		cmds:     make(chan command, 64),
		internal: make(chan any, 256),
		loopExit: make(chan struct{}),
		loopDone: make(chan struct{}),
		eras:     opts.Eras,
		shutdown: make(chan struct{}),
	}
	if opts.Elicitor != nil {
		c.SetElicitor(opts.Elicitor)
	}
	if opts.Sampler != nil {
		c.SetSampler(opts.Sampler)
	}
	opts.Telemetry.SetSource(c.TelemetryStats)
	m := newMachine(opts.Config)
	m.noRetry, m.spawnLimit, m.queueTimeout = opts.NoAutoReconnect, opts.SpawnConcurrency, opts.SpawnQueueTimeout
	m.tools = opts.Tools
	l := newLoop(c, m)
	m.now = time.Now()
	m.publish()
	for _, e := range m.out {
		l.run1(e) // the first publication, before anyone can ask for a snapshot
	}
	m.out = nil
	if opts.Tools.Path() != "" {
		l.wg.Go(c.watchToolPolicy)
	}
	go l.run()
	return c
}

// rootsOf turns directories into roots/list entries (absolute file URIs).
func rootsOf(dirs []string) []Root {
	var roots []Root
	for _, d := range dirs {
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		roots = append(roots, Root{URI: (&url.URL{Scheme: "file", Path: d}).String(), Name: filepath.Base(d)})
	}
	return roots
}

// SetElicitor plugs in the elicitation handler (the TUI's modal form).
// Servers connected afterwards see the elicitation capability.
func (c *Controller) SetElicitor(e Elicitor) { c.elicit.Store(&elicitorBox{e}) }

func (c *Controller) elicitor() Elicitor {
	if b := c.elicit.Load(); b != nil {
		return b.e
	}
	return nil
}

// Subscribe returns a channel of events and a cancel func that closes it.
// Lossy subscribers (the default) never slow the runtime; see
// SubscribeOptions.
func (c *Controller) Subscribe(opts SubscribeOptions) (<-chan Event, func()) {
	return c.bus.subscribe(opts)
}

// SubscribeBatches is Subscribe for a lossy consumer that takes events in
// bursts: each receive is everything queued (up to a bound), so a flood
// costs one handoff per burst rather than per event. The session recorder
// subscribes this way.
func (c *Controller) SubscribeBatches(opts SubscribeOptions) (<-chan []Event, func()) {
	return c.bus.subscribeBatches(opts)
}

// command is a user request to the loop.
type command struct {
	kind   cmdKind
	on     bool
	server string
	cfg    *config.Config
	reply  chan reply
}

type cmdKind int

const (
	cmdSetEnabled cmdKind = iota
	cmdServerEnabled
	cmdReconnect
	cmdReload
	cmdConfigure
	cmdRepublish // the tool decisions changed: publish them
	cmdShutdown
)

type reply struct {
	plan Plan
	err  error
}

// do sends a command and waits for its reply.
func (c *Controller) do(ctx context.Context, cmd command) (Plan, error) {
	cmd.reply = make(chan reply, 1)
	select {
	case c.cmds <- cmd:
	case <-c.loopExit:
		return Plan{}, ErrShutdown
	case <-ctx.Done():
		return Plan{}, ctx.Err()
	}
	select {
	case r := <-cmd.reply:
		return r.plan, r.err
	case <-ctx.Done():
		return Plan{}, ctx.Err()
	case <-c.loopExit:
		select {
		case r := <-cmd.reply: // the loop answered before it stopped
			return r.plan, r.err
		default:
			return Plan{}, ErrShutdown
		}
	}
}

// SetEnabled turns MCP on or off for the session. On connects every
// enabled server concurrently and returns once each is ready or failed and
// the capabilities are published together. Off withdraws capabilities and
// child proxies, publishes that, then closes every transport and process
// and returns once each has exited.
func (c *Controller) SetEnabled(ctx context.Context, on bool) error {
	_, err := c.do(ctx, command{kind: cmdSetEnabled, on: on})
	return err
}

// SetServerEnabled switches one server on or off (for this session).
func (c *Controller) SetServerEnabled(ctx context.Context, name string, on bool) error {
	_, err := c.do(ctx, command{kind: cmdServerEnabled, server: name, on: on})
	return err
}

// Reconnect replaces a server's connection with a fresh one.
func (c *Controller) Reconnect(ctx context.Context, name string) error {
	_, err := c.do(ctx, command{kind: cmdReconnect, server: name})
	return err
}

// Reload applies a new configuration to the running set: removed servers
// close, changed ones restart, added ones start, the rest keep their live
// connections. It returns once the added and restarted servers are ready
// or failed; removed and switched-off servers close in the background, and
// their last StateChanged (stopped, disabled) says when they are gone.
// Refused with ErrNotEnabled while MCP is off.
func (c *Controller) Reload(ctx context.Context, cfg *config.Config) (Plan, error) {
	return c.do(ctx, command{kind: cmdReload, cfg: cfg})
}

// Configure replaces the configuration while MCP is off (nothing runs, so
// nothing starts or stops): after a project file was approved, say, and
// read again in full. While MCP is on it is refused; use Reload.
func (c *Controller) Configure(ctx context.Context, cfg *config.Config) (Plan, error) {
	return c.do(ctx, command{kind: cmdConfigure, cfg: cfg})
}

// Shutdown performs the same teardown as disabling and stops the
// controller, and waits for it. Later commands fail with ErrShutdown.
// ctx bounds only the wait: the teardown is asked for in every case, an
// already-cancelled ctx included, and goes on without the caller; a later
// Shutdown waits for the same teardown. Idempotent and safe to call
// concurrently.
func (c *Controller) Shutdown(ctx context.Context) error {
	c.shutdownOnce.Do(func() { close(c.shutdown) })
	select {
	case <-c.loopDone:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// send delivers an internal report to the loop unless ctx ends or the loop
// has exited; reporters must never block a loop that is waiting for them.
func (c *Controller) send(ctx context.Context, m any) {
	select {
	case c.internal <- m:
	case <-ctx.Done():
	case <-c.loopExit:
	}
}

// key groups commands that supersede each other: the same kind, for the
// same server.
func (cmd command) key() string {
	switch cmd.kind {
	case cmdSetEnabled:
		return "enabled"
	case cmdReload, cmdConfigure:
		return "reload"
	case cmdServerEnabled:
		return "server:" + cmd.server
	case cmdReconnect:
		return "reconnect:" + cmd.server
	case cmdRepublish:
		return "republish"
	}
	return "shutdown"
}
