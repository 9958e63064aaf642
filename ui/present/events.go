package present

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"mcpdeck/runtime"
)

// EventLine is how both faces word one runtime event: the stream entry of
// the terminal UI's Notifications and Logs tabs and the line of
// `mcpdeck watch`. Every field is clean and on one line.
type EventLine struct {
	// Kind names what happened: state, log, progress, list_changed,
	// resource_updated, notification, noise, anomaly, stderr, task (a task
	// a request follows changed state) or listen (a subscriptions/listen
	// stream opened or is being opened again).
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
	var l EventLine
	switch e := ev.(type) {
	case runtime.StateChanged:
		l.Kind, l.Text = "state", e.From.String()+" → "+e.To.String()
		if e.Reason != "" {
			l.Text += ": " + e.Reason
		}
	case runtime.LogMessage:
		l.Kind, l.Method, l.Level, l.Text = "log", "notifications/message", Line(e.Level), JSONText(e.Data)
		if e.Logger != "" {
			l.Text = "[" + e.Logger + "] " + l.Text
		}
	case runtime.Progress:
		l.Kind, l.Method, l.Text = "progress", "notifications/progress", ProgressText(e.Progress, e.Total, e.Message)
		if e.RequestID != 0 {
			l.Text += " (request " + strconv.FormatUint(e.RequestID, 10) + ")"
		} else {
			l.Text += " (token " + e.Token + ")"
		}
	case runtime.ListChanged:
		l.Kind, l.Method, l.Text = "list_changed", "notifications/"+e.Kind+"/list_changed", e.Kind+" list changed"
	case runtime.ResourceUpdated:
		l.Kind, l.Method, l.Text = "resource_updated", "notifications/resources/updated", e.URI
	case runtime.NotificationReceived:
		l.Kind, l.Method, l.Text = "notification", e.Method, CompactJSON(e.Params)
	case runtime.StdoutNoise:
		l.Kind, l.Text = "noise", e.Line
		if e.Detail != "" {
			l.Text += " (" + e.Detail + ")"
		}
	case runtime.ProtocolAnomaly:
		l.Kind, l.Text = "anomaly", strings.TrimSpace(e.Kind+" id="+e.ID+" "+e.Detail)
	case runtime.StderrLine:
		l.Kind, l.Text = "stderr", e.Line
	case runtime.TaskUpdated:
		l.Kind, l.Text = "task", "task "+e.Task.TaskID+" ("+e.Tool+", request "+strconv.FormatUint(e.RequestID, 10)+"): "+e.Task.Status
		if e.Task.Message != "" {
			l.Text += ": " + e.Task.Message
		}
	case runtime.ListenChanged:
		if e.Listen == nil {
			return l, false
		}
		l.Kind, l.Text = "listen", "subscriptions/listen "+e.Listen.State+": "+runtime.FilterString(e.Listen.Granted)
		if e.Listen.Err != "" {
			l.Text += " (" + e.Listen.Err + ")"
		}
	default:
		return l, false
	}
	l.Method = Line(l.Method)
	l.Text = OneLine(l.Text, summaryLimit)
	return l, true
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
