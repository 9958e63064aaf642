package record

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// Filter selects entries for `mcpdeck replay --json/--text`, with the
// filters `watch` has. The zero Filter matches everything.
type Filter struct {
	Servers []string // exact names; empty matches every server
	Methods []string // substrings of the JSON-RPC method an entry concerns
	Kinds   []string // registry kinds or watch's kind names, any case
	// MinLevel hides log messages less severe than it (MCP's syslog
	// levels); other entries are not affected.
	MinLevel string
	// Since and Until bound the offset from the recording's start; a zero
	// Until means no bound.
	Since, Until time.Duration
}

// CheckKinds reports a kind the filter cannot match, naming the valid ones.
func CheckKinds(kinds []string) error {
	for _, k := range kinds {
		if len(registry().expand(k)) == 0 {
			return fmt.Errorf("unknown kind %q: use one of %s", k, strings.Join(append(Kinds(), KindAliases()...), ", "))
		}
	}
	return nil
}

// Match reports whether e passes the filter.
func (f Filter) Match(e Entry) bool {
	if e.Mono < f.Since || (f.Until > 0 && e.Mono > f.Until) {
		return false
	}
	if len(f.Kinds) > 0 {
		ok := false
		for _, k := range f.Kinds {
			for _, name := range registry().expand(k) {
				ok = ok || name == e.Kind
			}
		}
		if !ok {
			return false
		}
	}
	if len(f.Servers) > 0 {
		srv := e.Event.Header().Server
		ok := false
		for _, s := range f.Servers {
			ok = ok || s == srv
		}
		if !ok {
			return false
		}
	}
	if len(f.Methods) > 0 {
		m := runtime.MethodOf(e.Event)
		ok := false
		for _, want := range f.Methods {
			ok = ok || (m != "" && strings.Contains(m, want))
		}
		if !ok {
			return false
		}
	}
	if lm, ok := e.Event.(runtime.LogMessage); ok && f.MinLevel != "" && mcp.LevelRank(lm.Level) < mcp.LevelRank(f.MinLevel) {
		return false
	}
	return true
}

// entryJSON is one line of `mcpdeck replay --json`.
type entryJSON struct {
	Seq    uint64        `json:"seq"`
	Offset time.Duration `json:"offset"` // nanoseconds from the start
	Time   time.Time     `json:"time"`
	Server string        `json:"server"`
	Kind   string        `json:"kind"`
	Era    string        `json:"era,omitempty"`
	Event  any           `json:"event"`
}

// MarshalEntry is e as one line of stable JSON (without the newline):
// {"seq", "offset" (ns), "time", "server", "kind", "era", "event"}, the
// event in the recording's own representation (see FORMAT.md).
func MarshalEntry(e Entry) ([]byte, error) {
	var ev any = e.Event
	if u, ok := e.Event.(Unknown); ok {
		ev = u.Raw
	}
	h := e.Event.Header()
	return marshal(entryJSON{Seq: e.Seq, Offset: e.Mono, Time: h.Time, Server: h.Server, Kind: e.Kind, Era: e.Era, Event: ev})
}

// Summary is one line about e for people. Text from servers is made
// printable: control characters are shown escaped, never sent to a
// terminal.
func Summary(e Entry) string {
	return printable(summary(e))
}

func summary(e Entry) string {
	switch ev := e.Event.(type) {
	case runtime.StateChanged:
		s := ev.From.String() + " → " + ev.To.String()
		if ev.Reason != "" {
			s += ": " + ev.Reason
		}
		return s
	case runtime.Published:
		if ev.Snapshot == nil {
			return fmt.Sprintf("generation %d", ev.Generation)
		}
		ready, total, tools, _ := ev.Snapshot.Counts()
		return fmt.Sprintf("generation %d, MCP %s, %d/%d servers ready, %d tools", ev.Generation, onOff(ev.Enabled), ready, total, tools)
	case runtime.LogMessage:
		s := ev.Level
		if ev.Logger != "" {
			s += " [" + ev.Logger + "]"
		}
		return s + " " + string(ev.Data)
	case runtime.Progress:
		s := strconv.FormatFloat(ev.Progress, 'g', -1, 64)
		if ev.Total > 0 {
			s += "/" + strconv.FormatFloat(ev.Total, 'g', -1, 64)
		}
		if ev.Message != "" {
			s += " " + ev.Message
		}
		if ev.RequestID != 0 {
			return s + fmt.Sprintf(" (request %d)", ev.RequestID)
		}
		return s + " (token " + ev.Token + ")"
	case runtime.ListChanged:
		return ev.Kind + " list changed"
	case runtime.ResourceUpdated:
		return ev.URI
	case runtime.NotificationReceived:
		return ev.Method + " " + string(ev.Params)
	case runtime.RequestStarted:
		return strings.TrimSpace(fmt.Sprintf("#%d %s %s", ev.ID, ev.Method, ev.Tool))
	case runtime.RequestFinished:
		outcome := "ok"
		switch {
		case ev.Err != "":
			outcome = "error: " + ev.Err
		case ev.IsError:
			outcome = "isError"
		}
		return strings.TrimSpace(fmt.Sprintf("#%d %s %s", ev.ID, ev.Method, ev.Tool)) + fmt.Sprintf(" %s %s", ev.Duration.Round(time.Microsecond), outcome)
	case runtime.RequestCancelled:
		return strings.TrimSpace(fmt.Sprintf("#%d %s %s", ev.ID, ev.Method, ev.Tool)) + ": " + ev.Reason
	case runtime.StderrLine:
		return ev.Line
	case runtime.StdoutNoise:
		return ev.Line + " (" + ev.Detail + ")"
	case runtime.ProtocolAnomaly:
		return strings.TrimSpace(ev.Kind + " " + ev.ID + " " + ev.Detail)
	case runtime.TrafficFrame:
		return frameSummary(ev.Frame)
	case runtime.HTTPExchange:
		x := ev.Exchange
		s := x.Method + " " + x.URL
		if x.Status != 0 {
			s += fmt.Sprintf(" %d", x.Status)
		}
		s += fmt.Sprintf(" (%d B in, %d B out) %s", x.RequestSize, x.ResponseSize, x.Total.Round(time.Microsecond))
		if x.Err != "" {
			s += ": " + x.Err
		}
		return s
	case runtime.HealthChecked:
		if ev.OK {
			return fmt.Sprintf("%s ok %s", ev.Method, ev.Latency.Round(time.Microsecond))
		}
		return fmt.Sprintf("%s missed (%d in a row): %s", ev.Method, ev.Missed, ev.Err)
	case runtime.RuntimeFault:
		return "fault: " + ev.Err
	case runtime.LogLevelSet:
		return "log level " + ev.Level
	case runtime.SubscriptionChanged:
		if ev.Subscribed {
			return "subscribed to " + ev.URI
		}
		return "unsubscribed from " + ev.URI
	case runtime.RootsChanged:
		uris := make([]string, len(ev.Roots))
		for i, r := range ev.Roots {
			uris[i] = r.URI
		}
		return fmt.Sprintf("roots (%d): %s", len(ev.Roots), strings.Join(uris, ", "))
	case runtime.AppMessage:
		return "app " + ev.View + " " + frameSummary(ev.Frame)
	case Gap:
		return fmt.Sprintf("%d events lost here (the recorder fell behind)", ev.Dropped)
	case Live:
		var parts []string
		for _, s := range ev.Servers {
			p := s.Name
			if s.Ping.Last > 0 {
				p += " ping " + s.Ping.Last.Round(10*time.Microsecond).String()
			}
			if n := len(s.Outstanding); n > 0 {
				p += fmt.Sprintf(", %d outstanding", n)
			}
			parts = append(parts, p)
		}
		return strings.Join(parts, "; ")
	case ReloadPlanned:
		if ev.Err != "" {
			return "refused: " + ev.Err
		}
		p := ev.Plan
		return fmt.Sprintf("add %v, remove %v, restart %v, stop %v, start %v, update %v, keep %v", p.Add, p.Remove, p.Restart, p.Stop, p.Start, p.Update, p.Keep)
	case Unknown:
		return "(a kind this mcpdeck does not know) " + string(ev.Raw)
	}
	return ""
}

// frameSummary is "→ request tools/call #8 (138 B) {...}": the direction
// (→ out of mcpdeck), the kind, method and id, the size and the frame.
func frameSummary(f jsonrpc.Frame) string {
	arrow := "→"
	if f.Dir == jsonrpc.In {
		arrow = "←"
	}
	s := arrow + " " + f.Kind.String()
	if f.Method != "" {
		s += " " + f.Method
	}
	if f.ID != "" {
		s += " #" + f.ID
	}
	return s + fmt.Sprintf(" (%d B) %s", f.Size, f.Raw)
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// printable escapes control characters (and folds line breaks), so a
// line about a server's text is one line and never a terminal command.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if unicode.IsControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r):
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
