package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc/mcphttp"
	"mcpdeck/runtime/mcp"
	"mcpdeck/runtime/telemetry"
)

// Telemetry hooks: the runtime reports what it does to an optional
// *telemetry.Telemetry (a nil one does nothing, at no cost). Counters the
// runtime keeps anyway (notifications, drops, restarts, states) are read
// from snapshots at collection time; durations are recorded as they end.

// TelemetryStats is the session's state as telemetry reads it at each
// collection: one entry per configured server.
func (c *Controller) TelemetryStats() []telemetry.ServerStats {
	snap := c.Snapshot()
	out := make([]telemetry.ServerStats, 0, len(snap.Servers))
	for _, v := range snap.Servers {
		st := telemetry.ServerStats{
			Server:               v.Name,
			State:                v.State.Name(),
			Transport:            v.Transport.String(),
			ProtocolVersion:      v.ProtocolVersion,
			Era:                  eraName(v.ProtocolVersion),
			Restarts:             uint64(max(v.Restarts, 0)),
			Attempts:             uint64(max(v.Attempts, 0)),
			GaveUp:               v.GaveUp,
			Notifications:        v.Counters.Notifications,
			DroppedNotifications: v.Counters.DroppedEvents,
			LateResponses:        v.Counters.LateResponses,
			NoiseLines:           v.Counters.NoiseLines,
			Outstanding:          len(v.Outstanding),
		}
		if e := v.LastError; e != nil {
			st.LastError, st.LastErrorKind, st.LastErrorAt = e.Error(), e.Kind.String(), e.At
		}
		out = append(out, st)
	}
	return out
}

// eraName is telemetry's name of a negotiated version's era.
func eraName(version string) string {
	switch mcp.EraOf(version) {
	case mcp.Modern:
		return telemetry.EraModern
	case mcp.Legacy:
		return telemetry.EraLegacy
	}
	return ""
}

// requestInfo describes a request of this session to telemetry.
func (s *session) requestInfo(method, target string) telemetry.RequestInfo {
	info := telemetry.RequestInfo{Method: method, Target: target, Server: s.name, Transport: s.cfg.Transport.String(),
		ProtocolVersion: s.init.ProtocolVersion, Era: eraName(s.init.ProtocolVersion)}
	if s.cfg.Transport != "stdio" {
		info.URL = s.cfg.URL
	}
	if s.sessionID != nil {
		info.SessionID = s.sessionID()
	}
	return info
}

// connectSpan starts the span of a connection attempt (telemetry's
// StartConnect).
func (c *Controller) connectSpan(ctx context.Context, cfg config.Server) (context.Context, *telemetry.Span) {
	info := telemetry.RequestInfo{Server: cfg.Name, Transport: cfg.Transport.String()}
	if cfg.Transport != config.TransportStdio {
		info.URL = cfg.URL
	}
	return c.opts.Telemetry.StartConnect(ctx, info)
}

// errorType is the conventions' error.type of a request's outcome: "" for
// success.
func errorType(err error, isError bool) string {
	var rpcErr *RPCError
	switch {
	case err == nil && isError:
		return telemetry.ErrorTypeToolError
	case err == nil:
		return ""
	case errors.As(err, &rpcErr):
		return telemetry.ErrorTypeForCode(rpcErr.Code)
	case errors.Is(err, ErrTimeout):
		return telemetry.ErrorTypeTimeout
	case errors.Is(err, ErrCancelled), errors.Is(err, context.Canceled):
		return telemetry.ErrorTypeCancelled
	case errors.Is(err, ErrClosed):
		return telemetry.ErrorTypeClosed
	}
	return telemetry.ErrorTypeOther
}

// recordSessionEnd records how long a session lived and why it ended.
func (s *session) recordSessionEnd() {
	tel := s.c.opts.Telemetry
	if !tel.MetricsEnabled() || s.started.IsZero() {
		return
	}
	end := telemetry.SessionEnd{Server: s.name, Transport: s.cfg.Transport.String(), ProtocolVersion: s.init.ProtocolVersion,
		Duration: time.Since(s.started)}
	if cause := s.conn.Err(); cause != nil && !errors.Is(cause, ErrClosedByClient) {
		end.ErrorType = telemetry.ErrorTypeClosed
		if strings.Contains(cause.Error(), "health checks") {
			end.ErrorType = telemetry.ErrorTypeTimeout
		}
	}
	tel.RecordSession(end)
}

// initializeWire is initialize's params with the trace context in _meta,
// when there is one.
func initializeWire(p mcp.InitializeParams, trace map[string]any) any {
	if len(trace) == 0 {
		return p
	}
	if meta, err := json.Marshal(trace); err == nil {
		p.Meta = meta
	}
	return p
}

// probeSpan opens the span of the HTTP era probe, a server/discover sent
// as a raw exchange (mcphttp.Probe) rather than on a connection; the
// function it returns ends it with the probe's answer: the JSON-RPC error
// code, or (_OTHER) the HTTP status of a legacy server's refusal.
func (s *session) probeSpan(ctx context.Context) func(mcphttp.ProbeResult, error) {
	tel := s.c.opts.Telemetry
	if !tel.Enabled() {
		return func(mcphttp.ProbeResult, error) {}
	}
	_, sp := tel.StartRequest(ctx, s.requestInfo(mcp.MethodDiscover, ""))
	sp.SetRequestID("0")
	return func(res mcphttp.ProbeResult, err error) {
		switch {
		case err != nil:
			sp.End(err, errorType(err, false))
		case res.Error != nil:
			sp.End(res.Error, telemetry.ErrorTypeForCode(res.Error.Code))
		case !res.Modern:
			sp.End(fmt.Errorf("HTTP %d: %s", res.Status, res.Reason), telemetry.ErrorTypeOther)
		default:
			sp.End(nil, "")
		}
	}
}
