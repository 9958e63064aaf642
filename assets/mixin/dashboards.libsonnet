// The Grafana dashboard: one row per concern, every panel filtered by the
// host and server variables.
{
  local c = $._config,
  local ds = { type: 'prometheus', uid: '${datasource}' },
  // sel is every panel's selector: the mixin's, the variables, and extra
  // matchers; hostSel leaves the server variable out (gateway and
  // telemetry series have no server).
  local sel(extra='') = std.join(', ', std.filter(function(s) s != '', [
    c.mcpdeckSelector,
    '%s=~"$instance"' % c.hostLabel,
    'mcpdeck_server_name=~"$server"',
    extra,
  ])),
  local hostSel = std.join(', ', std.filter(function(s) s != '', [c.mcpdeckSelector, '%s=~"$instance"' % c.hostLabel])),
  local host = c.hostLabel,

  local target(expr, legend=null, instant=false, format=null) =
    { expr: expr, datasource: ds }
    + (if legend != null then { legendFormat: legend } else {})
    + (if instant then { instant: true } else {})
    + (if format != null then { format: format } else {}),
  local refIds = 'ABCDEFGH',
  local panel(type, title, pos, targets, description=null, unit=null, options={}, overrides=[], transformations=null) =
    {
      type: type,
      title: title,
      datasource: ds,
      gridPos: { x: pos[0], y: pos[1], w: pos[2], h: pos[3] },
      targets: std.mapWithIndex(function(i, t) t { refId: refIds[i] }, targets),
      fieldConfig: { defaults: if unit != null then { unit: unit } else {}, overrides: overrides },
      options: options,
    }
    + (if description != null then { description: description } else {})
    + (if transformations != null then { transformations: transformations } else {}),
  local row(title, y) = { type: 'row', title: title, collapsed: false, gridPos: { x: 0, y: y, w: 24, h: 1 }, panels: [] },
  local hideColumns(extra={}) = [{ id: 'organize', options: { excludeByName: { Time: true } + extra } }],
  local series = { Value: true, __name__: true, job: true },

  local panels = [
    row('Server states', 0),
    panel('stat', 'Servers by state', [0, 1, 8, 6],
          [target('sum by (mcpdeck_server_state) (mcpdeck_server_state{%s})' % sel(), '{{mcpdeck_server_state}}', instant=true)],
          description='How many servers are in each state now, over the selected hosts.',
          options={ reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, textMode: 'value_and_name', colorMode: 'background' }),
    panel('table', 'Current state per server', [8, 1, 16, 6],
          [target('mcpdeck_server_state{%s} == 1' % sel(), instant=true, format='table')],
          description='One row per server: the state it is in (the gauge reads 1 for the current state).',
          transformations=hideColumns(series)),
    panel('timeseries', 'Servers not ready', [0, 7, 8, 7],
          [target('sum by (%s, mcpdeck_server_name, mcpdeck_server_state) (mcpdeck_server_state{%s} == 1)' % [host, sel('mcpdeck_server_state!~"ready|disabled|stopped"')],
                  '{{%s}} {{mcpdeck_server_name}}: {{mcpdeck_server_state}}' % host)],
          description='Servers starting, degraded or failed, over time.'),
    panel('timeseries', 'Reconnect attempts and restarts', [8, 7, 8, 7], [
      target('max by (%s, mcpdeck_server_name) (mcpdeck_server_reconnect_attempts{%s})' % [host, sel()], 'attempts {{mcpdeck_server_name}}'),
      target('sum by (%s, mcpdeck_server_name) (increase(mcpdeck_server_restarts_total{%s}[$__rate_interval]))' % [host, sel()], 'restarts {{mcpdeck_server_name}}'),
    ], description='Consecutive automatic reconnect attempts (back to 0 once healthy) and connections replaced.'),
    panel('timeseries', 'Reconnects given up', [16, 7, 8, 7],
          [target('max by (%s, mcpdeck_server_name) (mcpdeck_server_reconnect_gave_up{%s}) == 1' % [host, sel()], '{{%s}} {{mcpdeck_server_name}}' % host)],
          description='Servers whose automatic reconnects stopped: down until reconnected by hand or reloaded (MCPServerReconnectsGivenUp).'),

    row('Latency', 14),
    panel('timeseries', 'Health check latency p50 / p95 per server', [0, 15, 12, 8], [
      target('histogram_quantile(%s, sum by (le, mcpdeck_server_name) (rate(mcpdeck_server_ping_duration_seconds_bucket{%s}[$__rate_interval])))' % [q, sel('error_type=""')],
             'p%d {{mcpdeck_server_name}}' % (std.parseJson(q) * 100))
      for q in ['0.5', '0.95']
    ], description="Round trip of mcpdeck's health check (ping, or server/discover on 2026-07-28 servers), answered checks only.", unit='s'),
    panel('timeseries', 'Request latency p50 / p95 per server', [12, 15, 12, 8], [
      target('histogram_quantile(%s, sum by (le, mcpdeck_server_name) (rate(mcp_client_operation_duration_seconds_bucket{%s}[$__rate_interval])))' % [q, sel()],
             'p%d {{mcpdeck_server_name}}' % (std.parseJson(q) * 100))
      for q in ['0.5', '0.95']
    ], description='mcp.client.operation.duration: every request mcpdeck sent, from send to response.', unit='s'),
    panel('timeseries', 'Missed health checks', [0, 23, 12, 7],
          [target('sum by (%s, mcpdeck_server_name) (rate(mcpdeck_server_ping_duration_seconds_count{%s}[$__rate_interval]))' % [host, sel('error_type!=""')],
                  '{{%s}} {{mcpdeck_server_name}}' % host)],
          description='Health checks that went unanswered; two in a row mark a server degraded, three fail it.', unit='ops'),
    panel('timeseries', 'Session duration p50', [12, 23, 12, 7],
          [target('histogram_quantile(0.5, sum by (le, mcpdeck_server_name) (rate(mcp_client_session_duration_seconds_bucket{%s}[$__rate_interval])))' % sel(),
                  '{{mcpdeck_server_name}}')],
          description='mcp.client.session.duration of sessions that ended in the window.', unit='s'),

    row('Tools', 30),
    panel('timeseries', 'Error rate per tool', [0, 31, 12, 8],
          [target('sum by (mcpdeck_server_name, gen_ai_tool_name) (rate(mcp_client_operation_duration_seconds_count{%s}[$__rate_interval])) / sum by (mcpdeck_server_name, gen_ai_tool_name) (rate(mcp_client_operation_duration_seconds_count{%s}[$__rate_interval]))' % [
            sel('mcp_method_name="tools/call", error_type!=""'),
            sel('mcp_method_name="tools/call"'),
          ], '{{mcpdeck_server_name}}/{{gen_ai_tool_name}}')],
          description='Share of tool calls that failed: isError results (tool_error), JSON-RPC errors, timeouts, closed transports.', unit='percentunit'),
    panel('timeseries', 'Tool errors by type', [12, 31, 12, 8],
          [target('sum by (gen_ai_tool_name, error_type) (rate(mcp_client_operation_duration_seconds_count{%s}[$__rate_interval]))' % sel('mcp_method_name="tools/call", error_type!=""'),
                  '{{gen_ai_tool_name}} {{error_type}}')],
          description='error.type: tool_error, a JSON-RPC code, timeout, cancelled, transport_closed, _OTHER.', unit='ops'),
    panel('timeseries', 'Calls per tool', [0, 39, 12, 7],
          [target('sum by (mcpdeck_server_name, gen_ai_tool_name) (rate(mcp_client_operation_duration_seconds_count{%s}[$__rate_interval]))' % sel('mcp_method_name="tools/call"'),
                  '{{mcpdeck_server_name}}/{{gen_ai_tool_name}}')], unit='ops'),
    panel('timeseries', 'Outstanding requests', [12, 39, 12, 7],
          [target('sum by (%s, mcpdeck_server_name) (mcpdeck_server_requests_outstanding{%s})' % [host, sel()], '{{%s}} {{mcpdeck_server_name}}' % host)]),

    row('Notifications and anomalies', 46),
    panel('timeseries', 'Notifications received and dropped', [0, 47, 12, 7], [
      target('sum by (mcpdeck_server_name) (rate(mcpdeck_server_notifications_total{%s}[$__rate_interval]))' % sel(), 'received {{mcpdeck_server_name}}'),
      target('sum by (mcpdeck_server_name) (rate(mcpdeck_server_notifications_dropped_total{%s}[$__rate_interval]))' % sel(), 'dropped {{mcpdeck_server_name}}'),
    ], unit='ops'),
    panel('timeseries', 'Stdout noise and late responses', [12, 47, 12, 7], [
      target('sum by (mcpdeck_server_name) (increase(mcpdeck_server_stdout_noise_total{%s}[$__rate_interval]))' % sel(), 'noise lines {{mcpdeck_server_name}}'),
      target('sum by (mcpdeck_server_name) (increase(mcpdeck_server_responses_late_total{%s}[$__rate_interval]))' % sel(), 'late responses {{mcpdeck_server_name}}'),
    ], description="Lines on a stdio server's stdout that were not JSON-RPC; responses that came after their request was cancelled."),

    row('Gateway and telemetry', 54),
    panel('timeseries', 'Gateway', [0, 55, 12, 7], [
      target('sum by (%s) (mcpdeck_gateway_clients{%s})' % [host, hostSel], 'clients {{%s}}' % host),
      target('sum by (%s) (rate(mcpdeck_gateway_calls_total{%s}[$__rate_interval]))' % [host, hostSel], 'calls/s {{%s}}' % host),
    ]),
    panel('timeseries', 'Spans dropped', [12, 55, 12, 7],
          [target('sum by (%s) (rate(mcpdeck_telemetry_spans_dropped_total{%s}[$__rate_interval]))' % [host, hostSel], '{{%s}}' % host)],
          description='Spans not exported: the export queue was full or the collector failed.', unit='ops'),

    row('Inventory', 62),
    panel('table', 'Transport, protocol version and era per server', [0, 63, 24, 8],
          [target('mcpdeck_server_info{%s}' % sel(), instant=true, format='table')],
          description='Which servers still speak an old protocol revision, and how each is connected.',
          transformations=hideColumns(series)),
    panel('table', 'Last error per server', [0, 71, 24, 8],
          [target('max by (%s, mcpdeck_server_name, mcpdeck_error_kind, mcpdeck_error_message) (mcpdeck_server_last_error_timestamp_seconds{%s}) * 1000' % [host, sel()], instant=true, format='table')],
          description='Each server\'s most recent error: when (the value, Unix time), its kind and message. mcpdeck fleet shows the same.',
          options={ sortBy: [{ displayName: 'at', desc: true }] },
          overrides=[{ matcher: { id: 'byName', options: 'Value' }, properties: [{ id: 'unit', value: 'dateTimeAsIso' }, { id: 'displayName', value: 'at' }] }],
          transformations=hideColumns()),
  ],

  local variable(name, label, query) = {
    name: name,
    label: label,
    type: 'query',
    datasource: ds,
    query: { query: query, refId: name },
    definition: query,
    includeAll: true,
    multi: true,
    allValue: '.*',
    refresh: 2,
    current: {},
    hide: 0,
    sort: 1,
  },

  grafanaDashboards+:: {
    'mcpdeck.json': {
      __inputs: [{ name: 'DS_PROMETHEUS', label: 'Prometheus', type: 'datasource', pluginId: 'prometheus', pluginName: 'Prometheus' }],
      annotations: { list: [] },
      description: 'mcpdeck monitor: MCP server health, latency and tool errors across hosts (metrics from mcpdeck --metrics).',
      editable: true,
      graphTooltip: 1,
      links: [],
      refresh: c.dashboardRefresh,
      schemaVersion: 39,
      tags: c.dashboardTags,
      templating: {
        list: [
          { name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus', current: {}, hide: 0 },
          variable('instance', 'Host', 'label_values(mcpdeck_server_state{%s}, %s)' % [c.mcpdeckSelector, host]),
          variable('server', 'Server', 'label_values(mcpdeck_server_state{%s}, mcpdeck_server_name)' % hostSel),
        ],
      },
      time: { from: 'now-6h', to: 'now' },
      timepicker: {},
      timezone: '',
      title: c.dashboardTitle,
      uid: c.dashboardUid,
      version: 1,
      panels: std.mapWithIndex(function(i, p) p { id: i + 1 }, panels),
    },
  },
}
