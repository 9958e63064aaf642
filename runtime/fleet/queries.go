package fleet

import (
	"strings"
	"time"
)

// Label names of mcpdeck's metrics in the Prometheus exposition
// (runtime/telemetry's attribute keys, dots as underscores).
const (
	labelServer    = "mcpdeck_server_name"
	labelState     = "mcpdeck_server_state"
	labelTransport = "mcpdeck_transport"
	labelVersion   = "mcp_protocol_version"
	labelEra       = "mcpdeck_protocol_era"
	labelErrKind   = "mcpdeck_error_kind"
	labelErrMsg    = "mcpdeck_error_message"
)

// queries are the PromQL the fleet sends, built once from the options.
// Every query aggregates by the host label and the server name, so a
// server scraped twice (two Prometheus jobs, an HA pair behind Thanos)
// is one row, and labels the relabelling added do not split it.
type queries struct {
	// inventory lists every server seen within the lookback, with its
	// transport, protocol version and era: a host that stopped reporting
	// still has its servers listed.
	inventory string
	// state is the current state of each server still reported.
	state string
	// up is the scrape health of each host (absent where a store has no
	// up series, as with remote write).
	up string
	// ping is the mean health-check round trip over the window, answered
	// checks only; pingRange is its history.
	ping string
	// missed is the rate of missed health checks.
	missed      string
	restarts    string
	attempts    string
	outstanding string
	lastError   string
}

func newQueries(o Options) queries {
	by := "by (" + o.HostLabel + ", " + labelServer + ")"
	sel := func(extra ...string) string {
		ms := append([]string{}, extra...)
		if o.Selector != "" {
			ms = append([]string{o.Selector}, ms...)
		}
		return "{" + strings.Join(ms, ", ") + "}"
	}
	w := "[" + promDuration(o.Window) + "]"
	lb := "[" + promDuration(o.Lookback) + "]"
	ping := func(matcher string) string {
		return "sum " + by + " (rate(mcpdeck_server_ping_duration_seconds_sum" + sel(matcher) + w + "))" +
			" / sum " + by + " (rate(mcpdeck_server_ping_duration_seconds_count" + sel(matcher) + w + "))"
	}
	return queries{
		inventory:   "max by (" + o.HostLabel + ", " + labelServer + ", " + labelTransport + ", " + labelVersion + ", " + labelEra + ") (last_over_time(mcpdeck_server_info" + sel() + lb + "))",
		state:       "max by (" + o.HostLabel + ", " + labelServer + ", " + labelState + ") (mcpdeck_server_state" + sel() + " == 1)",
		up:          "min by (" + o.HostLabel + ") (up" + sel() + ")",
		ping:        ping(`error_type=""`),
		missed:      "sum " + by + " (rate(mcpdeck_server_ping_duration_seconds_count" + sel(`error_type!=""`) + w + "))",
		restarts:    "max " + by + " (mcpdeck_server_restarts_total" + sel() + ")",
		attempts:    "max " + by + " (mcpdeck_server_reconnect_attempts" + sel() + ")",
		outstanding: "sum " + by + " (mcpdeck_server_requests_outstanding" + sel() + ")",
		lastError:   "max by (" + o.HostLabel + ", " + labelServer + ", " + labelErrKind + ", " + labelErrMsg + ") (mcpdeck_server_last_error_timestamp_seconds" + sel() + ")",
	}
}

func (q queries) byName() map[string]string {
	return map[string]string{
		"inventory": q.inventory, "state": q.state, "up": q.up, "ping": q.ping, "missed": q.missed,
		"restarts": q.restarts, "attempts": q.attempts, "outstanding": q.outstanding, "lastError": q.lastError,
	}
}

// step is the range query's resolution: History over Points, at least a
// second.
func step(o Options) time.Duration {
	return max(o.History/time.Duration(o.Points), time.Second)
}
