package cli

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"mcpdeck/runtime/fleet"
	"mcpdeck/ui"
	"mcpdeck/ui/present"
)

// EnvPrometheus is where --prometheus comes from when it is not given.
const EnvPrometheus = "MCPDECK_PROMETHEUS_URL"

type fleetFlags struct {
	url       string
	json      bool
	hostLabel string
	selector  string
	headers   []string
	every     time.Duration
	window    time.Duration
	history   time.Duration
	lookback  time.Duration
	timeout   time.Duration
}

func newFleetCmd() *cobra.Command {
	var ff fleetFlags
	cmd := &cobra.Command{
		Use:   "fleet --prometheus URL",
		Short: "Every host's MCP servers, as Prometheus sees them (read-only)",
		Long: `fleet shows the MCP servers of every host that runs mcpdeck monitor
--metrics, read from the Prometheus that scrapes them: each server's state,
health-check latency (the mean over --window, and a sparkline of the last
--history), restarts, reconnect attempts, requests outstanding and last
error, grouped by host (the instance label, or --host-label). It speaks
Prometheus's HTTP query API, so Thanos Query, Mimir (its /prometheus
prefix) and VictoriaMetrics work too.

In a terminal it opens a live view refreshed every --every: the servers
pane's keys move and filter (/ with words, host:x, server:x, state:x), r
refreshes now, ? lists the keys. It is read-only: the keys that change a
server are refused; run mcpdeck on the host for that. A server whose host
stopped reporting stays listed as unknown for --lookback.

--json prints the fleet once, for scripts; without a terminal a table is
printed once. Exit codes: 0 with an answer (even an empty fleet), 2 for
bad flags or a query Prometheus cannot parse, 3 when Prometheus cannot be
reached or refuses.`,
		Example: `  mcpdeck fleet --prometheus http://prometheus:9090
  mcpdeck fleet --prometheus http://prometheus:9090 --selector 'job="mcpdeck"' --host-label host
  mcpdeck fleet --prometheus http://mimir:8080/prometheus --header 'X-Scope-OrgID: team-a' --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runFleet(cmd, &ff) },
	}
	fl := cmd.Flags()
	fl.StringVar(&ff.url, "prometheus", "", "the Prometheus HTTP API's base `URL` (default $"+EnvPrometheus+")")
	fl.BoolVar(&ff.json, "json", false, "print the fleet once as JSON")
	fl.StringVar(&ff.hostLabel, "host-label", fleet.DefaultHostLabel, "the `LABEL` that names a host")
	fl.StringVar(&ff.selector, "selector", "", "label matchers every query adds, as inside braces: `'job=\"mcpdeck\"'`")
	fl.StringArrayVar(&ff.headers, "header", nil, "a request header for Prometheus, as 'K: V' (repeatable)")
	fl.DurationVar(&ff.every, "every", ui.DefaultFleetEvery, "how often the view refreshes")
	fl.DurationVar(&ff.window, "window", fleet.DefaultWindow, "the rate window of the latency (a few scrape intervals)")
	fl.DurationVar(&ff.history, "history", fleet.DefaultHistory, "how far back the latency sparkline goes")
	fl.DurationVar(&ff.lookback, "lookback", fleet.DefaultLookback, "how long a server that stopped reporting stays listed")
	fl.DurationVar(&ff.timeout, "timeout", fleet.DefaultTimeout, "bound on one refresh")
	return cmd
}

func runFleet(cmd *cobra.Command, ff *fleetFlags) error {
	url := ff.url
	if url == "" {
		url = os.Getenv(EnvPrometheus)
	}
	header := http.Header{}
	for _, h := range ff.headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return withCode(ExitUsage, fmt.Errorf("--header %q: write it as 'Name: value'", h))
		}
		header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	if ff.every < time.Second {
		return withCode(ExitUsage, fmt.Errorf("--every %s: refresh at most once a second", ff.every))
	}
	f, err := fleet.New(fleet.Options{URL: url, HostLabel: ff.hostLabel, Selector: ff.selector, Header: header,
		Window: ff.window, History: ff.history, Lookback: ff.lookback, Timeout: ff.timeout})
	if err != nil {
		return withCode(ExitUsage, err)
	}
	ctx, stop := signalContext(cmd)
	defer stop()
	out := cmd.OutOrStdout()
	if !ff.json && isTerminal(out) {
		return ui.RunFleet(ctx, ui.FleetOptions{Source: f, URL: url, Every: ff.every})
	}
	v, err := f.Load(ctx)
	switch {
	case err != nil && ctx.Err() != nil:
		return interrupted("fleet")
	case errors.Is(err, fleet.ErrBadQuery):
		return withCode(ExitUsage, err)
	case err != nil:
		return withCode(ExitConnection, err)
	}
	if len(v.Hosts) == 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "mcpdeck fleet: Prometheus at %s has no mcpdeck series (mcpdeck_server_info) in the last %s; is it scraping `mcpdeck monitor --metrics ADDR` on each host (and does --selector match)?\n",
			url, f.Options().Lookback)
	}
	for _, w := range v.Warnings {
		fmt.Fprintf(cmd.ErrOrStderr(), "mcpdeck fleet: Prometheus warns: %s\n", present.Line(w))
	}
	if ff.json {
		return present.WriteJSON(out, v)
	}
	printFleet(out, v)
	return nil
}

// printFleet writes the fleet as a table, one server a row.
func printFleet(w io.Writer, v *fleet.View) {
	var rows [][]string
	for _, h := range v.Hosts {
		up := "?"
		if h.Up != nil {
			up = map[bool]string{true: "up", false: "DOWN"}[*h.Up]
		}
		for _, s := range h.Servers {
			ping := "-"
			if s.Ping > 0 {
				ping = present.Latency(s.Ping)
			}
			lastErr := ""
			if e := s.LastError; e != nil {
				lastErr = present.Age(v.At.Sub(e.At)) + " ago: " + e.Message
			}
			rows = append(rows, []string{h.Name, up, s.Name, present.StateWord(s.State), present.OrHyphen(s.Transport), ping,
				fmt.Sprint(s.Restarts), fmt.Sprint(s.Outstanding), lastErr})
		}
	}
	printTable(w, []string{"HOST", "SCRAPE", "SERVER", "STATE", "VIA", "PING", "RESTARTS", "REQS", "LAST ERROR"}, rows)
}
