{
  _config+:: {
    // The matchers that select mcpdeck's series, as in the scrape job
    // that reads `mcpdeck monitor --metrics`.
    mcpdeckSelector: 'job="mcpdeck"',
    // The label that tells hosts apart (mcpdeck fleet's --host-label).
    hostLabel: 'instance',
    // The window rates and quantiles are taken over.
    rateWindow: '5m',

    // How long each condition must hold before its alert fires.
    serverFailedFor: '1m',
    serverDegradedFor: '2m',
    healthCheckSlowFor: '5m',
    requestsSlowFor: '5m',
    toolErrorsFor: '10m',
    notificationsDroppedFor: '15m',
    spansDroppedFor: '15m',
    monitorDownFor: '5m',

    // Bounds, in seconds or as a share.
    healthCheckP95Seconds: 1,
    requestP95Seconds: 10,
    toolErrorRatio: 0.1,

    // The dashboard.
    dashboardUid: 'mcpdeck-servers',
    dashboardTitle: 'mcpdeck: MCP servers',
    dashboardTags: ['mcp', 'mcpdeck'],
    dashboardRefresh: '30s',
  },
}
