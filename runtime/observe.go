package runtime

import (
	"context"
	"errors"
	"strings"
	"time"

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
			State:                v.State.String(),
			Transport:            v.Transport.String(),
			ProtocolVersion:      v.ProtocolVersion,
			Era:                  eraName(v.ProtocolVersion),
			Restarts:             uint64(max(v.Restarts, 0)),
			Attempts:             uint64(max(v.Attempts, 0)),
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

// startSpan opens the span of one request and puts its trace context into
// the request's _meta, so a server that also traces joins the trace.
func (s *session) startSpan(ctx context.Context, method, target string, meta map[string]any) (context.Context, *telemetry.Span) {
	tel := s.c.opts.Telemetry
	if !tel.TracesEnabled() && !tel.MetricsEnabled() {
		// No span of ours, but a caller's trace context (a gateway client's)
		// still reaches the server.
		telemetry.Inject(ctx, meta)
		return ctx, nil
	}
	info := telemetry.RequestInfo{Method: method, Target: target, Server: s.name, Transport: s.cfg.Transport.String(),
		ProtocolVersion: s.init.ProtocolVersion, Era: eraName(s.init.ProtocolVersion)}
	if s.cfg.Transport != "stdio" {
		info.URL = s.cfg.URL
	}
	ctx, sp := tel.StartRequest(ctx, info)
	telemetry.Inject(ctx, meta)
	return ctx, sp
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
