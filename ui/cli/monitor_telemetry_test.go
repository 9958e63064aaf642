package cli

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"mcpdeck/runtime"
	"mcpdeck/runtime/telemetry"
)

// healthLog records what the bridge reports.
type healthLog struct{ calls []string }

func (h *healthLog) RecordPing(server string, d time.Duration, ok bool) {
	h.calls = append(h.calls, fmt.Sprintf("ping %s %s %v", server, d, ok))
}

func (h *healthLog) RecordSession(s telemetry.SessionEnd) {
	h.calls = append(h.calls, fmt.Sprintf("session %s %s %s %s %q", s.Server, s.Transport, s.ProtocolVersion, s.Duration, s.ErrorType))
}

func (h *healthLog) take() []string {
	c := h.calls
	h.calls = nil
	return c
}

func TestHealthBridge(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	srv := func(state runtime.State, started, pingAt int, last time.Duration, missed int) runtime.ServerSnapshot {
		v := runtime.ServerSnapshot{Name: "demo", Transport: "stdio", ProtocolVersion: "2025-11-25", State: state}
		if started >= 0 {
			v.StartedAt = at(started)
		}
		if pingAt >= 0 {
			v.Ping = runtime.PingStats{LastAt: at(pingAt), Last: last, Missed: missed}
		}
		return v
	}
	rec := &healthLog{}
	b := newHealthBridge(rec)
	steps := []struct {
		servers []runtime.ServerSnapshot
		now     int
		want    []string
	}{
		{[]runtime.ServerSnapshot{srv(runtime.StateStarting, -1, -1, 0, 0)}, 1, nil},
		{[]runtime.ServerSnapshot{srv(runtime.StateReady, 1, 2, time.Millisecond, 0)}, 2, []string{"ping demo 1ms true"}},
		{[]runtime.ServerSnapshot{srv(runtime.StateReady, 1, 2, time.Millisecond, 0)}, 3, nil},
		{[]runtime.ServerSnapshot{srv(runtime.StateReady, 1, 4, time.Millisecond, 1)}, 4, []string{"ping demo 0s false"}},
		{[]runtime.ServerSnapshot{srv(runtime.StateDegraded, 1, 5, time.Millisecond, 2)}, 5, []string{"ping demo 0s false"}},
		{[]runtime.ServerSnapshot{srv(runtime.StateReady, 1, 6, 3*time.Millisecond, 0)}, 6, []string{"ping demo 3ms true"}},
		// The transport closed: the session ends with it.
		{[]runtime.ServerSnapshot{srv(runtime.StateFailed, 1, 6, 3*time.Millisecond, 0)}, 10, []string{`session demo stdio 2025-11-25 9s "transport_closed"`}},
		// Reconnected, then removed by a reload.
		{[]runtime.ServerSnapshot{srv(runtime.StateReady, 20, -1, 0, 0)}, 21, nil},
		{nil, 30, []string{`session demo stdio 2025-11-25 10s ""`}},
	}
	for i, s := range steps {
		b.sample(&runtime.Snapshot{Servers: s.servers}, at(s.now))
		if got := rec.take(); !reflect.DeepEqual(got, s.want) {
			t.Errorf("step %d: recorded %q, want %q", i, got, s.want)
		}
	}
}

func TestServerStats(t *testing.T) {
	snap := &runtime.Snapshot{Servers: []runtime.ServerSnapshot{{
		Name: "demo", Transport: "http", ProtocolVersion: "2026-07-28", State: runtime.StateDegraded, Restarts: 2, Attempts: 1,
		Counters:    runtime.Counters{Notifications: 10, DroppedEvents: 3, LateResponses: 4, NoiseLines: 5},
		Outstanding: []runtime.RequestInfo{{ID: 1}, {ID: 2}},
	}}}
	got := serverStats(snap)
	want := []telemetry.ServerStats{{Server: "demo", State: "degraded", Transport: "http", ProtocolVersion: "2026-07-28", Era: telemetry.EraModern,
		Restarts: 2, Attempts: 1, Notifications: 10, DroppedNotifications: 3, LateResponses: 4, NoiseLines: 5, Outstanding: 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("serverStats = %+v\nwant %+v", got, want)
	}
	for v, era := range map[string]string{"": "", "2024-11-05": telemetry.EraLegacy, "2025-11-25": telemetry.EraLegacy, "2026-07-28": telemetry.EraModern} {
		if got := eraOf(v); got != era {
			t.Errorf("eraOf(%q) = %q, want %q", v, got, era)
		}
	}
	if names := stateNames(); !reflect.DeepEqual(names, telemetry.DefaultStates) {
		t.Errorf("runtime states %v differ from telemetry.DefaultStates %v", names, telemetry.DefaultStates)
	}
}
