package runtime

import (
	"encoding/json"
	"reflect"
	"slices"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/mcphttp"
	"mcpdeck/runtime/mcp"
)

// Event is anything the runtime publishes to subscribers. Every event is
// one of the concrete types below; switch on the type.
type Event interface {
	// Header carries what every event has: when, and which server ("" for
	// the session).
	Header() EventHeader
}

// EventHeader is embedded in every event.
type EventHeader struct {
	Time   time.Time
	Server string
}

// Header returns the header; embedding it makes a type an Event.
func (h EventHeader) Header() EventHeader { return h }

// EventKind is what the runtime says of one event type, in one place. The
// recorder, the filters and the faces key by it; each face keeps its own
// words for a kind, keyed by Name.
type EventKind struct {
	// Name is the kind's stable name, a recording's "kind": old recordings
	// hold it, so it never changes once released.
	Name string
	// Alias is the kind's short word in streams and filters: the KIND of a
	// watch line and its --json "kind", and what replay --kind takes.
	// Kinds that read as one share it (request).
	Alias string
	// Type is the event's Go type.
	Type reflect.Type
}

// eventKinds is the table of event kinds: an event type is added to the
// runtime with one row here. TestEventKindTable checks the table, the
// recorder's test that it records and reads back every kind, and each
// face's test that it words every kind (or says it shows none).
var eventKinds = []EventKind{
	kindOf[StateChanged]("StateChanged", "state"),
	kindOf[Published]("Published", "publication"),
	kindOf[NotificationReceived]("NotificationReceived", "notification"),
	kindOf[LogMessage]("LogMessage", "log"),
	kindOf[Progress]("Progress", "progress"),
	kindOf[ListChanged]("ListChanged", "list_changed"),
	kindOf[ResourceUpdated]("ResourceUpdated", "resource_updated"),
	kindOf[RequestStarted]("RequestStarted", "request"),
	kindOf[RequestFinished]("RequestFinished", "request"),
	kindOf[RequestCancelled]("RequestCancelled", "request"),
	kindOf[StderrLine]("StderrLine", "stderr"),
	kindOf[StdoutNoise]("StdoutNoise", "noise"),
	kindOf[TrafficFrame]("TrafficFrame", "frame"),
	kindOf[ProtocolAnomaly]("ProtocolAnomaly", "anomaly"),
	kindOf[HTTPExchange]("HTTPExchange", "http"),
	kindOf[HealthChecked]("HealthChecked", "health"),
	kindOf[RuntimeFault]("RuntimeFault", "fault"),
	kindOf[LogLevelSet]("LogLevelSet", "log_level"),
	kindOf[SubscriptionChanged]("SubscriptionChanged", "subscription"),
	kindOf[RootsChanged]("RootsChanged", "roots"),
	kindOf[TaskUpdated]("TaskUpdated", "task"),
	kindOf[ListenChanged]("ListenChanged", "listen"),
	kindOf[ReloadPlanned]("ReloadPlanned", "reload"),
	kindOf[OperatorDecision]("OperatorDecision", "decision"),
	kindOf[AppMessage]("AppMessage", "app"),
	kindOf[ToolDecision]("ToolDecision", "tool_decision"),
}

func kindOf[E Event](name, alias string) EventKind {
	return EventKind{Name: name, Alias: alias, Type: reflect.TypeFor[E]()}
}

// eventKindIndex finds a row of eventKinds by type.
var eventKindIndex = func() map[reflect.Type]int {
	index := map[reflect.Type]int{}
	names := map[string]bool{}
	for i, k := range eventKinds {
		if _, dup := index[k.Type]; dup || names[k.Name] {
			panic("runtime: event kind " + k.Name + " is in eventKinds twice")
		}
		index[k.Type], names[k.Name] = i, true
	}
	return index
}()

// EventKinds returns the table of event kinds.
func EventKinds() []EventKind { return slices.Clone(eventKinds) }

// EventKindOf returns e's row of the table; false for a type that is not
// the runtime's (another package's event, such as the recorder's Gap).
func EventKindOf(e Event) (EventKind, bool) {
	i, ok := eventKindIndex[reflect.TypeOf(e)]
	if !ok {
		return EventKind{}, false
	}
	return eventKinds[i], true
}

// MethodOf is the JSON-RPC method an event concerns: a request's or a
// frame's, and for the notification events the notification they came
// from (notifications/message for a LogMessage…); "" for the others. The
// recorder's filters, the suites' notification expectations and the
// faces' stream lines all read it here.
func MethodOf(ev Event) string {
	switch e := ev.(type) {
	case TrafficFrame:
		return e.Frame.Method
	case RequestStarted:
		return e.Method
	case RequestFinished:
		return e.Method
	case RequestCancelled:
		return e.Method
	case NotificationReceived:
		return e.Method
	case LogMessage:
		return mcp.NotificationMessage
	case Progress:
		return mcp.NotificationProgress
	case ListChanged:
		return "notifications/" + e.Kind + "/list_changed"
	case ResourceUpdated:
		return mcp.NotificationResourceUpdated
	}
	return ""
}

// StateChanged: a server moved between states.
type StateChanged struct {
	EventHeader
	From, To State
	Reason   string
}

// Published: a new snapshot was published. Snapshot is that publication
// (without the live overlay Controller.Snapshot adds); do not modify it.
type Published struct {
	EventHeader
	Generation uint64
	Enabled    bool
	Snapshot   *Snapshot
}

// HealthChecked: a health probe (ping, or server/discover on servers
// without ping) was answered or missed. The server's PingStats in the next
// Snapshot include it.
type HealthChecked struct {
	EventHeader
	Method  string // the probe's method
	Latency time.Duration
	OK      bool
	Missed  int    // consecutive misses, this one included
	Err     string // why it was missed
}

// RuntimeFault: the controller refused a state change it was asked to
// make. It means a bug in mcpdeck, never a server's fault; the state stayed
// as it was.
type RuntimeFault struct {
	EventHeader
	Err string
}

// NotificationReceived: any notification from a server, raw.
type NotificationReceived struct {
	EventHeader
	Method string
	Params json.RawMessage
}

// LogMessage: a notifications/message from a server.
type LogMessage struct {
	EventHeader
	Level  string
	Logger string
	Data   json.RawMessage
}

// Progress: a notifications/progress routed to its request.
type Progress struct {
	EventHeader
	RequestID uint64 // 0 when the token matched no request in flight
	Token     string
	Progress  float64
	Total     float64
	Message   string
	// Tool is the request the token belongs to: its tool, or its method
	// for a request that calls no tool; "" when the token is not ours.
	Tool string
	// Late is how the request had ended ("cancelled", "ended") when its
	// progress came after its end, within lateProgressWindow: a server
	// that has not read the cancel yet, or ignores it, goes on reporting.
	// RequestID is 0 then: no request runs for it any more.
	Late string
}

// ListChanged: a server's tools, prompts or resources changed and were
// refetched and republished.
type ListChanged struct {
	EventHeader
	Kind string // tools, prompts, resources
}

// ToolDecision: the tool decisions of a server changed (ToolPolicy):
// tools were pinned when first listed, switched off or on, or a changed
// definition accepted. Err says the decision holds for this process only:
// it could not be saved.
type ToolDecision struct {
	EventHeader
	Action string   // one of the ToolAction constants
	Tools  []string // the server's names of the tools
	Err    string
}

// The actions of a ToolDecision.
const (
	ToolActionPinned   = "pinned"
	ToolActionOff      = "switched off"
	ToolActionOn       = "switched on"
	ToolActionAccepted = "accepted"
)

// ResourceUpdated: notifications/resources/updated.
type ResourceUpdated struct {
	EventHeader
	URI string
}

// LogLevelSet: a person chose a server's log level (SetLogLevel).
type LogLevelSet struct {
	EventHeader
	Level string
}

// SubscriptionChanged: a resource subscription began or ended.
type SubscriptionChanged struct {
	EventHeader
	URI        string
	Subscribed bool
}

// RootsChanged: a person chose the roots a server is offered.
type RootsChanged struct {
	EventHeader
	Roots []Root
}

// ReloadPlanned: a configuration reload, with the plan it applied, or why
// it was refused.
type ReloadPlanned struct {
	EventHeader
	Plan Plan
	Err  string
}

// RequestStarted: a request was sent. A modern request retried after
// input_required sends one per round: Round counts them and FirstID is the
// first round's id, the one request they all belong to.
type RequestStarted struct {
	EventHeader
	ID      uint64
	Method  string
	Tool    string
	Round   int
	FirstID uint64
}

// RequestFinished: a request completed, successfully or not.
type RequestFinished struct {
	EventHeader
	ID       uint64
	Method   string
	Tool     string
	Duration time.Duration
	IsError  bool   // a tool result with isError
	Err      string // a protocol, transport or timeout error
	Round    int
	FirstID  uint64
	// Continues says the response did not end the request: "input_required"
	// (another round follows; Inputs lists "key: method" of what the server
	// asked for) or "task" (the request follows a task; see TaskUpdated).
	Continues string
	Inputs    []string
}

// RequestCancelled: a request was cancelled (user, timeout or context);
// the server was sent notifications/cancelled.
type RequestCancelled struct {
	EventHeader
	ID      uint64
	Method  string
	Tool    string
	Reason  string
	Round   int
	FirstID uint64
}

// TaskUpdated: a task a request follows changed state (see TaskInfo).
// RequestID is the request's first round id.
type TaskUpdated struct {
	EventHeader
	RequestID uint64
	Method    string
	Tool      string
	Task      TaskInfo
}

// ListenChanged: a modern server's subscriptions/listen stream was
// acknowledged (with the filter granted), or ended and is being opened
// again (Err says why).
type ListenChanged struct {
	EventHeader
	Listen *ListenInfo
}

// StderrLine: a line the server wrote to stderr.
type StderrLine struct {
	EventHeader
	Line string
}

// StdoutNoise: something on the server's stdout that is not JSON-RPC.
type StdoutNoise struct {
	EventHeader
	Line   string
	Detail string
}

// Frame is a traced JSON-RPC frame.
type Frame = jsonrpc.Frame

// Direction of a frame.
type Direction = jsonrpc.Direction

// Frame directions.
const (
	In  = jsonrpc.In
	Out = jsonrpc.Out
)

// TrafficFrame: a JSON-RPC frame sent or received.
type TrafficFrame struct {
	EventHeader
	Frame Frame
}

// ProtocolAnomaly: a response with an unknown id, or a late response.
type ProtocolAnomaly struct {
	EventHeader
	Kind   string
	ID     string
	Detail string
}

// FrameKind classifies a traced frame.
type FrameKind = jsonrpc.FrameKind

// Frame kinds.
const (
	FrameRequest      = jsonrpc.KindRequest
	FrameNotification = jsonrpc.KindNotification
	FrameResult       = jsonrpc.KindResult
	FrameError        = jsonrpc.KindError
)

// Anomaly kinds as ProtocolAnomaly.Kind spells them.
var (
	AnomalyUnknownResponse = jsonrpc.AnomalyUnknownResponse.String()
	AnomalyLateResponse    = jsonrpc.AnomalyLateResponse.String()
)

// HTTPExchange: one HTTP request and response of a remote server's
// transport (the SSE events of a streamed response in its body), for
// HTTP Archive export. Header credentials are redacted, bodies scrubbed.
type HTTPExchange struct {
	EventHeader
	Exchange mcphttp.Exchange
}
