package mcp

import (
	"encoding/json"
	"fmt"
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
