package telemetry

import "go.opentelemetry.io/otel/attribute"

// Attribute keys. The mcp.*, gen_ai.*, jsonrpc.*, error.type, rpc.* and
// network.* keys are the OpenTelemetry semantic conventions for MCP
// (open-telemetry/semantic-conventions-genai, docs/gen-ai/mcp.md); the
// mcpdeck.* keys are ours, for what the conventions do not name.
const (
	KeyMethod          = attribute.Key("mcp.method.name")
	KeySessionID       = attribute.Key("mcp.session.id")
	KeyProtocolVersion = attribute.Key("mcp.protocol.version")
	KeyResourceURI     = attribute.Key("mcp.resource.uri")
	KeyToolName        = attribute.Key("gen_ai.tool.name")
	KeyPromptName      = attribute.Key("gen_ai.prompt.name")
	KeyOperationName   = attribute.Key("gen_ai.operation.name")
	KeyRequestID       = attribute.Key("jsonrpc.request.id")
	KeyErrorType       = attribute.Key("error.type")
	KeyStatusCode      = attribute.Key("rpc.response.status_code")
	KeyTransport       = attribute.Key("network.transport")
	KeyProtocolName    = attribute.Key("network.protocol.name")
	KeyServerAddress   = attribute.Key("server.address")
	KeyServerPort      = attribute.Key("server.port")

	// KeyServer is the configured server name: the conventions have no
	// attribute for it, and every per-server series needs one.
	KeyServer = attribute.Key("mcpdeck.server.name")
	// KeyState is a server state, on mcpdeck.server.state.
	KeyState = attribute.Key("mcpdeck.server.state")
	// KeyEra is the protocol era: "legacy" (initialize handshake) or
	// "modern" (2026-07-28, stateless).
	KeyEra = attribute.Key("mcpdeck.protocol.era")
	// KeyMCPTransport is mcpdeck's name for the transport (stdio, http, sse);
	// network.transport only says pipe or tcp.
	KeyMCPTransport = attribute.Key("mcpdeck.transport")
	// KeyRetryReason says why a request was sent again: "input_required"
	// (an MRTR round) or "reconnect".
	KeyRetryReason = attribute.Key("mcpdeck.retry.reason")
	// KeyRetryAttempt numbers the retries of one operation, from 1.
	KeyRetryAttempt = attribute.Key("mcpdeck.retry.attempt")
	// Progress and cancellation event attributes.
	KeyProgress        = attribute.Key("mcpdeck.progress.value")
	KeyProgressTotal   = attribute.Key("mcpdeck.progress.total")
	KeyProgressMessage = attribute.Key("mcpdeck.progress.message")
	KeyCancelReason    = attribute.Key("mcpdeck.cancel.reason")
	// KeyErrorKind and KeyErrorMessage describe a server's last error on
	// mcpdeck.server.last_error.timestamp: the runtime's error kind
	// (timeout, closed, exited, protocol, ...) and its message, bounded.
	KeyErrorKind    = attribute.Key("mcpdeck.error.kind")
	KeyErrorMessage = attribute.Key("mcpdeck.error.message")
)

// Metric names, as instruments are named; Prometheus exposition translates
// dots to underscores and adds the unit and _total suffixes (PromName).
const (
	MetricOperationDuration = "mcp.client.operation.duration"
	MetricSessionDuration   = "mcp.client.session.duration"

	MetricServerState       = "mcpdeck.server.state"
	MetricServerInfo        = "mcpdeck.server.info"
	MetricPingDuration      = "mcpdeck.server.ping.duration"
	MetricRestarts          = "mcpdeck.server.restarts"
	MetricReconnectAttempts = "mcpdeck.server.reconnect.attempts"
	MetricNotifications     = "mcpdeck.server.notifications"
	MetricNotificationsDrop = "mcpdeck.server.notifications.dropped"
	MetricOutstanding       = "mcpdeck.server.requests.outstanding"
	MetricNoiseLines        = "mcpdeck.server.stdout.noise"
	MetricLateResponses     = "mcpdeck.server.responses.late"
	MetricLastError         = "mcpdeck.server.last_error.timestamp"
	MetricGatewayClients    = "mcpdeck.gateway.clients"
	MetricGatewayCalls      = "mcpdeck.gateway.calls"
	MetricSpansDropped      = "mcpdeck.telemetry.spans.dropped"
)

// PromNames maps every metric this package defines to its name in the
// Prometheus exposition and its type there, for dashboards and alerts to
// be checked against. The map is a fresh copy.
func PromNames() map[string]PromMetric {
	return map[string]PromMetric{
		MetricOperationDuration: {"mcp_client_operation_duration_seconds", "histogram"},
		MetricSessionDuration:   {"mcp_client_session_duration_seconds", "histogram"},
		MetricServerState:       {"mcpdeck_server_state", "gauge"},
		MetricServerInfo:        {"mcpdeck_server_info", "gauge"},
		MetricPingDuration:      {"mcpdeck_server_ping_duration_seconds", "histogram"},
		MetricRestarts:          {"mcpdeck_server_restarts_total", "counter"},
		MetricReconnectAttempts: {"mcpdeck_server_reconnect_attempts", "gauge"},
		MetricNotifications:     {"mcpdeck_server_notifications_total", "counter"},
		MetricNotificationsDrop: {"mcpdeck_server_notifications_dropped_total", "counter"},
		MetricOutstanding:       {"mcpdeck_server_requests_outstanding", "gauge"},
		MetricNoiseLines:        {"mcpdeck_server_stdout_noise_total", "counter"},
		MetricLateResponses:     {"mcpdeck_server_responses_late_total", "counter"},
		MetricLastError:         {"mcpdeck_server_last_error_timestamp_seconds", "gauge"},
		MetricGatewayClients:    {"mcpdeck_gateway_clients", "gauge"},
		MetricGatewayCalls:      {"mcpdeck_gateway_calls_total", "counter"},
		MetricSpansDropped:      {"mcpdeck_telemetry_spans_dropped_total", "counter"},
	}
}

// PromMetric is a metric's name and type in the Prometheus exposition.
type PromMetric struct {
	Name string
	Type string // counter, gauge, histogram
}

// Error types this package and the runtime put in error.type, besides a
// JSON-RPC error code as a decimal string (ErrorTypeForCode).
const (
	// ErrorTypeToolError: a tools/call result with isError true (the
	// conventions' value).
	ErrorTypeToolError = "tool_error"
	// ErrorTypeTimeout: the request timed out and was cancelled.
	ErrorTypeTimeout = "timeout"
	// ErrorTypeCancelled: the caller or the user cancelled the request.
	ErrorTypeCancelled = "cancelled"
	// ErrorTypeClosed: the transport closed while the request was
	// outstanding (process exit, EOF, HTTP failure).
	ErrorTypeClosed = "transport_closed"
	// ErrorTypeOther: any other failure (the conventions' fallback).
	ErrorTypeOther = "_OTHER"
)

// Eras, for RequestInfo.Era.
const (
	EraLegacy = "legacy"
	EraModern = "modern"
)

// DefaultStates are the runtime's server states in lifecycle order. The
// state gauge reports every one of them per server, 1 for the current
// state and 0 for the others, so a query never has to guess which series
// exist.
var DefaultStates = []string{"disabled", "starting", "initializing", "listing", "ready", "degraded", "failed", "stopping", "stopped"}
