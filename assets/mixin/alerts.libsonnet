// The alerting rules. Their names are those of `mcpdeck monitor`'s own
// default rules where both watch the same thing, so an alert reads the same
// whichever of the two raised it. (monitor also watches changed tool
// definitions, which no metric carries.)
{
  local c = $._config,
  // sel joins the mixin's selector with extra matchers.
  local sel(extra='') = std.join(', ', std.filter(function(s) s != '', [c.mcpdeckSelector, extra])),
  local by = '%s, mcpdeck_server_name' % c.hostLabel,
  local onServer = 'on the host {{ $labels.%s }}' % c.hostLabel,

  prometheusAlerts+:: {
    groups+: [{
      name: 'mcpdeck',
      rules: [
        {
          alert: 'MCPServerFailed',
          expr: 'max by (%s) (mcpdeck_server_state{%s}) == 1' % [by, sel('mcpdeck_server_state="failed"')],
          'for': c.serverFailedFor,
          labels: { severity: 'critical' },
          annotations: {
            summary: 'MCP server {{ $labels.mcpdeck_server_name }} has failed',
            description: 'mcpdeck reports {{ $labels.mcpdeck_server_name }} %s in the failed state for more than %s; its last error is on mcpdeck_server_last_error_timestamp_seconds, and `mcpdeck fleet` shows it.' % [onServer, c.serverFailedFor],
          },
        },
        {
          alert: 'MCPServerDegraded',
          expr: 'max by (%s) (mcpdeck_server_state{%s}) == 1' % [by, sel('mcpdeck_server_state="degraded"')],
          'for': c.serverDegradedFor,
          labels: { severity: 'warning' },
          annotations: {
            summary: 'MCP server {{ $labels.mcpdeck_server_name }} is degraded',
            description: '{{ $labels.mcpdeck_server_name }} %s has been missing health checks for more than %s.' % [onServer, c.serverDegradedFor],
          },
        },
        {
          alert: 'MCPServerReconnectsGivenUp',
          expr: 'max by (%s) (mcpdeck_server_reconnect_gave_up{%s}) == 1' % [by, sel()],
          labels: { severity: 'critical' },
          annotations: {
            summary: 'mcpdeck gave up reconnecting MCP server {{ $labels.mcpdeck_server_name }}',
            description: 'Automatic reconnects of {{ $labels.mcpdeck_server_name }} %s stopped; it stays down until reconnected by hand or the configuration is reloaded.' % onServer,
          },
        },
        {
          alert: 'MCPServerLoginExpired',
          expr: '(max by (%s) (mcpdeck_server_state{%s}) == 1) and on (%s) (max by (%s) (mcpdeck_server_last_error_timestamp_seconds{%s}))' % [
            by,
            sel('mcpdeck_server_state="failed"'),
            by,
            by,
            sel('mcpdeck_error_kind="needs-login"'),
          ],
          labels: { severity: 'critical' },
          annotations: {
            summary: 'MCP server {{ $labels.mcpdeck_server_name }} needs a new login',
            description: '{{ $labels.mcpdeck_server_name }} %s requires MCP authorization and no usable token is stored; run `mcpdeck auth login {{ $labels.mcpdeck_server_name }}` there.' % onServer,
          },
        },
        {
          alert: 'MCPServerHealthCheckSlow',
          expr: 'histogram_quantile(0.95, sum by (le, %s) (rate(mcpdeck_server_ping_duration_seconds_bucket{%s}[%s]))) > %s' % [
            by,
            sel('error_type=""'),
            c.rateWindow,
            c.healthCheckP95Seconds,
          ],
          'for': c.healthCheckSlowFor,
          labels: { severity: 'warning' },
          annotations: {
            summary: 'MCP server {{ $labels.mcpdeck_server_name }} answers health checks slowly',
            description: 'The p95 health-check round trip of {{ $labels.mcpdeck_server_name }} %s is {{ $value | humanizeDuration }}, above %ss.' % [onServer, c.healthCheckP95Seconds],
          },
        },
        {
          alert: 'MCPServerRequestsSlow',
          expr: 'histogram_quantile(0.95, sum by (le, %s) (rate(mcp_client_operation_duration_seconds_bucket{%s}[%s]))) > %s' % [
            by,
            sel(),
            c.rateWindow,
            c.requestP95Seconds,
          ],
          'for': c.requestsSlowFor,
          labels: { severity: 'warning' },
          annotations: {
            summary: 'MCP server {{ $labels.mcpdeck_server_name }} answers requests slowly',
            description: 'The p95 latency of requests to {{ $labels.mcpdeck_server_name }} %s is {{ $value | humanizeDuration }}, above %ss.' % [onServer, c.requestP95Seconds],
          },
        },
        {
          alert: 'MCPToolErrorsHigh',
          expr: |||
            (
              sum by (%(by)s, gen_ai_tool_name) (rate(mcp_client_operation_duration_seconds_count{%(errors)s}[%(w)s]))
            /
              sum by (%(by)s, gen_ai_tool_name) (rate(mcp_client_operation_duration_seconds_count{%(calls)s}[%(w)s]))
            ) > %(ratio)s
          ||| % {
            by: by,
            errors: sel('mcp_method_name="tools/call", error_type!=""'),
            calls: sel('mcp_method_name="tools/call"'),
            w: c.rateWindow,
            ratio: c.toolErrorRatio,
          },
          'for': c.toolErrorsFor,
          labels: { severity: 'warning' },
          annotations: {
            summary: 'Tool {{ $labels.gen_ai_tool_name }} of MCP server {{ $labels.mcpdeck_server_name }} fails often',
            description: '{{ $value | humanizePercentage }} of the calls of {{ $labels.gen_ai_tool_name }} on {{ $labels.mcpdeck_server_name }} %s failed (tool errors, JSON-RPC errors, timeouts).' % onServer,
          },
        },
        {
          alert: 'MCPNotificationsDropped',
          expr: 'sum by (%s) (increase(mcpdeck_server_notifications_dropped_total{%s}[%s])) > 0' % [by, sel(), c.rateWindow],
          'for': c.notificationsDroppedFor,
          labels: { severity: 'warning' },
          annotations: {
            summary: 'mcpdeck drops notifications of MCP server {{ $labels.mcpdeck_server_name }}',
            description: 'A consumer of the notifications of {{ $labels.mcpdeck_server_name }} %s is too slow, and mcpdeck has been dropping the oldest for %s.' % [onServer, c.notificationsDroppedFor],
          },
        },
        {
          alert: 'MCPDeckSpansDropped',
          expr: 'sum by (%s) (increase(mcpdeck_telemetry_spans_dropped_total{%s}[%s])) > 0' % [c.hostLabel, sel(), c.rateWindow],
          'for': c.spansDroppedFor,
          labels: { severity: 'warning' },
          annotations: {
            summary: 'mcpdeck drops spans on {{ $labels.%s }}' % c.hostLabel,
            description: 'Spans are not reaching the OpenTelemetry collector: it fails or is too slow, and the export queue overflows.',
          },
        },
        {
          alert: 'MCPDeckMonitorDown',
          expr: 'up{%s} == 0' % sel(),
          'for': c.monitorDownFor,
          labels: { severity: 'critical' },
          annotations: {
            summary: 'mcpdeck monitor on {{ $labels.%s }} cannot be scraped' % c.hostLabel,
            description: 'Prometheus has not reached mcpdeck monitor for %s: nothing is known of the MCP servers there.' % c.monitorDownFor,
          },
        },
      ],
    }],
  },
}
