package present

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"mcpdeck/runtime"
	"mcpdeck/runtime/gateway"
)

// EventLine is how both faces word one runtime event: the stream entry of
// the terminal UI's Notifications and Logs tabs and the line of
// `mcpdeck watch`. Every field is clean and on one line.
type EventLine struct {
	// Kind is the event kind's alias (runtime.EventKind): state, log,
	// progress, list_changed, resource_updated, notification, noise,
	// anomaly, stderr, task (a task a request follows changed state),
	// listen (a subscriptions/listen stream opened or is being opened
	// again) or decision (a sampling request answered, a gateway call
	// approved or denied).
	Kind string
	// Method is the notification's method, for the notification kinds.
	Method string
	// Level is a log message's level.
	Level string
	// Text is the summary after the kind.
	Text string
}

// Notification reports whether the line is a server notification (the
// Notifications tab) rather than something about the server (Logs).
func (l EventLine) Notification() bool { return l.Method != "" }

// summaryLimit bounds a summary: a stream row shows a line, not a payload.
const summaryLimit = 400

// Describe words ev, or reports false for events that are not lines of a
// stream (traffic, requests, publications, health checks).
func Describe(ev runtime.Event) (EventLine, bool) {
	k, ok := runtime.EventKindOf(ev)
	words := eventWords[k.Name]
	if !ok || words == nil {
		return EventLine{}, false
	}
	l := EventLine{Kind: k.Alias}
	if !words(ev, &l) {
		return EventLine{}, false
	}
	l.Method = Line(runtime.MethodOf(ev)) // only the notification kinds have one among the lines
	l.Text = OneLine(l.Text, summaryLimit)
	return l, true
}

// eventWords words each kind of event as a stream line, keyed by the
// runtime's table of event kinds (runtime.EventKinds): every kind has an
// entry, nil for the kinds that are not lines of a stream. A kind added to
// the runtime fails TestEveryEventKindIsWorded until it has its entry.
var eventWords = map[string]func(runtime.Event, *EventLine) bool{
	"StateChanged": words(func(e runtime.StateChanged, l *EventLine) {
		l.Text = TransitionWord(e.From) + " → " + TransitionWord(e.To)
		if e.Reason != "" {
			l.Text += ": " + e.Reason
		}
	}),
	"LogMessage": words(func(e runtime.LogMessage, l *EventLine) {
		l.Level, l.Text = Line(e.Level), JSONText(e.Data)
		if e.Logger != "" {
			l.Text = "[" + e.Logger + "] " + l.Text
		}
	}),
	"Progress": words(func(e runtime.Progress, l *EventLine) {
		l.Text = ProgressText(e.Progress, e.Total, e.Message)
		switch {
		case e.Late != "":
			l.Text = "late progress for " + Line(e.Tool) + " (" + e.Late + "): " + l.Text
		case e.RequestID != 0:
			l.Text += " (request " + strconv.FormatUint(e.RequestID, 10) + ")"
		default:
			l.Text += " (token " + e.Token + ")"
		}
	}),
	"ListChanged": words(func(e runtime.ListChanged, l *EventLine) {
		l.Text = e.Kind + " list changed"
	}),
	"ToolDecision": words(func(e runtime.ToolDecision, l *EventLine) {
		l.Text = e.Action + " " + Count(len(e.Tools), "tool", "tools") + ": " + Line(strings.Join(e.Tools, ", "))
		if e.Err != "" {
			l.Level, l.Text = "warning", l.Text+" (for this run only: "+e.Err+")"
		}
	}),
	"ResourceUpdated": words(func(e runtime.ResourceUpdated, l *EventLine) {
		l.Text = e.URI
	}),
	"NotificationReceived": words(func(e runtime.NotificationReceived, l *EventLine) {
		l.Text = CompactJSON(e.Params)
	}),
	"StdoutNoise": words(func(e runtime.StdoutNoise, l *EventLine) {
		l.Text = e.Line
		if e.Detail != "" {
			l.Text += " (" + e.Detail + ")"
		}
	}),
	"ProtocolAnomaly": words(func(e runtime.ProtocolAnomaly, l *EventLine) {
		l.Text = strings.TrimSpace(e.Kind + " id=" + e.ID + " " + e.Detail)
	}),
	"StderrLine": words(func(e runtime.StderrLine, l *EventLine) { l.Text = e.Line }),
	"TaskUpdated": words(func(e runtime.TaskUpdated, l *EventLine) {
		l.Text = "task " + e.Task.TaskID + " (" + e.Tool + ", request " + strconv.FormatUint(e.RequestID, 10) + "): " + e.Task.Status
		if e.Task.Message != "" {
			l.Text += ": " + e.Task.Message
		}
	}),
	"OperatorDecision": words(func(e runtime.OperatorDecision, l *EventLine) {
		l.Text = DecisionText(e)
	}),
	"ListenChanged": func(ev runtime.Event, l *EventLine) bool {
		e := ev.(runtime.ListenChanged)
		if e.Listen == nil {
			return false
		}
		l.Text = "subscriptions/listen " + e.Listen.State + ": " + runtime.FilterString(e.Listen.Granted)
		if e.Listen.Err != "" {
			l.Text += " (" + e.Listen.Err + ")"
		}
		return true
	},
	// Not lines of a stream: what they change shows elsewhere (the server
	// list, the request history, the traffic view) or nowhere.
	"Published":           nil,
	"RequestStarted":      nil,
	"RequestFinished":     nil,
	"RequestCancelled":    nil,
	"TrafficFrame":        nil,
	"AppMessage":          nil,
	"HTTPExchange":        nil,
	"HealthChecked":       nil,
	"RuntimeFault":        nil,
	"LogLevelSet":         nil,
	"SubscriptionChanged": nil,
	"RootsChanged":        nil,
	"ReloadPlanned":       nil,
}

// words adapts a wording of one event type to eventWords.
func words[E runtime.Event](f func(E, *EventLine)) func(runtime.Event, *EventLine) bool {
	return func(ev runtime.Event, l *EventLine) bool {
		f(ev.(E), l)
		return true
	}
}

// ProgressText is "1.5/3 (50%) message", or "1.5 message" without a total.
func ProgressText(progress, total float64, message string) string {
	s := Number(progress)
	if total > 0 {
		s += fmt.Sprintf("/%s (%d%%)", Number(total), int(math.Floor(100*math.Min(progress/total, 1))))
	}
	if message != "" {
		s += " " + Line(message)
	}
	return s
}

// DecisionText words a decision for a stream line and the gateway's log:
// "approval g42-1: tool fs__write for claude-code (c1) denied by the
// operator (TUI) after 3.2s (rule gateway.tools.approve[0] …)".
func DecisionText(e runtime.OperatorDecision) string {
	var b strings.Builder
	switch e.Kind {
	case runtime.DecisionApproval:
		b.WriteString("approval " + e.ID + ": " + e.Subject)
		if e.Client != "" {
			b.WriteString(" for " + e.Client)
		}
	default:
		b.WriteString(e.Subject)
	}
	b.WriteString(" " + e.Decision)
	if e.By != "" && e.Decision != gateway.TimedOut { // nobody decides a timeout
		b.WriteString(" by " + e.By)
	}
	if !e.Asked.IsZero() && e.Time.After(e.Asked) {
		b.WriteString(" after " + Latency(e.Time.Sub(e.Asked)))
	}
	if e.Reason != "" {
		b.WriteString(": " + e.Reason)
	}
	if e.Rule != "" {
		b.WriteString(" (rule " + e.Rule + ")")
	}
	return b.String()
}
