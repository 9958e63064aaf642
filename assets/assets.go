// Package assets holds mcpdeck's embedded defaults: the default mcp.json
// (which runs mcpdeck's own demo server, so a fresh machine with no
// configuration still has something to look at) and the help text; and
// the monitoring mixin's rendered Prometheus alerting rules and Grafana
// dashboard (mixin/, printed by mcpdeck assets).
package assets

import _ "embed"

// DefaultConfig is the mcp.json used when no configuration file is found.
// ${mcpdeck} expands to the path of the running mcpdeck executable.
//
//go:embed default-mcp.json
var DefaultConfig []byte

// DefaultConfigName is the name under which DefaultConfig is reported as a
// source file.
const DefaultConfigName = "<embedded default mcp.json>"

// PrometheusRules are the alerting rules for mcpdeck's metrics, rendered
// from mixin/ (mcpdeck assets prometheus-rules).
//
//go:embed prometheus/mcpdeck-alerts.yml
var PrometheusRules []byte

// PrometheusRulesTests are promtool unit tests of PrometheusRules.
//
//go:embed prometheus/mcpdeck-alerts.test.yml
var PrometheusRulesTests []byte

// GrafanaDashboard is the Grafana dashboard for mcpdeck's metrics,
// rendered from mixin/ (mcpdeck assets grafana-dashboard).
//
//go:embed grafana/mcpdeck.json
var GrafanaDashboard []byte
