package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/record"
	"mcpdeck/runtime/suite"
	"mcpdeck/ui/present"
)

// testFlags are test's own flags.
type testFlags struct {
	junit    string
	asJSON   bool
	update   bool
	parallel int
	ci       bool

	fromRecording string
	server        string
	output        string
	force         bool
}

// defaultSuiteDir is where suites are looked for when none is named.
const defaultSuiteDir = "mcp-tests"

func newTestCmd() *cobra.Command {
	var f testFlags
	cmd := &cobra.Command{
		Use:   "test [PATH]...",
		Short: "Run test suites (mcp-tests/*.mcptest.yaml) against servers, for CI",
		Long: `test runs the YAML test suites a server author keeps in the repository:
each suite names a server (from mcp.json, or inline: a command or a URL)
and steps (list, call, read, prompt, complete, subscribe, wait), each with
expectations (isError, equals/matches at JSONPath paths, a JSON Schema,
the tool's outputSchema, a snapshot, a latency bound, notifications).
The format is documented in runtime/suite/FORMAT.md.

PATH is a suite file or a folder searched for *.mcptest.yaml; with none,
mcp-tests/ and the *.mcptest.yaml files of the current folder. Every file
is checked before anything runs: a problem anywhere is reported with its
file:line:col and nothing starts.

Each suite runs on a server of its own (started, used, stopped), once per
entry of its protocol: list (legacy, modern, auto or a revision); an
explicit --protocol runs each suite once, on that. --parallel N runs up to
N of those runs at once.

Output: a line per step with ✓ (passed), ✗ (failed), ! (could not be
judged) or - (skipped) and its time, a diff for each failed expectation,
and a summary. --json prints the results instead (one JSON document:
{"runs": [...], "summary": {...}}). --junit FILE also writes JUnit XML.

Snapshots live in __snapshots__/NAME.snap.json beside each suite. A
missing snapshot is written (and reported) on a developer's machine; under
CI=true or --ci it fails the step instead. --update rewrites every
snapshot the run meets and drops those of steps that are gone.

--from-recording FILE writes a suite instead of running one: each
tools/call, read, prompt, list and completion the recording holds becomes
a step whose expectation is a snapshot of the recorded answer (an error
answer becomes an error expectation). The suite goes to -o FILE (default
mcp-tests/SERVER.mcptest.yaml); --server picks the recording's server when
it holds several.

Exit status: 0 every step passed; 1 a step failed, could not be judged or
was skipped; 2 a usage or suite error (nothing ran), or a configuration
problem; 3 a server could not be connected; 4 interrupted.`,
		Example: `  mcpdeck test
  mcpdeck test mcp-tests/weather.mcptest.yaml --junit report.xml
  mcpdeck test --update
  mcpdeck test --parallel 4 --json > results.json
  mcpdeck test --from-recording session.jsonl -o mcp-tests/demo.mcptest.yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.fromRecording != "" {
				return runFromRecording(cmd, &f, args)
			}
			return runTest(cmd, &f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.junit, "junit", "", "also write the results as JUnit XML to `FILE`")
	fl.BoolVar(&f.asJSON, "json", false, "print the results as JSON")
	fl.BoolVar(&f.update, "update", false, "rewrite the snapshots with what the servers answer now")
	fl.IntVar(&f.parallel, "parallel", 1, "run up to `N` suites at once")
	fl.BoolVar(&f.ci, "ci", false, "fail a step whose snapshot is missing instead of writing it (the default under CI=true)")
	fl.StringVar(&f.fromRecording, "from-recording", "", "write a suite from the recording `FILE` instead of running suites")
	fl.StringVar(&f.server, "server", "", "with --from-recording, the recording's server `S` to take the requests of")
	fl.StringVarP(&f.output, "output", "o", "", "with --from-recording, the suite `FILE` to write (default mcp-tests/SERVER.mcptest.yaml)")
	fl.BoolVar(&f.force, "force", false, "with --from-recording, replace an existing suite file")
	return cmd
}

func runTest(cmd *cobra.Command, f *testFlags, args []string) error {
	if f.parallel < 1 {
		return withCode(ExitUsage, fmt.Errorf("--parallel %d: give 1 or more", f.parallel))
	}
	for _, name := range []string{"server", "output", "force"} {
		if cmd.Flags().Changed(name) {
			return withCode(ExitUsage, fmt.Errorf("--%s goes with --from-recording", name))
		}
	}
	protocol, err := protocolSetting(cmd)
	if err != nil {
		return err
	}
	files, err := findSuites(args)
	if err != nil {
		return err
	}
	suites, err := parseSuites(files)
	if err != nil {
		return err
	}
	ctx, cancel := signalContext(cmd)
	defer cancel()

	tr := &testRunner{cmd: cmd, flags: f, protocol: protocol, out: cmd.OutOrStdout(), ci: f.ci || os.Getenv("CI") == "true"}
	start := time.Now()
	results := tr.runAll(ctx, suites)
	total := time.Since(start)

	if f.junit != "" {
		if err := suite.WriteJUnitFile(f.junit, results, total); err != nil {
			return withCode(ExitUsage, err)
		}
	}
	if f.asJSON {
		if err := present.WriteJSON(tr.out, testJSONOf(results, total)); err != nil {
			return err
		}
	} else {
		printTestSummary(tr.out, results, total)
	}
	for _, err := range tr.saveErrs {
		fmt.Fprintf(cmd.ErrOrStderr(), "mcpdeck: %v\n", err)
	}
	if ctx.Err() != nil {
		return interrupted("test")
	}
	return tr.exit(results)
}

// findSuites expands the PATH arguments into suite files, in order.
func findSuites(args []string) ([]string, error) {
	var files []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			files = append(files, p)
		}
	}
	if len(args) == 0 {
		if fi, err := os.Stat(defaultSuiteDir); err == nil && fi.IsDir() {
			args = append(args, defaultSuiteDir)
		}
		here, _ := filepath.Glob("*" + suite.Ext)
		args = append(args, here...)
		if len(args) == 0 {
			return nil, withCode(ExitUsage, errors.New("no test suites: found no mcp-tests/ folder and no *.mcptest.yaml here; name a suite file or folder, or write one (see runtime/suite/FORMAT.md)"))
		}
	}
	for _, arg := range args {
		fi, err := os.Stat(arg)
		if err != nil {
			return nil, withCode(ExitUsage, fmt.Errorf("test suite %s: %w", arg, err))
		}
		if !fi.IsDir() {
			add(arg)
			continue
		}
		var found []string
		err = filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && d.Name() == suite.SnapshotDir:
				return filepath.SkipDir
			case !d.IsDir() && strings.HasSuffix(d.Name(), suite.Ext):
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, withCode(ExitUsage, fmt.Errorf("looking for suites in %s: %w", arg, err))
		}
		if len(found) == 0 {
			return nil, withCode(ExitUsage, fmt.Errorf("%s holds no *%s file", arg, suite.Ext))
		}
		sort.Strings(found)
		for _, p := range found {
			add(p)
		}
	}
	return files, nil
}

// parseSuites parses every file; any problem in any of them stops
// everything, with every problem listed.
func parseSuites(files []string) ([]*suite.Suite, error) {
	var out []*suite.Suite
	var errs suite.Errors
	for _, path := range files {
		s, err := suite.ParseFile(path)
		var se suite.Errors
		switch {
		case errors.As(err, &se):
			errs = append(errs, se...)
		case err != nil:
			errs = append(errs, suite.Error{Pos: suite.Pos{File: path}, Msg: err.Error()})
		default:
			out = append(out, s)
		}
	}
	if len(errs) > 0 {
		return nil, withCode(ExitUsage, invalidSuitesError(errs))
	}
	return out, nil
}

// invalidSuitesError lists every problem of the suite files.
type invalidSuitesError suite.Errors

func (e invalidSuitesError) Error() string {
	lines := make([]string, len(e))
	for i, x := range e {
		lines[i] = present.Line(x.Error())
	}
	return problemList(present.Count(len(e), "problem", "problems")+" in the test suites; nothing was run",
		lines, "the format is documented in runtime/suite/FORMAT.md")
}

func (e invalidSuitesError) Unwrap() error { return suite.Errors(e) }

// testRunner runs the suites of one mcpdeck test.
type testRunner struct {
	cmd      *cobra.Command
	flags    *testFlags
	protocol string // --protocol, when given
	ci       bool
	out      io.Writer

	mu       sync.Mutex // guards out (whole blocks) and the fields below
	codes    []int      // exit codes of runs that could not connect
	saveErrs []error
	snaps    []*suite.Snapshots
}

// job is one run: a suite on one protocol.
type job struct {
	s        *suite.Suite
	protocol string
	snaps    *suite.Snapshots
}

func (t *testRunner) runAll(ctx context.Context, suites []*suite.Suite) []*suite.Result {
	var jobs []job
	for _, s := range suites {
		snaps := suite.OpenSnapshots(s)
		t.snaps = append(t.snaps, snaps)
		protocols := s.Protocols
		if t.protocol != "" {
			protocols = []string{t.protocol}
		}
		for _, p := range protocols {
			jobs = append(jobs, job{s: s, protocol: p, snaps: snaps})
		}
	}
	results := make([]*suite.Result, len(jobs))
	stream := t.flags.parallel == 1 && !t.flags.asJSON
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(t.flags.parallel, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				results[i] = t.runJob(ctx, jobs[i], stream)
			}
		}()
	}
	for i := range jobs {
		work <- i
	}
	close(work)
	wg.Wait()
	for _, sn := range t.snaps {
		if err := sn.Save(t.flags.update); err != nil {
			t.saveErrs = append(t.saveErrs, err)
		}
	}
	return results
}

func (t *testRunner) runJob(ctx context.Context, j job, stream bool) *suite.Result {
	var block bytes.Buffer
	w := io.Writer(&block)
	if stream {
		w = t.out
	}
	headed := false
	opts := suite.Options{Open: t.open, Snapshots: j.snaps, Update: t.flags.update, WriteMissing: !t.ci,
		OnStep: func(r *suite.Result, s suite.StepResult) {
			if t.flags.asJSON || r.Error != "" {
				return // a run that could not start says why once, not per step
			}
			if !headed {
				printRunHeading(w, r)
				headed = true
			}
			printStep(w, s)
		}}
	res := suite.Run(ctx, j.s, j.protocol, opts)
	if !t.flags.asJSON {
		if !headed {
			printRunHeading(w, res)
		}
		printRunSummary(w, res)
		if !stream {
			t.mu.Lock()
			_, _ = t.out.Write(block.Bytes())
			t.mu.Unlock()
		}
	}
	return res
}

// open connects a suite's server for one run: an inline server as an
// ad-hoc one (as --stdio or --url make it), a named one from the
// configuration, with the suite's inputs as its ${input:ID} values.
func (t *testRunner) open(ctx context.Context, s *suite.Suite, protocol string, inputs map[string]string) (*runtime.Controller, string, func(), error) {
	cfg, name, err := t.config(s, inputs)
	if err != nil {
		return nil, "", nil, t.failed(err)
	}
	// Declared and declined as call does, so a server that lists tools
	// by the client's capabilities lists what call and a recording saw.
	// The protocol is the run's, else --protocol (sessionOptions).
	opts, err := sessionOptions(t.cmd, runtime.Options{Elicitor: runtime.DeclineElicitor{}, Protocol: protocol})
	if err != nil {
		return nil, "", nil, t.failed(err)
	}
	opts.Auth = newAuthManager(t.cmd, 0)
	rt, err := startRuntime(ctx, cfg, opts)
	if err != nil {
		return nil, "", nil, t.failed(err)
	}
	if err := serverFailure(rt.Snapshot(), name); err != nil {
		shutdownRuntime(rt)
		return nil, "", nil, t.failed(err)
	}
	return rt, name, func() { shutdownRuntime(rt) }, nil
}

// failed remembers the exit code of a run that could not start and
// returns err worded for the report.
func (t *testRunner) failed(err error) error {
	code := ExitConnection
	var e *exitError
	if errors.As(err, &e) {
		code = e.code
	}
	t.mu.Lock()
	t.codes = append(t.codes, code)
	t.mu.Unlock()
	return errors.New(present.ErrorText(err, present.CLI))
}

func (t *testRunner) config(s *suite.Suite, inputs map[string]string) (*config.Config, string, error) {
	for _, v := range inputs {
		config.AddSecret(v) // inputs are typically passwords and tokens
	}
	if s.Server.Inline == nil {
		vars := map[string]string{}
		for id, v := range inputs {
			vars["input:"+id] = v
		}
		cfg, err := resolveConfigured(t.cmd, []string{s.Server.Name}, vars, false)
		if err != nil {
			return nil, "", err
		}
		return cfg, s.Server.Name, nil
	}
	in, err := suite.ExpandInline(s.Server.Inline, inputs, os.LookupEnv)
	if err != nil {
		return nil, "", withCode(ExitUsage, fmt.Errorf("%s: server: %w", s.Server.Pos, err))
	}
	srv := adHocServer(s.Path)
	if in.Command != "" {
		srv.Transport, srv.Command, srv.Args, srv.Env = config.TransportStdio, in.Command, in.Args, in.Env
		srv.EnvInherit = config.EnvInherit{All: true} // as --stdio: the shell's environment
		if in.Cwd != "" {
			if srv.Cwd, err = filepath.Abs(in.Cwd); err != nil {
				return nil, "", withCode(ExitUsage, err)
			}
		}
	} else {
		tf := targetFlags{url: in.URL, transport: in.Transport}
		for k, v := range in.Headers {
			tf.headers = append(tf.headers, k+": "+v)
		}
		u, _, err := tf.adHoc()
		if err != nil {
			return nil, "", withCode(ExitUsage, fmt.Errorf("%s: server: %w", s.Server.Pos, err))
		}
		srv.Transport, srv.TransportInferred, srv.URL, srv.Headers = u.Transport, u.TransportInferred, u.URL, u.Headers
	}
	return &config.Config{Servers: []config.Server{srv}}, srv.Name, nil
}

// exit is the command's exit status: a configuration or usage problem
// first, then a server that did not connect, then a failed step.
func (t *testRunner) exit(results []*suite.Result) error {
	switch {
	case slices.Contains(t.codes, ExitUsage) || len(t.saveErrs) > 0:
		return silentExit(ExitUsage)
	case len(t.codes) > 0:
		return silentExit(ExitConnection)
	}
	for _, r := range results {
		if r.Error != "" && !r.ConnectFailed {
			return silentExit(ExitUsage) // the suite's inputs could not be resolved
		}
	}
	for _, r := range results {
		if !r.OK() {
			return silentExit(ExitToolError)
		}
	}
	return nil
}

var statusMark = map[suite.Status]string{suite.Passed: "✓", suite.Failed: "✗", suite.Errored: "!", suite.Skipped: "-"}

func printRunHeading(w io.Writer, r *suite.Result) {
	where := "server " + present.Line(r.Server)
	if r.Era != "" {
		where += ", " + r.Era + " " + r.Version
	}
	fmt.Fprintf(w, "%s  (%s; %s)\n", present.Line(r.Name()), r.File, where)
}

func printStep(w io.Writer, s suite.StepResult) {
	label := s.Key
	if s.Label != s.Key {
		label += ": " + s.Label
	}
	took := ""
	if s.Status != suite.Skipped {
		took = " (" + present.Latency(s.Duration) + ")"
	}
	fmt.Fprintf(w, "  %s %s%s\n", statusMark[s.Status], present.Line(label), took)
	for _, f := range s.Failures {
		for _, line := range strings.Split(present.Clean(f.Text()), "\n") {
			fmt.Fprintf(w, "      %s\n", line)
		}
	}
	if s.Error != "" && s.Status != suite.Skipped {
		fmt.Fprintf(w, "      %s\n", present.Line(s.Error))
	}
	if s.SnapshotWritten {
		fmt.Fprintf(w, "      snapshot %q written\n", s.Key)
	}
}

func printRunSummary(w io.Writer, r *suite.Result) {
	c := r.Count()
	verdict := "ok"
	if !r.OK() {
		verdict = "FAILED"
	}
	if r.Error != "" {
		fmt.Fprintf(w, "  ! %s\n", present.Line(r.Error))
	}
	fmt.Fprintf(w, "  %s: %d passed, %d failed, %s, %d skipped (%s)\n\n", verdict, c.Passed, c.Failed,
		present.Count(c.Errored, "error", "errors"), c.Skipped, present.Latency(r.Duration))
}

func printTestSummary(w io.Writer, results []*suite.Result, total time.Duration) {
	var sum suite.Counts
	failedRuns := 0
	for _, r := range results {
		sum = sum.Add(r.Count())
		if !r.OK() {
			failedRuns++
		}
	}
	verdict := "PASS"
	if failedRuns > 0 {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "%s: %s (%d failed); %s: %d passed, %d failed, %s, %d skipped (%s)\n", verdict,
		present.Count(len(results), "suite run", "suite runs"), failedRuns, present.Count(sum.Steps, "step", "steps"),
		sum.Passed, sum.Failed, present.Count(sum.Errored, "error", "errors"), sum.Skipped, present.Latency(total))
}

// testJSON is the stable machine output of mcpdeck test --json.
type testJSON struct {
	Runs    []*suite.Result `json:"runs"`
	Summary testSummaryJSON `json:"summary"`
}

type testSummaryJSON struct {
	suite.Counts
	Runs       int   `json:"runs"`
	FailedRuns int   `json:"failedRuns"`
	DurationNs int64 `json:"durationNs"`
	OK         bool  `json:"ok"`
}

func testJSONOf(results []*suite.Result, total time.Duration) testJSON {
	out := testJSON{Runs: results}
	for _, r := range results {
		out.Summary.Counts = out.Summary.Counts.Add(r.Count())
		if !r.OK() {
			out.Summary.FailedRuns++
		}
	}
	out.Summary.Runs = len(results)
	out.Summary.DurationNs = int64(total)
	out.Summary.OK = out.Summary.FailedRuns == 0
	return out
}

// runFromRecording writes a suite from a recording's requests.
func runFromRecording(cmd *cobra.Command, f *testFlags, args []string) error {
	if len(args) > 0 {
		return withCode(ExitUsage, errors.New("--from-recording writes a suite; name no suite to run with it"))
	}
	for _, name := range []string{"junit", "json", "update", "parallel", "ci"} {
		if cmd.Flags().Changed(name) {
			return withCode(ExitUsage, fmt.Errorf("--%s does not go with --from-recording", name))
		}
	}
	rec, err := record.ReadFile(f.fromRecording)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	server, steps, err := suite.FromRecording(rec, f.server)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("%s: %w", f.fromRecording, err))
	}
	path := f.output
	if path == "" {
		path = filepath.Join(defaultSuiteDir, server+suite.Ext)
	}
	if _, err := os.Stat(path); err == nil && !f.force {
		return withCode(ExitUsage, fmt.Errorf("%s exists: give another file with -o, or --force to replace it (its snapshots too)", path))
	}
	comment := fmt.Sprintf("Written by mcpdeck test --from-recording %s:\n%s.\nEach step expects the answer the recording holds (a snapshot in __snapshots__/).",
		filepath.Base(f.fromRecording), present.Count(len(steps), "request", "requests"))
	ref, secret := suite.RecordedServer(rec, server)
	if secret {
		comment += "\nThe recording keeps no secrets: add the server's headers (e.g. Authorization: \"Bearer ${env:TOKEN}\")."
	}
	text, err := suite.NewSuiteFor(ref, comment, steps)
	if err != nil {
		return err
	}
	s, err := suite.Parse(path, text)
	if err != nil {
		return fmt.Errorf("the suite written from the recording does not parse (a bug in mcpdeck): %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return withCode(ExitUsage, err)
	}
	if err := os.WriteFile(path, text, 0o644); err != nil {
		return withCode(ExitUsage, err)
	}
	if f.force {
		_ = os.Remove(s.SnapshotPath) // replaced whole, with the suite
	}
	if err := suite.SaveSnapshots(s, steps); err != nil {
		return withCode(ExitUsage, err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%s for server %s) and its snapshots %s\nrun it with: mcpdeck test %s\n",
		path, present.Count(len(steps), "step", "steps"), present.Line(server), s.SnapshotPath, path)
	return nil
}
