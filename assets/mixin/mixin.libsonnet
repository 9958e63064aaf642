// mcpdeck's monitoring mixin: Prometheus alerting rules and a Grafana
// dashboard for the metrics `mcpdeck monitor --metrics` exports, built the
// way the community's mixins are (prometheusAlerts, grafanaDashboards and
// a _config to override). The rendered files next to this folder,
// ../prometheus/mcpdeck-alerts.yml and ../grafana/mcpdeck.json, are this
// mixin with its default _config; `mcpdeck assets` prints them.
//
//   local mcpdeck = (import 'mcpdeck/assets/mixin/mixin.libsonnet') + {
//     _config+:: { mcpdeckSelector: 'job="mcp-hosts"', serverFailedFor: '5m' },
//   };
//   { 'mcpdeck-alerts.yml': std.manifestYamlDoc(mcpdeck.prometheusAlerts) }
(import 'config.libsonnet') +
(import 'alerts.libsonnet') +
(import 'dashboards.libsonnet')
