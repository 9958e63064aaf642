package fleet

import (
	"encoding/json"
	"math"
	"time"
)

// StateUnknown is a server's state when its host no longer reports it
// (the scrape fails, the monitor stopped, the server was removed): it was
// seen within the lookback, and nothing is known of it now.
const StateUnknown = "unknown"

// View is the fleet at one moment, as Prometheus saw it.
type View struct {
	At        time.Time `json:"at"`
	URL       string    `json:"prometheus"`
	HostLabel string    `json:"hostLabel"`
	Hosts     []Host    `json:"hosts"` // sorted by name
	// Warnings are what Prometheus added to its answers (a partial
	// answer from a Thanos store, say).
	Warnings []string `json:"warnings,omitempty"`
}

// Host is one value of the host label and its servers.
type Host struct {
	Name string `json:"host"`
	// Up is the scrape's health (Prometheus's up series): nil when the
	// store has none for this host.
	Up      *bool    `json:"up"`
	Servers []Server `json:"servers"` // sorted by name
}

// Server is one MCP server on one host.
type Server struct {
	Host string `json:"host"`
	Name string `json:"server"`
	// State is the runtime's state name (ready, degraded, failed, ...), or
	// StateUnknown.
	State           string `json:"state"`
	Transport       string `json:"transport,omitempty"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	Era             string `json:"era,omitempty"`
	// Ping is the mean round trip of the health checks answered within the
	// window; 0 when none was.
	Ping time.Duration `json:"-"`
	// MissedPerMinute counts the missed health checks in the window, per
	// minute.
	MissedPerMinute float64 `json:"missedPingsPerMinute"`
	// Pings is the ping history, oldest first, one value per step; NaN
	// where there was none.
	Pings       []float64  `json:"-"`
	Restarts    uint64     `json:"restarts"`
	Attempts    uint64     `json:"reconnectAttempts"`
	Outstanding int        `json:"outstanding"`
	LastError   *LastError `json:"lastError,omitempty"`
}

// LastError is a server's most recent error.
type LastError struct {
	Kind    string    `json:"kind"`
	Message string    `json:"message"`
	At      time.Time `json:"at"`
}

// MarshalJSON writes the durations in seconds and the history with null
// for its gaps: JSON has no NaN.
func (s Server) MarshalJSON() ([]byte, error) {
	type plain Server
	var ping *float64
	if s.Ping > 0 {
		v := s.Ping.Seconds()
		ping = &v
	}
	hist := make([]*float64, len(s.Pings))
	for i, v := range s.Pings {
		if !math.IsNaN(v) {
			hist[i] = &v
		}
	}
	return json.Marshal(struct {
		plain
		Ping  *float64   `json:"pingSeconds"`
		Pings []*float64 `json:"pingHistorySeconds"`
	}{plain(s), ping, hist})
}

// Counts are a view's totals, for headers.
func (v *View) Counts() (hosts, servers, ready int) {
	for _, h := range v.Hosts {
		hosts++
		for _, s := range h.Servers {
			servers++
			if s.State == "ready" || s.State == "degraded" {
				ready++
			}
		}
	}
	return hosts, servers, ready
}
