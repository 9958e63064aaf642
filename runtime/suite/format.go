package suite

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"mcpdeck/config"
)

// ErrInvalid matches an Errors value: a suite file has problems and
// nothing of it may run.
var ErrInvalid = errors.New("invalid test suite")

// Suite is one parsed suite file.
type Suite struct {
	Path string // the file, as given
	Name string // "name:", else the file name without .mcptest.yaml
	// Server is the server the steps run against: a configured one by
	// name, or an inline definition.
	Server ServerRef
	// Protocols are the eras or revisions to run the suite on, each a full
	// run of its own; one empty entry means the configuration's (or the
	// --protocol flag's) choice.
	Protocols []string
	// Timeout bounds each step that sets none; 0 keeps the server's call
	// timeout.
	Timeout time.Duration
	// Inputs give values to the configuration's ${input:ID} variables
	// (VS Code inputs), so servers that use them can start outside VS Code;
	// steps refer to them as ${input:ID}. Values may use ${env:NAME}.
	Inputs map[string]string
	// Ignore are JSONPath queries left out of every snapshot of the suite.
	Ignore []string
	Steps  []Step
	// SnapshotPath is where the suite's snapshots are kept:
	// __snapshots__/FILE.snap.json beside the suite.
	SnapshotPath string
}

// ServerRef names the server of a suite.
type ServerRef struct {
	Name   string        // a configured server
	Inline *InlineServer // or one defined in the suite
	Pos    Pos
}

// String names the server for people.
func (r ServerRef) String() string {
	if r.Inline == nil {
		return r.Name
	}
	if r.Inline.URL != "" {
		return r.Inline.URL
	}
	return strings.TrimSpace(r.Inline.Command + " " + strings.Join(r.Inline.Args, " "))
}

// InlineServer is a server defined in the suite itself. It becomes an
// ad-hoc server exactly as --stdio or --url would make it.
type InlineServer struct {
	Command   string            `json:"command,omitempty"`
	Args      []string          `json:"args,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	Cwd       string            `json:"cwd,omitempty"` // relative to the suite's directory
	URL       string            `json:"url,omitempty"`
	Headers   map[string]string `json:"headers,omitempty"`
	Transport string            `json:"transport,omitempty"` // http or sse, for url
}

// Kind is what a step does.
type Kind string

// The step kinds. Each step has exactly one of these keys.
const (
	KindList      Kind = "list"      // list: tools|resources|templates|prompts (every page)
	KindCall      Kind = "call"      // call: TOOL, args: {...}
	KindRead      Kind = "read"      // read: URI
	KindPrompt    Kind = "prompt"    // prompt: NAME, args: {K: V}
	KindComplete  Kind = "complete"  // complete: {prompt|template, argument, value, context}
	KindSubscribe Kind = "subscribe" // subscribe: URI, then wait for its update
	KindWait      Kind = "wait"      // wait: METHOD, for a notification
)

// Kinds lists the step kinds in the order the format documents them.
var Kinds = []Kind{KindList, KindCall, KindRead, KindPrompt, KindComplete, KindSubscribe, KindWait}

// Listings are what a list step may list, and the method of each.
var Listings = map[string]string{
	"tools":     "tools/list",
	"resources": "resources/list",
	"templates": "resources/templates/list",
	"prompts":   "prompts/list",
}

// Step is one step of a suite.
type Step struct {
	Pos   Pos
	Index int    // 0-based, in the file
	ID    string // "id:", for snapshots and ${steps.ID...}; "" when not given
	Name  string // "name:", a description for the report
	Kind  Kind
	// Target is the kind's value: the listing, tool, URI, prompt name, or
	// notification method. For complete it is empty (see Complete).
	Target string
	// Args are a call's arguments (a JSON object) or a prompt's (strings);
	// any string may hold ${...} variables.
	Args     any
	Complete *CompleteSpec
	// Trigger is a call a subscribe step makes after subscribing, to cause
	// the update it waits for.
	Trigger *Trigger
	// Where narrows the notification a wait step waits for: JSONPath
	// queries into the notification ({method, params}) and their values.
	Where []PathValue
	// Timeout bounds the step's request (or a wait); 0: the suite's.
	Timeout time.Duration
	// NoValidate sends a call's arguments without checking them against
	// the tool's input schema, to test the server's own validation.
	NoValidate bool
	Expect     Expect
}

// Key is the step's name in snapshots and reports: its id, else its
// position ("step-3", 1-based).
func (s *Step) Key() string {
	if s.ID != "" {
		return s.ID
	}
	return fmt.Sprintf("step-%d", s.Index+1)
}

// Label describes the step for people: its name, else what it does.
func (s *Step) Label() string {
	if s.Name != "" {
		return s.Name
	}
	switch s.Kind {
	case KindList:
		return "list " + s.Target
	case KindComplete:
		c := s.Complete
		if c.Prompt != "" {
			return fmt.Sprintf("complete %s of prompt %s", c.Argument, c.Prompt)
		}
		return fmt.Sprintf("complete %s of %s", c.Argument, c.Template)
	case KindWait:
		return "wait for " + s.Target
	}
	return string(s.Kind) + " " + s.Target
}

// CompleteSpec is a completion/complete request.
type CompleteSpec struct {
	Prompt   string `json:"prompt,omitempty"`   // a prompt's name, or
	Template string `json:"template,omitempty"` // a resource template's URI template
	Argument string `json:"argument"`
	Value    string `json:"value"`
	// Context holds arguments already filled in.
	Context map[string]string `json:"context,omitempty"`
}

// Trigger is the call a subscribe step makes to cause an update.
type Trigger struct {
	Call string
	Args any
}

// Expect is what a step's outcome must satisfy. Paths are RFC 9535
// JSONPath queries into the step's result document (see FORMAT.md).
type Expect struct {
	// IsError, when set, is the value a call's isError must have. A call
	// with no expectation about it must not return isError.
	IsError *bool
	// Error, when set, expects the request to fail with a JSON-RPC error.
	Error *ErrorExpect
	// Equals: the value at each path equals the given one.
	Equals []PathValue
	// Matches: the value at each path (a string, or compact JSON otherwise)
	// matches the regular expression (RE2).
	Matches []PathValue
	// Exists and Absent: each path selects something, or nothing.
	Exists, Absent []PathRef
	// Schema is a JSON Schema the structured content (for a call) or the
	// whole result (other steps) must satisfy.
	Schema any
	// OutputSchema: the tool's own outputSchema holds for the result.
	OutputSchema bool
	// Snapshot compares the result with the stored snapshot, leaving out
	// SnapshotIgnore paths (and the suite's).
	Snapshot       bool
	SnapshotIgnore []string
	// Latency bounds the step's duration.
	Latency time.Duration
	// Notifications are notifications the server must send during the
	// step (progress for this request, logs, list changes, ...).
	Notifications []NotificationExpect
}

// ErrorExpect is an expected JSON-RPC error.
type ErrorExpect struct {
	Code    *int64
	Message string // a regular expression; "" matches any
	Pos     Pos    // where it is written
}

// PathValue is a JSONPath query and a value (or a pattern, in Matches).
type PathValue struct {
	Path  string
	Value any
	Pos   Pos
}

// PathRef is a JSONPath query alone.
type PathRef struct {
	Path string
	Pos  Pos
}

// NotificationExpect asks for notifications of one method during a step.
type NotificationExpect struct {
	Method  string
	Min     int  // at least (default 1)
	Max     *int // at most, when set
	Equals  []PathValue
	Matches []PathValue
	Pos     Pos
}

// Pos is a place in a suite file: file:line:col as the configuration's
// errors say it (Line and Column are 1-based).
type Pos = config.Position

// Error is one problem in a suite file.
type Error struct {
	Pos Pos
	Msg string
}

func (e Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Errors are every problem found in suite files, in file order;
// errors.Is(err, ErrInvalid) matches them.
type Errors []Error

func (e Errors) Error() string {
	lines := make([]string, len(e))
	for i, x := range e {
		lines[i] = x.Error()
	}
	return strings.Join(lines, "\n")
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e Errors) Is(target error) bool { return target == ErrInvalid }
