package ui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// Store bounds besides the notification limit: logs and traffic are per
// session, shared by all servers, and far noisier per line of value.
const (
	logLimit     = 20_000
	trafficLimit = 10_000
	summaryLimit = 400 // characters of params kept for a one-line summary
)

// note is one notification as the stream shows it; the summary and the
// lowercase haystack are computed once on arrival so filtering and
// drawing never re-decode JSON.
type note struct {
	at       time.Time
	server   string
	method   string
	level    string // notifications/message only
	text     string
	hay      string // lowercase server, method, level and text, for filtering
	progress *progressNote
	// ev is the event, kept for its params (enter shows them) unless they
	// are larger than maxKeptParams: the store holds tens of thousands of
	// notes, and a row is a summary. rawSize is their size then.
	ev      runtime.Event
	rawSize int
}

// maxKeptParams bounds the params a note keeps for the viewer.
const maxKeptParams = 4 << 10

type progressNote struct {
	label           string // the call it belongs to (its tool), or its token when it is no call of ours
	progress, total float64
}

// logLine is one line of a server's log: stderr, stdout noise, a state
// change or a protocol anomaly.
type logLine struct {
	at     time.Time
	server string
	kind   string // stderr, stdout, state, anomaly
	text   string
	hay    string
}

// frame is one traced JSON-RPC frame of a server.
type frame struct {
	server string
	f      runtime.Frame
	hay    string
	// app is set for a message of an MCP App's bridge (between the view
	// in the browser and mcpdeck), not of the server's wire.
	app bool
}

// newNote is the stream entry of a notification, worded by present
// (as watch words it) and with its filter haystack built once.
func newNote(e runtime.Event, l present.EventLine) note {
	h := e.Header()
	n := note{at: h.Time, server: h.Server, method: l.Method, level: l.Level, text: l.Text}
	if p, ok := e.(runtime.Progress); ok {
		label := p.Tool
		if label == "" {
			label = p.Token
		}
		n.progress = &progressNote{label: present.Line(label), progress: p.Progress, total: p.Total}
	}
	if n.rawSize = paramsSize(e); n.rawSize <= maxKeptParams {
		n.ev = e
	}
	n.hay = strings.ToLower(n.server + " " + n.method + " " + n.level + " " + n.text)
	return n
}

// newLogLine is a Logs tab line; text must be clean already.
func newLogLine(at time.Time, server, kind, text string) logLine {
	return logLine{at: at, server: server, kind: kind, text: text, hay: strings.ToLower(kind + " " + text)}
}

func newFrame(e runtime.TrafficFrame) frame {
	f := e.Frame
	if f.Time.IsZero() {
		f.Time = e.Time
	}
	f.Method, f.ID = present.Line(f.Method), present.Line(f.ID)
	return frame{server: e.Server, f: f, hay: strings.ToLower(f.Dir.String() + " " + f.Kind.String() + " " + f.Method + " " + f.ID)}
}

// newAppFrame is the Traffic row of a message of an app's bridge: the
// filter word "app" finds them.
func newAppFrame(e runtime.AppMessage) frame {
	fr := newFrame(runtime.TrafficFrame{EventHeader: e.EventHeader, Frame: e.Frame})
	fr.app = true
	fr.hay = "app " + fr.hay
	return fr
}

// matcher builds a filter from the text typed after `/`: words must all
// match; "method:x", "level:x" and "server:x" match those fields, anything
// else matches anywhere. Matching ignores case.
type matcher struct {
	words                 []string
	method, level, server string
}

func parseFilter(q string) matcher {
	words, f := filterTerms(q, "method", "level", "server")
	return matcher{words: words, method: f["method"], level: f["level"], server: f["server"]}
}

// filterTerms splits a filter, lowercased, into the "field:value" terms of
// the fields named (the last one of a field wins) and the other words.
func filterTerms(q string, fields ...string) (words []string, values map[string]string) {
	values = map[string]string{}
	for _, w := range strings.Fields(strings.ToLower(q)) {
		name, value, ok := strings.Cut(w, ":")
		if ok && slices.Contains(fields, name) {
			values[name] = value
			continue
		}
		words = append(words, w)
	}
	return words, values
}

func (m matcher) empty() bool {
	return len(m.words) == 0 && m.method == "" && m.level == "" && m.server == ""
}

// matchNote reports whether n passes the filter.
func (m matcher) matchNote(n *note) bool {
	if m.method != "" && !strings.Contains(strings.ToLower(n.method), m.method) {
		return false
	}
	if m.level != "" && n.level != m.level {
		return false
	}
	return m.matchServer(n.server) && m.matchHay(n.hay)
}

// matchFrame reports whether f passes the filter: method: matches the
// frame's method (level: matches nothing a frame has).
func (m matcher) matchFrame(f *frame) bool {
	if m.method != "" && !strings.Contains(strings.ToLower(f.f.Method), m.method) {
		return false
	}
	if m.level != "" {
		return false
	}
	return m.matchServer(f.server) && m.matchHay(f.hay)
}

// matchServer reports whether a server name passes the server:x term.
func (m matcher) matchServer(server string) bool {
	return m.server == "" || strings.Contains(strings.ToLower(server), m.server)
}

// matchItem reports whether a listed item (a prompt, resource) passes
// the filter: the server:x term on its server, the words on its text.
func (m matcher) matchItem(server string, parts ...string) bool {
	return m.matchServer(server) && m.matchText(parts...)
}

// matchText reports whether the words are all in the text of an item's
// parts (names, titles, descriptions), as shown.
func (m matcher) matchText(parts ...string) bool {
	return m.matchHay(strings.ToLower(present.Line(strings.Join(parts, " "))))
}

// matchHay reports whether every word is in hay (already lowercased).
func (m matcher) matchHay(hay string) bool {
	for _, w := range m.words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// progressBar draws progress as a bar of width cells and a percentage, or
// a count when the total is unknown.
func progressBar(progress, total float64, width int) (bar, label string) {
	if width < 1 {
		width = 1
	}
	if total <= 0 {
		return strings.Repeat("░", width), fmt.Sprintf("%g", progress)
	}
	frac := min(max(progress/total, 0), 1)
	full := int(frac*float64(width) + 0.5)
	return strings.Repeat("█", full) + strings.Repeat("░", width-full), fmt.Sprintf("%3.0f%%", frac*100)
}

func jsonUnmarshal(raw []byte, v any) error { return json.Unmarshal(raw, v) }

func itoa(n int) string { return fmt.Sprint(n) }
