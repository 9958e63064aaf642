package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"mcpdeck/jsonrpc"
)

// The logging methods. logging/setLevel is legacy only: a modern request
// names its level in _meta (MetaLogLevel).
const (
	MethodSetLevel      = "logging/setLevel"
	NotificationMessage = "notifications/message"
)

// LogLevel is a syslog severity: the level of a notifications/message and
// the lowest level a client asks for.
type LogLevel string

// LogLevels are the valid levels, least severe first: the one list of
// them (config keeps a copy, since it imports nothing of ours; a test
// holds the two together).
var LogLevels = []LogLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// Rank orders a level: its index in LogLevels. A level the specification
// does not know ranks above every known one, so a filter never hides a
// message for being unfamiliar.
func (l LogLevel) Rank() int {
	for i, v := range LogLevels {
		if v == l {
			return i
		}
	}
	return len(LogLevels)
}

// Known reports whether l is one of LogLevels.
func (l LogLevel) Known() bool { return l.Rank() < len(LogLevels) }

// LevelNames returns LogLevels as strings.
func LevelNames() []string {
	out := make([]string, len(LogLevels))
	for i, l := range LogLevels {
		out[i] = string(l)
	}
	return out
}

// LevelRank is LogLevel(level).Rank(), for callers holding a string.
func LevelRank(level string) int { return LogLevel(level).Rank() }

// ParseLogLevel checks a level; a server rejects an unknown one with
// -32602, so it is refused here first.
func ParseLogLevel(s string) (LogLevel, error) {
	if l := LogLevel(s); l.Known() {
		return l, nil
	}
	return "", fmt.Errorf("invalid log level %q: use one of debug, info, notice, warning, error, critical, alert, emergency", s)
}

// SetLevelParams are the params of logging/setLevel.
type SetLevelParams struct {
	Level LogLevel        `json:"level"`
	Meta  json.RawMessage `json:"_meta,omitempty"`
}

// LoggingMessageParams are the params of notifications/message.
type LoggingMessageParams struct {
	Level  LogLevel        `json:"level"`
	Logger string          `json:"logger,omitempty"`
	Data   json.RawMessage `json:"data"`
	Meta   json.RawMessage `json:"_meta,omitempty"`
}

// ReadLoggingMessage reads the params of notifications/message, valid
// JSON as the connection hands them on, into a zero p as json.Unmarshal would
// (errors ignored, as the intake ignores them: what could be read is
// kept), without reflection in the usual case: a flooding server's
// messages are read once by the connection's scan and once more here,
// and a decode by reflection was most of the intake's own time. Data and
// Meta share raw's bytes. Anything unusual (escaped or differently cased
// keys, duplicates, non-string or escaped or non-UTF-8 strings) is
// decoded by encoding/json.
func ReadLoggingMessage(raw []byte, p *LoggingMessageParams) {
	var q LoggingMessageParams
	var seen [4]bool
	plain := true
	str := func(v []byte) (string, bool) {
		if len(v) < 2 || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 || !utf8.Valid(v) {
			return "", false
		}
		return string(v[1 : len(v)-1]), true
	}
	ok := jsonrpc.EachMember(raw, func(k, v []byte) {
		var i int
		switch string(k) {
		case "level":
			s, ok := str(v)
			q.Level, plain = LogLevel(s), plain && ok
		case "logger":
			i = 1
			s, ok := str(v)
			q.Logger, plain = s, plain && ok
		case "data":
			i = 2
			q.Data = v
		case "_meta":
			i = 3
			q.Meta = v
		default:
			// encoding/json matches keys without regard to case.
			if bytes.EqualFold(k, []byte("level")) || bytes.EqualFold(k, []byte("logger")) ||
				bytes.EqualFold(k, []byte("data")) || bytes.EqualFold(k, []byte("_meta")) {
				plain = false
			}
			return
		}
		if seen[i] {
			plain = false // a duplicate: the last one wins there
		}
		seen[i] = true
	})
	if !ok || !plain {
		_ = json.Unmarshal(raw, p)
		return
	}
	*p = q
}
