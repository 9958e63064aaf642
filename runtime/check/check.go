// Package check owns mcpdeck's compatibility check: it proves one MCP server
// ready for clients, on the transport its configuration declares, as a list
// of items (initialization, tool listing, a call, invalid input,
// cancellation, reconnect, shutdown, and the authoring rules), each PASS,
// WARN, FAIL or SKIP with a one-line reason that tells the server's author
// what to fix.
//
// The checker builds its own runtime.Controller for the one server, with
// automatic reconnect and health pings off, so that it controls every step
// and can run beside a live session (the TUI runs it on the selected server
// while its own connection stays up). Its probes, requests a client would
// never send, go on connections that controller dials the way it dials its
// sessions (runtime's DialHTTP and StartStdio, mcphttp's SendRaw): the same
// headers, token, size limits and redirect policy. It never prints anything.
package check

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/auth"
	"mcpdeck/runtime/telemetry"
)

// ErrInvalidOptions is wrapped by Options.Validate for options that cannot
// run: arguments that are not a JSON object, or arguments without a tool.
var ErrInvalidOptions = errors.New("invalid check options")

// Status is an item's outcome. The order is by severity, so the worst of a
// set is its maximum.
type Status int

// The outcomes of an item.
const (
	Pass Status = iota // the server does what the item asks
	Skip               // the item could not run; the reason says why
	Warn               // works, but something should be fixed
	Fail               // a client will break on this
)

var statusNames = [...]string{"PASS", "SKIP", "WARN", "FAIL"}

// String returns the status as printed: PASS, SKIP, WARN or FAIL.
func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// MarshalText makes a status JSON as its name.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a status from its name, as --json writes it.
func (s *Status) UnmarshalText(b []byte) error {
	for i, n := range statusNames {
		if n == string(b) {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("unknown check status %q", b)
}

// verdict is what an item's findings come to: any failure fails it (its
// warnings said after the failures), else any warning warns. found is
// false when there are neither, for the item to word its own pass.
func verdict(fails, warns []string) (st Status, reason string, found bool) {
	switch {
	case len(fails) > 0:
		return Fail, strings.Join(append(fails, warns...), "; "), true
	case len(warns) > 0:
		return Warn, strings.Join(warns, "; "), true
	}
	return Pass, "", false
}

// The stable item ids, in report order. Scripts and CI match on them.
const (
	IDInitialize       = "initialize"
	IDToolsList        = "tools-list"
	IDCall             = "call"
	IDInvalidInput     = "invalid-input"
	IDCancellation     = "cancellation"
	IDReconnect        = "reconnect"
	IDShutdown         = "shutdown"
	IDStableNames      = "stable-names"
	IDBoundedResults   = "bounded-results"
	IDActionableErrors = "actionable-errors"
	IDNoSecrets        = "no-secrets"
	IDResponseIDs      = "response-ids"
	IDNoNotification   = "no-notification-for-response"
	IDStdoutClean      = "stdout-clean"
	IDAuthorization    = "authorization"
	IDEnvironment      = "environment"
	IDPinned           = "pinned-definitions"
	IDInstructionText  = "instruction-text"
)

// itemName is an item's id with its human name.
type itemName struct{ id, name string }

// itemList is a group of items in report order.
type itemList []itemName

// ids are the list's ids, in its order.
func (l itemList) ids() []string {
	out := make([]string, len(l))
	for i, n := range l {
		out[i] = n.id
	}
	return out
}

// itemNames are the human names of the items, in report order.
var itemNames = itemList{
	{IDInitialize, "Initialization"},
	{IDToolsList, "Tool listing"},
	{IDCall, "One successful call"},
	{IDInvalidInput, "Invalid input"},
	{IDCancellation, "Cancellation"},
	{IDReconnect, "Reconnect after a dropped transport"},
	{IDShutdown, "Shutdown"},
	{IDStableNames, "Stable tool names"},
	{IDBoundedResults, "Bounded results"},
	{IDActionableErrors, "Actionable errors"},
	{IDNoSecrets, "No secrets in tools"},
	{IDResponseIDs, "Responses keep their request id"},
	{IDNoNotification, "No notification for a response"},
	{IDStdoutClean, "Nothing but JSON-RPC on stdout"},
	{IDAuthorization, "Authorization"},
	{IDEnvironment, "Environment"},
	{IDPinned, "Tool definitions as approved"},
	{IDInstructionText, "No instruction-like text"},
}

// IDs returns every item id of every report, in report order. The
// reports of modern servers add ModernIDs after them.
func IDs() []string { return itemNames.ids() }

// ModernIDs returns the ids of the items only modern (2026-07-28) servers
// are checked for, in report order; they follow IDs.
func ModernIDs() []string { return modernItems.ids() }

// Name returns the human name of the item id, or the id itself.
func Name(id string) string {
	if name, ok := profileName(id); ok {
		return name
	}
	for _, n := range slices.Concat(itemNames, modernItems, appItems) {
		if n.id == id {
			return n.name
		}
	}
	return id
}

// Item is one checked property of the server.
type Item struct {
	ID       string        `json:"id"`
	Name     string        `json:"name"`
	Status   Status        `json:"status"`
	Reason   string        `json:"reason"`
	Duration time.Duration `json:"-"`
	// Changed lists the tools whose definitions differ from the ones
	// pinned (pinned-definitions), or whose changed description reads as
	// instructions to the model (instruction-text).
	Changed []ChangedTool `json:"changed,omitempty"`
}

// ChangedTool is a tool changed since the operator approved it: how
// (runtime.ToolChange) and its name.
type ChangedTool struct {
	Tool string `json:"tool"`
	runtime.ToolChange
}

// Report is the outcome of checking one server: every item, in report
// order (see IDs).
type Report struct {
	Server    string `json:"server"`
	Transport string `json:"transport"`
	// Era and ProtocolVersion are what the check negotiated with the
	// server ("modern" 2026-07-28, "legacy" 2025-11-25…); empty when it
	// never got that far.
	Era             string `json:"era,omitempty"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	Items           []Item `json:"items"`
	// Profiles are the client profiles asked for (Options.Profiles), each
	// limit with its finding; their items are among Items too.
	Profiles []ProfileResult `json:"profiles,omitempty"`
}

// Failed reports whether any item failed.
func (r Report) Failed() bool { return r.Worst() == Fail }

// Worst returns the most severe status of the report's items.
func (r Report) Worst() Status {
	worst := Pass
	for _, it := range r.Items {
		worst = max(worst, it.Status)
	}
	return worst
}

// Item returns the item with id.
func (r Report) Item(id string) (Item, bool) {
	for _, it := range r.Items {
		if it.ID == id {
			return it, true
		}
	}
	return Item{}, false
}

// Counts returns how many items have each status.
func (r Report) Counts() map[Status]int {
	out := map[Status]int{}
	for _, it := range r.Items {
		out[it.Status]++
	}
	return out
}

// Defaults of Options.
const (
	DefaultCallTimeout = 10 * time.Second
	DefaultMaxCallTime = 2 * time.Minute
	DefaultResultMax   = 4 << 20
	DefaultStopGrace   = 2 * time.Second
	// ResultWarn is the result size over which bounded-results warns: a
	// result that large crowds a model's context.
	ResultWarn = 256 << 10
)

// Options tune a check.
type Options struct {
	// Tool is the tool the call step invokes; empty lets the checker pick
	// one whose schema it can satisfy.
	Tool string
	// Args are Tool's arguments (a JSON object); nil generates minimal
	// valid arguments from the schema.
	Args json.RawMessage
	// CallTimeout bounds each request, and so how long the checker waits
	// for an answer that should come but may not (a response sent with the
	// wrong id, or as a notification); default 10 s.
	CallTimeout time.Duration
	// MaxCallTime bounds how far progress extends a call: a tool that
	// keeps reporting progress is waited for up to this long (each
	// notification restarts CallTimeout); default 2 min.
	MaxCallTime time.Duration
	// ResultMax is the largest acceptable tool result in bytes; larger
	// fails bounded-results; default 4 MiB.
	ResultMax int
	// StopGrace is each step's grace when stopping a stdio server (stdin
	// close, then SIGTERM, then SIGKILL); default 2 s.
	StopGrace time.Duration
	// ClientVersion is sent in clientInfo.
	ClientVersion string
	// Protocol chooses the era to check in (auto, legacy, modern or a
	// revision), over the server's own "protocol" setting; empty keeps it.
	Protocol string
	// OnController, if set, is handed the check's own controller before
	// it starts anything (a session recorder subscribes to it there).
	OnController func(*runtime.Controller)
	// Elicitor answers the server's elicitation requests; nil declines
	// them. Either way the check declares elicitation, as every mcpdeck
	// client does, so the server lists the tools it lists to them (some
	// offer a tool only to a client that can answer it).
	Elicitor runtime.Elicitor
	// Sampler, when set, answers sampling requests, and the check declares
	// sampling as the session it stands for does (the TUI always does: a
	// person answers); nil declares none, as a headless command without
	// --sampling. Either way the server lists the tools that session sees.
	Sampler runtime.Sampler
	// Roots and LogLevel are what a session offers the server (--root,
	// --log-level); empty keeps the defaults.
	Roots    []string
	LogLevel string
	// Auth authorizes a remote server that requires MCP authorization
	// with the tokens it stores; nil checks without (such a server then
	// fails initialization with "needs login").
	Auth *auth.Manager
	// Telemetry gets a span for every request the check sends; nil sends
	// none.
	Telemetry *telemetry.Telemetry
	// Profiles are the client profiles to judge the server against
	// (ResolveProfiles), one item each after the others.
	Profiles []Profile
	// Tools are the operator's tool decisions: the pinned definitions
	// pinned-definitions compares the listing with. Nil checks against
	// none (the listing is pinned for the check alone).
	Tools *runtime.ToolPolicy
}

// Validate reports options that cannot run.
func (o Options) Validate() error {
	if len(o.Args) == 0 {
		return nil
	}
	if o.Tool == "" {
		return fmt.Errorf("%w: arguments need a tool to go with them (--tool NAME)", ErrInvalidOptions)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(o.Args, &obj); err != nil || obj == nil || bytes.TrimSpace(o.Args)[0] != '{' {
		return fmt.Errorf("%w: arguments must be a JSON object, such as '{\"text\": \"hi\"}'", ErrInvalidOptions)
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.Elicitor == nil {
		o.Elicitor = runtime.DeclineElicitor{}
	}
	if o.MaxCallTime <= 0 {
		o.MaxCallTime = DefaultMaxCallTime
	}
	if o.ResultMax <= 0 {
		o.ResultMax = DefaultResultMax
	}
	if o.StopGrace <= 0 {
		o.StopGrace = DefaultStopGrace
	}
	return o
}

// Run checks one server and returns the report. progress, if not nil, is
// called with each item as it is decided, in report order, from Run's
// goroutine. Run starts the server itself, on its own controller, and
// stops it before returning; no process of the server outlives it. When
// ctx ends, the items not yet decided are SKIP.
func Run(ctx context.Context, srv config.Server, opts Options, progress func(Item)) Report {
	c := newChecker(ctx, srv, opts.withDefaults(), progress)
	defer c.close()
	c.run()
	return c.report
}
