// The demo server logs through MCP's logging utility, which the 2026-07-28
// revision deprecates (SEP-2577) but every session revision the demo server
// speaks still has: go-sdk marks its API deprecated, and this file is where
// the demo server uses it, on purpose.
//
//lint:file-ignore SA1019 the demo server speaks only the session revisions (2024-11-05 to 2025-11-25), where logging is current

package demoserver

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	mcpwire "mcpdeck/runtime/mcp"
)

// level is an MCP log level: its rank in mcpwire.LogLevels (the spec's
// order, RFC 5424 severities, least severe first).
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

// String returns the level's wire name, from the vocabulary's one list.
func (l level) String() string {
	if l < 0 || int(l) >= len(mcpwire.LogLevels) {
		return fmt.Sprintf("level(%d)", int(l))
	}
	return string(mcpwire.LogLevels[l])
}

func parseLevel(name string) (level, bool) {
	l := mcpwire.LogLevel(name)
	return level(l.Rank()), l.Known()
}

// logName is the notifications/message logger name the demo server uses.
const logName = "demo"

// withLogging declares logging in c: the demo server logs a heartbeat and
// each tool call.
func withLogging(c *mcp.ServerCapabilities) *mcp.ServerCapabilities {
	c.Logging = &mcp.LoggingCapabilities{}
	return c
}

// initialSession is the state go-sdk starts the session with: logging at
// info before the client sets a level, so the heartbeat is seen without
// asking (go-sdk would send nothing until logging/setLevel).
func initialSession() *mcp.ServerSessionState {
	return &mcp.ServerSessionState{LogLevel: mcp.LoggingLevel(levelInfo.String())}
}

// log sends a notifications/message if lvl passes the level the client set.
// The check and the send happen under logMu so that once logging/setLevel is
// answered no message below the new level can still be on its way.
func (d *demo) log(ctx context.Context, ss *mcp.ServerSession, lvl level, data any) {
	d.logMu.RLock()
	defer d.logMu.RUnlock()
	if lvl < level(d.level.Load()) {
		return
	}
	_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: mcp.LoggingLevel(lvl.String()), Logger: logName, Data: data})
}

// setLevel is the receiving middleware's part for logging/setLevel: it
// refuses an unknown level, which go-sdk would store, and changes the
// level under logMu (see log).
func (d *demo) setLevel(ctx context.Context, method string, req mcp.Request, next mcp.MethodHandler) (mcp.Result, error) {
	p, _ := req.GetParams().(*mcp.SetLoggingLevelParams)
	if p == nil {
		return next(ctx, method, req)
	}
	lvl, ok := parseLevel(string(p.Level))
	if !ok {
		return nil, invalidParams("logging/setLevel: unknown level %q; use one of %s", p.Level, strings.Join(mcpwire.LevelNames(), ", "))
	}
	d.logMu.Lock()
	defer d.logMu.Unlock()
	res, err := next(ctx, method, req)
	if err == nil {
		d.level.Store(int32(lvl))
	}
	return res, err
}

// startHeartbeat starts the periodic info log once, on the first
// notifications/initialized, so the client sees a live stream without
// asking for anything.
func (d *demo) startHeartbeat(_ context.Context, req *mcp.InitializedRequest) {
	if d.opts.LogInterval < 0 {
		return
	}
	d.mu.Lock()
	already := d.heartbeat
	d.heartbeat = true
	d.mu.Unlock()
	if already {
		return
	}
	ss := req.Session
	d.spawn(func() {
		t := time.NewTicker(d.opts.LogInterval)
		defer t.Stop()
		for {
			select {
			case <-d.ctx.Done():
				return
			case <-t.C:
				d.log(d.ctx, ss, levelInfo, heartbeat{Msg: "heartbeat", Uptime: d.uptime(), Calls: d.totalCalls()})
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
func (d *demo) uptime() float64 {
	return math.Round(time.Since(d.started).Seconds()*1000) / 1000
}

func (d *demo) totalCalls() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, c := range d.calls {
		n += c
	}
	return n
}
