package runtime

import (
	"encoding/json"
	"slices"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime/mcp"
	"mcpdeck/runtime/proc"
)

// StopStep is the step of the stop sequence that ended a server process.
type StopStep = proc.StopStep

// The steps of the stop sequence.
const (
	StopExited     = proc.StepExited
	StopStdinClose = proc.StepStdinClose
	StopSIGTERM    = proc.StepSIGTERM
	StopSIGKILL    = proc.StepSIGKILL
)

// Snapshot is an immutable view of the whole session, published by the
// controller as one unit: the tools, prompts, resources and instructions
// of every ready server appear together, never piecemeal. Callers must not
// modify it.
type Snapshot struct {
	Generation    uint64 // increases with every publication
	At            time.Time
	Enabled       bool // MCP on or off for the session
	Sources       []string
	Servers       []ServerSnapshot // sorted by name
	Tools         []Tool           // every published tool, sorted by normalized name
	DroppedEvents uint64           // events dropped for slow subscribers, all subscribers together
}

// Server returns the named server's snapshot.
func (s *Snapshot) Server(name string) (ServerSnapshot, bool) {
	for _, srv := range s.Servers {
		if srv.Name == name {
			return srv, true
		}
	}
	return ServerSnapshot{}, false
}

// LookupTool finds the tool called name among tools, by its name on the
// server (ServerTool) or in mcpdeck (Name): what a person types names
// either. The first that matches is the one a call reaches.
func LookupTool(tools []Tool, name string) (*Tool, bool) {
	i := slices.IndexFunc(tools, func(t Tool) bool { return t.ServerTool == name || t.Name == name })
	if i < 0 {
		return nil, false
	}
	return &tools[i], true
}

// Counts summarises the snapshot for headers and status lines.
func (s *Snapshot) Counts() (ready, total, tools, outstanding int) {
	for _, srv := range s.Servers {
		total++
		if srv.State.Live() {
			ready++
		}
		outstanding += len(srv.Outstanding)
	}
	return ready, total, len(s.Tools), outstanding
}

// ServerSnapshot is one server's state at publication time. Secrets
// (env and header values) never appear in it.
type ServerSnapshot struct {
	Name      string
	Transport config.Transport // stdio, http, sse: in use (sse after a fallback, which Fallback says)
	Target    string           // command line or URL, secrets redacted
	Source    string           // the configuration file it came from
	Scope     config.Scope
	Enabled   bool // the server's own switch (config, or toggled)
	// ConfigEnabled is what the configuration says; Enabled differs from it
	// when the server was switched in this session.
	ConfigEnabled bool
	Note          string // why it cannot start: "needs input: ${input:token}", or its configuration error

	State         State
	Reason        string // for failed: what happened
	Reconnectable bool
	LastError     *ErrorInfo
	Fallback      string // e.g. "fell back to legacy HTTP+SSE: POST initialize answered 405"

	PID       int
	StartedAt time.Time // zero unless connected
	Restarts  int
	Attempts  int       // consecutive reconnect attempts
	NextRetry time.Time // when the next automatic reconnect fires, if scheduled
	// GaveUp is set when automatic reconnecting stopped: the server failed
	// again after every attempt its policy allows (Attempts of them), and
	// only a manual reconnect (or a reload) starts it again.
	GaveUp bool
	// HeldBack: the server is ready but its capabilities (server info,
	// tools, prompts, resources) are held back until the servers switched
	// on with it are ready or failed too, and then published together.
	HeldBack bool `json:",omitempty"` // left out when false: recordings stay as they were

	Ping PingStats

	ServerInfo Implementation
	// Era is the protocol era negotiated with the server, ProtocolVersion
	// the revision, EraDecision how the era was decided (probed, and how;
	// remembered; pinned; switched after a late answer) and EraReason the
	// same in words, with the detail ("server/discover answered; speaking
	// 2026-07-28").
	Era             Era
	ProtocolVersion string
	EraDecision     EraDecision
	EraReason       string
	Capabilities    json.RawMessage // as the server declared them (initialize, or server/discover)
	Instructions    string

	Tools     []Tool
	Prompts   []Prompt
	Resources []Resource
	Templates []ResourceTemplate
	// ToolCost is what all of the server's tools cost an agent's context,
	// ToolCostOn what those not switched off cost (see ToolCost).
	ToolCost   ToolCost
	ToolCostOn ToolCost
	// SecretLeaks names where a configured secret appeared in the server's
	// tools, prompts or resources (it is redacted in them).
	SecretLeaks []string
	// DroppedTools are tools the server listed that mcpdeck left out, with
	// why: a modern HTTP server's tool with invalid x-mcp-header
	// annotations, whose calls could not carry the headers it checks.
	DroppedTools []DroppedTool
	// ListedAt says, per kind, when the list was fetched and how long the
	// server said it stays fresh.
	ListedAt Listings
	// Listen is a modern server's subscriptions/listen stream (nil for
	// legacy servers, and modern ones with nothing to listen to).
	Listen *ListenInfo

	// LogLevel is the log level in force ("" when none was asked for).
	LogLevel string
	// Subscriptions are the resources subscribed to, kept across reconnects.
	Subscriptions []string
	// Roots are the directories the server is offered (roots/list); none
	// means the roots capability is not declared to it.
	Roots []Root

	Outstanding []RequestInfo
	Stderr      []string // tail of stderr lines
	LastStop    StopInfo // how the last session's process was stopped
	Counters    Counters
}

// Uptime is how long the server has been connected, at now.
func (s ServerSnapshot) Uptime(now time.Time) time.Duration {
	if s.StartedAt.IsZero() || !s.State.Live() {
		return 0
	}
	return now.Sub(s.StartedAt)
}

// PingStats summarises health pings.
type PingStats struct {
	Last     time.Duration
	EWMA     time.Duration
	P50, P95 time.Duration   // over the last 100 pings
	Recent   []time.Duration // oldest first, at most 100
	Missed   int             // consecutive missed pings
	LastAt   time.Time
}

// Counters are per-server totals since the server was configured.
type Counters struct {
	Notifications    uint64
	DroppedEvents    uint64
	LateResponses    uint64
	UnknownResponses uint64
	NoiseLines       uint64
	Calls            uint64 // requests mcpdeck made that completed (tool calls and others)
	Errors           uint64 // of those, failed ones: errors, timeouts, cancellations, isError results
}

// Implementation is serverInfo from the initialize result (or, for a
// modern server, _meta of server/discover).
type Implementation = mcp.Implementation

// Tool is a normalized tool: a server's tool under a stable, unique,
// sanitized name, with everything the server said of it (its _meta among
// them: MCP Apps put ui.resourceUri and visibility there).
type Tool struct {
	Name         string          `json:"name"`   // normalized: server__tool
	Server       string          `json:"server"` // configured server name
	ServerTool   string          `json:"tool"`   // the name the server uses
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	// TaskSupport is the tool's execution.taskSupport (2025-11-25):
	// "required" tools are always called as tasks, "optional" ones when
	// CallRequest.Task asks.
	TaskSupport string          `json:"taskSupport,omitempty"`
	Icons       json.RawMessage `json:"icons,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`

	// Cost is what listing the tool costs an agent's context (ToolCost),
	// and Hash the SHA-256 of its definition (ToolDefinition.Hash); both
	// are set when the tool is listed.
	Cost ToolCost `json:"cost"`
	Hash string   `json:"sha256,omitempty"`
	// The operator's decisions (ToolPolicy), applied by the publication:
	// Disabled says the tool is switched off (calls are refused, the
	// gateway does not offer it); PinnedHash is the hash of the
	// definition last approved ("" when none is pinned); Changed, when
	// set, says how the tool differs from that, or that it shadows another
	// server's tool: the gateway withholds it until it is accepted.
	Disabled   bool        `json:"disabled,omitempty"`
	PinnedHash string      `json:"pinnedSha256,omitempty"`
	Changed    *ToolChange `json:"changed,omitempty"`
}

// Offered reports whether the gateway offers the tool to its clients:
// it is neither switched off nor changed since it was approved.
func (t Tool) Offered() bool { return !t.Disabled && t.Changed == nil }

// toolOf is the runtime's tool for a server's listed one (Name, the
// normalized name, is set by the bridge).
func toolOf(server string, t mcp.Tool) Tool {
	return withDefinition(Tool{Server: server, ServerTool: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema,
		OutputSchema: t.OutputSchema, Annotations: t.Annotations, TaskSupport: t.TaskSupport(), Icons: t.Icons, Meta: t.Meta})
}

// Wire is the tool as tools/list describes it, under name: what the
// gateway offers its clients, the server's _meta, annotations and icons
// intact. Its execution.taskSupport is left out: the runtime follows a
// task itself, so for whoever calls through it every tool answers as an
// ordinary one.
func (t Tool) Wire(name string) mcp.Tool {
	return mcp.Tool{Name: name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema,
		OutputSchema: t.OutputSchema, Annotations: t.Annotations, Icons: t.Icons, Meta: t.Meta}
}

// Prompt is a server's prompt, as the server described it.
type Prompt struct {
	Server string `json:"server"`
	mcp.Prompt
}

// PromptArgument is one argument of a prompt.
type PromptArgument = mcp.PromptArgument

// Resource is a server's resource, as the server described it.
type Resource struct {
	Server string `json:"server"`
	mcp.Resource
}

// ResourceTemplate is a server's resource template (RFC 6570 URI
// template), as the server described it.
type ResourceTemplate struct {
	Server string `json:"server"`
	mcp.ResourceTemplate
}

// RequestInfo is an outstanding request.
type RequestInfo struct {
	ID     uint64
	Server string
	Method string
	Tool   string // for tools/call
	// FirstID is the id of the request's first round trip and Round the
	// round in flight: a modern request answered input_required is retried
	// with a new id, and the Requests view shows the rounds as one row
	// (keyed by FirstID). Zero for requests mcpdeck sends only once.
	FirstID  uint64
	Round    int
	Started  time.Time
	Progress *ProgressInfo // the last progress notification, if any
	// Task is set while the request follows a task the server created:
	// between polls no wire request is outstanding, yet the request is.
	Task *TaskInfo
}

// ProgressInfo is the last progress reported for a request.
type ProgressInfo struct {
	Progress float64
	Total    float64 // 0 when unknown
	Message  string
	At       time.Time
}

// StopInfo says how a server process was stopped: which step ended it
// (exited, stdin-close, SIGTERM, SIGKILL), whether its group was cleared,
// and what the server left running when it exited (Leftovers, observed
// before mcpdeck cleared the group; command lines scrubbed of secrets).
type StopInfo struct {
	Step      StopStep          `json:"step,omitempty"`
	Exit      string            `json:"exit,omitempty"`
	Err       string            `json:"error,omitempty"`
	Took      time.Duration     `json:"took,omitempty"`
	Leftovers []LeftoverProcess `json:"leftovers,omitempty"`
}

// LeftoverProcess is a process a server left running when it exited.
type LeftoverProcess = proc.Leftover
