package ui

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/auth"
	"mcpdeck/runtime/check"
	"mcpdeck/runtime/gateway"
)

// Auth is what the UI needs of the authorization manager
// (*auth.Manager): log in (a browser flow that blocks until the redirect,
// a cancel or the timeout), log out, and what is stored.
type Auth interface {
	Login(ctx context.Context, t auth.Target) (*auth.Status, error)
	Logout(t auth.Target) error
	Status(t auth.Target) (*auth.Status, error)
}

// Runtime is what the UI needs from the session controller. It is
// declared here, by its consumer, so tests drive the UI with a fake
// (see ui/uitest) and the real controller satisfies it unchanged.
type Runtime interface {
	// Snapshot is the current immutable view; re-read on runtime.Published.
	Snapshot() *runtime.Snapshot
	// Subscribe delivers events; the UI subscribes lossily. cancel closes
	// the channel.
	Subscribe(runtime.SubscribeOptions) (<-chan runtime.Event, func())
	// SetEnabled switches MCP on or off; it blocks until applied.
	SetEnabled(ctx context.Context, on bool) error
	// SetServerEnabled flips one server's switch.
	SetServerEnabled(ctx context.Context, name string, on bool) error
	// Reconnect replaces a server's connection.
	Reconnect(ctx context.Context, name string) error
	// Reload applies a new configuration; refused with
	// runtime.ErrNotEnabled while MCP is off.
	Reload(ctx context.Context, cfg *config.Config) (runtime.Plan, error)
	// Configure replaces the configuration while MCP is off (after a
	// project file was approved and read again in full).
	Configure(ctx context.Context, cfg *config.Config) (runtime.Plan, error)
	// Call blocks until the tool's result.
	Call(ctx context.Context, req runtime.CallRequest) (*runtime.Result, error)
	// History is the session's finished tool calls, oldest first, and how
	// many older ones were dropped.
	History() ([]runtime.CallRecord, uint64)
	// ReadResource reads a resource (resources/read), raw.
	ReadResource(ctx context.Context, server, uri string) (json.RawMessage, error)
	// SubscribeResource and UnsubscribeResource switch
	// notifications/resources/updated for a resource; the subscription is
	// kept across reconnects.
	SubscribeResource(ctx context.Context, server, uri string) error
	UnsubscribeResource(ctx context.Context, server, uri string) error
	// GetPrompt gets a prompt's messages (prompts/get), raw.
	GetPrompt(ctx context.Context, server, name string, args map[string]string) (json.RawMessage, error)
	// Complete asks for completions of an argument (completion/complete).
	Complete(ctx context.Context, req runtime.CompleteRequest) (*runtime.Completion, error)
	// SetLogLevel chooses the log level a server sends (kept across
	// reconnects).
	SetLogLevel(ctx context.Context, server, level string) error
	// SetRoots chooses the directories a server is offered, for the
	// session.
	SetRoots(ctx context.Context, server string, dirs []string) error
	// Cancel cancels an outstanding request; false if it already ended.
	Cancel(server string, id uint64, reason string) bool
	// SetElicitor plugs in the UI's elicitation modal.
	SetElicitor(e runtime.Elicitor)
	// SetSampler plugs in the UI's sampling dialog.
	SetSampler(s runtime.Sampler)
	// Shutdown tears every server down; it blocks until they stopped.
	Shutdown(ctx context.Context) error
}

// Gateway is what the UI needs of mcpdeck's gateway (*gateway.Gateway)
// when the TUI serves the session to other MCP clients (--serve). It is
// declared here, by its consumer, so tests drive the Clients tab with a
// fake (uitest.Gateway) and the real gateway satisfies it unchanged.
type Gateway interface {
	// Clients are the attached clients, oldest first, each with its
	// requests in flight and its totals.
	Clients() []gateway.ClientInfo
	// Disconnect ends a client (its requests are cancelled, the servers
	// told); false when no such client is attached.
	Disconnect(id string) bool
	// Subscribe delivers the gateway's events (clients coming, going and
	// their requests), lossily; cancel closes the channel.
	Subscribe() (<-chan gateway.Event, func())
	// RequestOf names the client request a runtime request (a server and
	// its request id there) serves, for the Requests tab.
	RequestOf(server string, upstreamID uint64) (gateway.Request, bool)
	// AttachApprover says the TUI answers the calls that need approval;
	// Pending lists those waiting, oldest first; Decide answers one (by
	// names who decided), gateway.ErrNoSuchApproval when it no longer
	// waits.
	AttachApprover() (detach func())
	Pending() []gateway.Approval
	Decide(id string, approve bool, by, reason string) error
	// Close ends every client cleanly (their streams get a final answer,
	// their requests are cancelled) and refuses new ones. The UI closes
	// the gateway before it shuts the runtime down, so clients are told
	// the gateway ended rather than that every server went away.
	Close(ctx context.Context) error
}

// The real gateway is what Serving.Gateway is written for.
var _ Gateway = (*gateway.Gateway)(nil)

// Serving is the gateway the TUI runs (--serve): the Clients tab lists its
// clients, the header counts them and says where it listens.
type Serving struct {
	Gateway Gateway
	// URL is the endpoint clients connect to (http://127.0.0.1:8765/mcp).
	URL string
	// Token is the bearer token clients must send. It is never drawn: the
	// Clients tab shows its fingerprint, and the copy key copies it.
	Token string
}

// Sentinel errors of the UI.
var (
	// ErrNoRuntime: Options.Runtime is nil.
	ErrNoRuntime = errors.New("ui: no runtime given")
	// ErrForcedQuit: the user pressed ctrl+c again while servers were
	// stopping; teardown was cut short.
	ErrForcedQuit = errors.New("quit forced before every server stopped")
	// ErrNoReload: `r` was pressed but no Options.Reload was given.
	ErrNoReload = errors.New("reloading is not available in this session")
	// ErrNoCheck: `c` was pressed but no Options.Check was given.
	ErrNoCheck = errors.New("checks are not available in this session")
)

// DefaultNotificationLimit bounds the notification store; older
// notifications are dropped and counted.
const DefaultNotificationLimit = 50_000

// Options configure the UI.
type Options struct {
	// Runtime is the session the UI drives. Required.
	Runtime Runtime
	// Sources are the configuration files shown in the header; when empty
	// the snapshot's Sources are shown.
	Sources []string
	// EnableOnStart switches MCP on at start (--enable), once every
	// untrusted file is approved.
	EnableOnStart bool
	// Reload re-reads configuration for `r`.
	Reload func() (*config.Config, error)
	// Untrusted are project files that need approval before MCP starts;
	// Trust remembers an approval.
	Untrusted []config.File
	Trust     func(config.File) error
	// Config is the configuration the session started with. The approval
	// dialog shows from it what each untrusted file's servers would run:
	// command line, working directory and env file, or URL. Without it
	// the dialog shows the snapshot's command line or URL only.
	Config *config.Config
	// Pending returns the project files of a configuration that r read
	// whose content is not approved (a file changed since its approval):
	// the reload waits for the person to approve them, and starts nothing
	// from them otherwise. Nil means every file counts as approved.
	Pending func(*config.Config) []config.File
	// Check runs the compatibility check of the configured server named
	// server for `c` (the CLI looks it up and calls check.Run). It must
	// call progress with each item as it is decided, from any goroutine,
	// and return when ctx ends; the UI cancels ctx on quit and when the
	// person stops the check. The check starts its own copy of the server,
	// so the live session's connection is never touched. Nil means the key
	// says ErrNoCheck.
	Check func(ctx context.Context, server string, progress func(check.Item)) (check.Report, error)

	// Manage lets the servers pane add (a), edit (e) and remove (D)
	// servers and install them from the MCP Registry (b); nil leaves the
	// keys unavailable. See Manage.
	Manage *Manage

	// Replay, when set, makes the UI show a recording: Runtime must be
	// this same Replay; the timeline keys move through it and the header
	// shows the position. Now defaults to the replay's clock.
	Replay *Replay
	// Recording lets ctrl+r record the session (see Recording); nil
	// leaves the key unavailable.
	Recording *Recording
	// Serving, when set, is the MCP gateway running on this session:
	// the Clients tab (0) appears. Run attaches it (AttachGateway).
	Serving *Serving

	// Clipboard copies text for the copy key (y); Run sets it to the
	// terminal's (OSC 52, or tmux's buffer inside tmux) when nil. Nil in a
	// model built by NewModel means copying is not available.
	Clipboard func(text string) error
	// defaultClipboard is set when Run chose the clipboard (the terminal's,
	// or tmux's), so the status can say where a copy went.
	defaultClipboard bool
	// Auth logs in to and out of servers that need MCP authorization (i,
	// I) and tells the overview where tokens are kept; nil leaves the keys
	// unavailable. AuthTarget names a server's target for it; LoginURLs
	// carries the authorization URL from the manager's OnURL to the UI.
	Auth       Auth
	AuthTarget func(server string) (auth.Target, bool)
	LoginURLs  *LoginURLs
	// Apps opens a call's MCP App from the result viewer (the a key);
	// nil: apps are not available in the session. AppNotices carries
	// what an open app does to the status line. OpenURL opens a link in
	// the browser (default: $BROWSER, else xdg-open or open).
	Apps       AppHost
	AppNotices *AppNotices
	OpenURL    func(url string) error

	// Now is the clock for ages and uptimes; nil means time.Now. Tests fix
	// it so golden files are stable.
	Now func() time.Time
	// Context bounds every runtime call the UI makes; nil means Background.
	Context context.Context
	// NotificationLimit bounds the notification store (default 50,000).
	NotificationLimit int
	// ShutdownTimeout bounds teardown on quit (default 30s).
	ShutdownTimeout time.Duration

	// Input and Output replace the terminal for Run (tests, demos).
	Input  io.Reader
	Output io.Writer
}

func (o Options) withDefaults() Options {
	if o.Now == nil && o.Replay != nil {
		o.Now = o.Replay.Now
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Context == nil {
		o.Context = context.Background()
	}
	if o.OpenURL == nil {
		o.OpenURL = openURL
	}
	if o.NotificationLimit <= 0 {
		o.NotificationLimit = DefaultNotificationLimit
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = 30 * time.Second
	}
	return o
}
