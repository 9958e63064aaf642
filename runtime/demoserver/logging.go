package demoserver

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"mcpdeck/runtime/mcp"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// level is an MCP log level; the order is the spec's (RFC 5424 severities).
type level int32

const (
	levelDebug level = iota
	levelInfo
	levelNotice
	levelWarning
	levelError
	levelCritical
	levelAlert
	levelEmergency
)

// String returns the level's wire name.
func (l level) String() string {
	if l < 0 || int(l) >= len(mcp.LogLevels) {
		return fmt.Sprintf("level(%d)", int(l))
	}
	return string(mcp.LogLevels[l])
}

func parseLevel(name string) (level, bool) {
	l := mcp.LogLevel(name)
	return level(l.Rank()), l.Known()
}

// logger is the notifications/message logger name the demo server uses.
const logName = "demo"

// log sends a notifications/message if lvl passes the level the client set.
// The check and the send happen under logMu so that once logging/setLevel is
// answered no message below the new level can still be on its way.
func (s *server) log(conn *jsonrpc2.Conn, lvl level, data any) {
	s.logMu.RLock()
	defer s.logMu.RUnlock()
	if lvl < level(s.level.Load()) {
		return
	}
	_ = conn.Notify(context.Background(), "notifications/message",
		logMessageParams{Level: lvl.String(), Logger: logName, Data: data})
}

func (s *server) setLevel(params *json.RawMessage) (any, *jsonrpc2.Error) {
	var p mcp.SetLevelParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	lvl, ok := parseLevel(string(p.Level))
	if !ok {
		return nil, invalidParams("logging/setLevel: unknown level %q; use one of debug, info, notice, warning, error, critical, alert, emergency", p.Level)
	}
	s.logMu.Lock()
	s.level.Store(int32(lvl))
	s.logMu.Unlock()
	return struct{}{}, nil
}

// startHeartbeat starts the periodic info log once, on the first
// notifications/initialized, so the client sees a live stream without
// asking for anything.
func (s *server) startHeartbeat(conn *jsonrpc2.Conn) {
	if s.opts.LogInterval < 0 {
		return
	}
	s.mu.Lock()
	already := s.heartbeat
	s.heartbeat = true
	s.mu.Unlock()
	if already {
		return
	}
	s.spawn(func() {
		t := time.NewTicker(s.opts.LogInterval)
		defer t.Stop()
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-t.C:
				s.log(conn, levelInfo, heartbeat{Msg: "heartbeat", Uptime: s.uptime(), Calls: s.totalCalls()})
			}
		}
	})
}

// heartbeat is the data of the periodic log message; a struct keeps the
// field order stable on the wire.
type heartbeat struct {
	Msg    string  `json:"msg"`
	Uptime float64 `json:"uptime"`
	Calls  int     `json:"calls"`
}

// uptime is the server's age in seconds, to the millisecond.
func (s *server) uptime() float64 {
	return math.Round(time.Since(s.started).Seconds()*1000) / 1000
}

func (s *server) totalCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		n += c
	}
	return n
}
