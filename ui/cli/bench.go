package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/bench"
	"mcpdeck/ui/present"
)

// benchFlags are bench's own flags.
type benchFlags struct {
	requests    int
	duration    time.Duration
	concurrency int
	connections int
	timeout     time.Duration
	asJSON      bool
	baseline    string
	tolerance   float64
	noValidate  bool
}

// defaultBenchRequests is -n when neither -n nor --duration is given.
const defaultBenchRequests = 200

func newBenchCmd() *cobra.Command {
	var tf targetFlags
	var bf benchFlags
	cmd := &cobra.Command{
		Use:   "bench SERVER TOOL [ARGS_JSON | - | @FILE]",
		Short: "Load-test one tool: throughput, latency percentiles, errors by kind, a histogram",
		Long: `bench starts SERVER (or the ad-hoc server given with --url or --stdio, in
which case SERVER is left out) and calls TOOL again and again with the
same arguments: -n calls in all (default 200), or as many as fit in
--duration; --concurrency calls in flight at once (default 1), over one
connection, or spread over --connections copies of the server (each its
own process, or its own HTTP session). One warm-up call per connection is
made first and not counted. --no-validate sends arguments the tool's input
schema refuses, as "mcpdeck call --no-validate" does.

Each call goes through mcpdeck's runtime as "mcpdeck call" does (arguments
checked against the input schema, the result decoded), so the figures are
the server's as mcpdeck's users meet it, mcpdeck's own cost included (the
README compares that cost with the official Go SDK client's). Latency is
measured around each call, errors included.

It prints the throughput (completed calls per second), the latency
min/p50/p90/p99/max and mean, the errors by kind (tool-error for an
isError result, else the error's kind: timeout, protocol, closed, ...)
and a histogram. --json prints the same as one object:
  {"server", "tool", "connections", "concurrency", "requests", "ok",
   "errors": {"KIND": n}, "elapsed", "throughput",
   "latency": {"min", "mean", "p50", "p90", "p99", "max"},
   "histogram": [{"upper", "count"}], "interrupted"}
with durations in nanoseconds, and, with --baseline, "regressions".

--baseline FILE compares the run with an earlier --json output: when its
p50 or p99 is slower by more than --tolerance (0.2: 20%), it says so and
exits 1. Run the baseline on the same machine, with the same flags: a
baseline of another tool, --concurrency or --connections is named on
stderr, since that alone moves the percentiles.

Exit status: 0; 1 a regression past the tolerance, or not one call
succeeded; 2 usage error; 3 the server could not be connected, or its
warm-up call failed (4 when it timed out); 4 interrupted.`,
		Example: `  mcpdeck bench demo echo '{"text":"hi"}' -n 1000 --concurrency 8
  mcpdeck bench --stdio 'node build/server.js' search '{"q":"x"}' --duration 30s --connections 4 --concurrency 16
  mcpdeck bench demo echo '{"text":"hi"}' --json > base.json
  mcpdeck bench demo echo '{"text":"hi"}' --baseline base.json --tolerance 0.1`,
		Args: cobra.RangeArgs(1, 3),
		RunE: func(cmd *cobra.Command, args []string) error { return runBench(cmd, &tf, &bf, args) },
	}
	addTargetFlags(cmd, &tf)
	fl := cmd.Flags()
	fl.IntVarP(&bf.requests, "requests", "n", 0, "make `N` calls (default 200 unless --duration)")
	fl.DurationVar(&bf.duration, "duration", 0, "keep calling for `D` instead of a number of calls")
	fl.IntVar(&bf.concurrency, "concurrency", 1, "calls in flight at once")
	fl.IntVar(&bf.connections, "connections", 1, "spread the calls over `N` connections (copies of the server)")
	fl.DurationVar(&bf.timeout, "timeout", 0, "give up on a call after `D` (default: the server's call timeout)")
	fl.BoolVar(&bf.asJSON, "json", false, "print the report as JSON (shape in --help)")
	fl.StringVar(&bf.baseline, "baseline", "", "compare with an earlier --json report in `FILE`; exit 1 when p50 or p99 regressed past --tolerance")
	fl.Float64Var(&bf.tolerance, "tolerance", 0.2, "with --baseline, how much slower p50 and p99 may be: 0.2 is 20%")
	fl.BoolVar(&bf.noValidate, "no-validate", false, "send arguments that fail the tool's input schema anyway (load-test the server's own validation)")
	return cmd
}

func runBench(cmd *cobra.Command, tf *targetFlags, bf *benchFlags, args []string) error {
	target, names, err := callTargetOf(tf, args, bf.timeout)
	if err != nil {
		return err
	}
	switch {
	case bf.requests < 0 || bf.duration < 0:
		return withCode(ExitUsage, errors.New("-n and --duration must not be negative"))
	case bf.requests > 0 && bf.duration > 0:
		return withCode(ExitUsage, errors.New("give -n or --duration, not both"))
	case bf.concurrency < 1 || bf.connections < 1:
		return withCode(ExitUsage, errors.New("--concurrency and --connections must be at least 1"))
	case bf.tolerance < 0:
		return withCode(ExitUsage, errors.New("--tolerance must not be negative: 0.2 allows 20% slower"))
	}
	if bf.requests == 0 && bf.duration == 0 {
		bf.requests = defaultBenchRequests
	}
	var base *bench.Report
	if bf.baseline != "" {
		b, err := bench.ReadBaseline(bf.baseline)
		if err != nil {
			return withCode(ExitUsage, err)
		}
		base = &b
	}
	arguments, err := readArguments(target.argSpec, cmd.InOrStdin())
	if err != nil {
		return err
	}
	cfg, err := resolveTargets(cmd, tf, names)
	if err != nil {
		return err
	}
	copies := connectionsOf(cfg.Servers[0], bf.connections)
	opts, err := sessionOptions(cmd, runtime.Options{Elicitor: runtime.DeclineElicitor{}, Auth: newAuthManager(cmd, 0), InteractiveLogin: tf.login,
		ToolsOnly: true})
	if err != nil {
		return err
	}
	ctx, stop := signalContext(cmd)
	defer stop()
	rt, err := startCommand(ctx, "bench", &config.Config{Servers: copies}, opts)
	if err != nil {
		return err
	}
	defer shutdownRuntime(rt)
	var servers []string
	snap := rt.Snapshot()
	for _, s := range copies {
		if err := serverFailure(snap, s.Name); err != nil {
			return err
		}
		servers = append(servers, s.Name)
	}
	if err := knownTool(snap, servers[0], target.tool); err != nil {
		return err
	}
	rep, err := bench.Run(ctx, rt, bench.Options{Servers: servers, Tool: target.tool, Arguments: arguments, Requests: bf.requests,
		Duration: bf.duration, Concurrency: bf.concurrency, Timeout: bf.timeout, NoValidate: bf.noValidate, Warmup: 1})
	if err != nil {
		if ctx.Err() != nil {
			return interrupted("bench")
		}
		return withCode(exitCodeOf(err), err)
	}
	rep.Server = target.server
	var regressions []bench.Regression
	if base != nil {
		regressions = bench.Compare(*base, rep, bf.tolerance)
		if unlike := bench.Unlike(*base, rep); len(unlike) > 0 {
			warnf(cmd.ErrOrStderr(), "the baseline %s was measured otherwise than this run (%s): the comparison says little about the server; make the baseline with the same tool, --concurrency and --connections",
				bf.baseline, strings.Join(unlike, ", "))
		}
	}
	out := cmd.OutOrStdout()
	if bf.asJSON {
		if err := present.WriteJSON(out, struct {
			bench.Report
			Regressions []bench.Regression `json:"regressions,omitempty"`
		}{rep, regressions}); err != nil {
			return err
		}
	} else {
		printBench(out, rep)
		if base != nil {
			printBaseline(out, *base, rep, regressions, bf.tolerance)
		}
	}
	switch {
	case rep.Interrupted:
		return interrupted("bench")
	case len(regressions) > 0:
		return silentExit(ExitToolError)
	case rep.OK == 0:
		if !bf.asJSON {
			fmt.Fprintln(out, "not one call succeeded")
		}
		return silentExit(ExitToolError)
	}
	return nil
}

// connectionsOf is n copies of a server, each its own connection: NAME-1,
// NAME-2, ... (one copy keeps the name).
func connectionsOf(s config.Server, n int) []config.Server {
	if n == 1 {
		return []config.Server{s}
	}
	out := make([]config.Server, n)
	for i := range out {
		out[i] = s
		out[i].Name = s.Name + "-" + strconv.Itoa(i+1)
	}
	return out
}

// histogramWidth is the longest bar of the histogram, in characters.
const histogramWidth = 40

// printBench writes the report for people.
func printBench(w io.Writer, r bench.Report) {
	conns := "1 connection"
	if r.Connections > 1 {
		conns = fmt.Sprintf("%d connections", r.Connections)
	}
	fmt.Fprintf(w, "%s %s: %d calls, concurrency %d over %s\n", present.Line(r.Server), present.Line(r.Tool), r.Requests, r.Concurrency, conns)
	failed := r.Requests - r.OK
	fmt.Fprintf(w, "  throughput  %.1f calls/s (%s in all); %d ok, %d failed\n", r.Throughput, bench.Round(r.Elapsed), r.OK, failed)
	l := r.Latency
	fmt.Fprintf(w, "  latency     min %s  p50 %s  p90 %s  p99 %s  max %s  (mean %s)\n",
		bench.Round(l.Min), bench.Round(l.P50), bench.Round(l.P90), bench.Round(l.P99), bench.Round(l.Max), bench.Round(l.Mean))
	if len(r.Errors) > 0 {
		var kinds []string
		for k := range r.Errors {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		parts := make([]string, len(kinds))
		for i, k := range kinds {
			parts[i] = fmt.Sprintf("%s %d", k, r.Errors[k])
		}
		fmt.Fprintf(w, "  errors      %s\n", strings.Join(parts, ", "))
	}
	if r.Interrupted {
		fmt.Fprintln(w, "  interrupted: the figures are those of the calls completed")
	}
	if len(r.Histogram) == 0 {
		return
	}
	most := 0
	for _, b := range r.Histogram {
		most = max(most, b.Count)
	}
	fmt.Fprintln(w)
	for _, b := range r.Histogram {
		bar := (b.Count*histogramWidth + most - 1) / most
		fmt.Fprintf(w, "  ≤ %7s │%-*s %d\n", b.Upper, histogramWidth, strings.Repeat("■", bar), b.Count)
	}
}

// printBaseline writes the comparison with the baseline.
func printBaseline(w io.Writer, base, r bench.Report, regressions []bench.Regression, tolerance float64) {
	fmt.Fprintf(w, "\nbaseline    p50 %s → %s, p99 %s → %s (tolerance %.0f%%)\n",
		bench.Round(base.Latency.P50), bench.Round(r.Latency.P50), bench.Round(base.Latency.P99), bench.Round(r.Latency.P99), 100*tolerance)
	for _, g := range regressions {
		fmt.Fprintf(w, "  %s\n", g)
	}
	if len(regressions) == 0 {
		fmt.Fprintln(w, "  within the tolerance")
	}
}
