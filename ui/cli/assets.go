package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"mcpdeck/assets"
)

// shippedAssets are the files mcpdeck assets prints, by name.
var shippedAssets = map[string]struct {
	short string
	data  []byte
}{
	"prometheus-rules":       {"Prometheus alerting rules for mcpdeck's metrics (YAML; load with rule_files)", assets.PrometheusRules},
	"prometheus-rules-tests": {"promtool unit tests of those rules (save the rules as mcpdeck-alerts.yml beside them; promtool test rules FILE)", assets.PrometheusRulesTests},
	"grafana-dashboard":      {"the Grafana dashboard for mcpdeck's metrics (JSON; import it, choose the Prometheus data source)", assets.GrafanaDashboard},
}

func newAssetsCmd() *cobra.Command {
	names := make([]string, 0, len(shippedAssets))
	for n := range shippedAssets {
		names = append(names, n)
	}
	sort.Strings(names)
	var list strings.Builder
	for _, n := range names {
		fmt.Fprintf(&list, "  %-24s %s\n", n, shippedAssets[n].short)
	}
	return &cobra.Command{
		Use:   "assets NAME",
		Short: "Print the shipped Prometheus alerting rules or Grafana dashboard",
		Long: `assets prints a file mcpdeck ships for the monitoring stack around
mcpdeck monitor --metrics:

` + list.String() + `
They are the monitoring mixin in assets/mixin of mcpdeck's source
(jsonnet, like the community's mixins) rendered with its defaults: the
series are selected with job="mcpdeck" and hosts told apart by instance.
To change those, or the thresholds and durations, import the mixin and
override its _config.`,
		Example: `  mcpdeck assets prometheus-rules > /etc/prometheus/rules/mcpdeck.yml && promtool check rules /etc/prometheus/rules/mcpdeck.yml
  mcpdeck assets grafana-dashboard > mcpdeck-dashboard.json`,
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: names,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				fmt.Fprint(cmd.OutOrStdout(), list.String())
				return nil
			}
			a, ok := shippedAssets[args[0]]
			if !ok {
				return withCode(ExitUsage, fmt.Errorf("no asset %q%s; there are: %s", args[0], didYouMean(args[0], names), strings.Join(names, ", ")))
			}
			_, err := cmd.OutOrStdout().Write(a.data)
			return err
		},
	}
}
