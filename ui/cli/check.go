package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"mcpdeck/runtime"
	"mcpdeck/runtime/check"
	"mcpdeck/ui/present"
)

// checkFlags are the flags of mcpdeck check.
type checkFlags struct {
	asJSON    bool
	tool      string
	args      string
	timeout   time.Duration
	resultMax int
	profiles  []string
	record    recordFlags
}

func newCheckCmd() *cobra.Command {
	var tf targetFlags
	var cf checkFlags
	cmd := &cobra.Command{
		Use:   "check [SERVER]...",
		Short: "Check that servers are ready for clients, on their declared transport",
		Long: `Check each named server (every enabled server when none is named) on the
transport its configuration declares, and print one line per item, PASS,
WARN, FAIL or SKIP, with what to fix:

  initialize        the negotiated version, serverInfo and capabilities
  tools-list        every page; valid names; every inputSchema a valid
                    JSON Schema of "type": "object"
  call              one successful call: --tool (with --args), else a tool
                    whose schema the checker can satisfy; progress extends
                    the wait (each notification restarts --timeout) up to
                    2 min; an answer that reads like an error without
                    isError warns
  invalid-input     arguments that break the schema get isError or -32602
  cancellation      a call cancelled mid-flight gets no response; ping works
  reconnect         the transport is dropped with a request outstanding: it is
                    rejected, and a fresh connection lists the same tools
  shutdown          which stop step was needed (stdin close, SIGTERM, SIGKILL),
                    and every process the server left running when it
                    exited (pid, command line)
  stable-names, bounded-results, actionable-errors, no-secrets,
  response-ids, no-notification-for-response, stdout-clean
                    the authoring rules
  authorization     HTTP: the authorization it asks for; a token it never
                    issued must get 401
  environment       stdio: the variable names the server received

The check speaks the era it negotiates (--protocol chooses: auto, legacy,
modern or a revision) and says which. On a 2026-07-28 server it adds:

  discover             server/discover answers with supportedVersions and
                       resultType
  unsupported-version  a request for an unknown revision gets -32022 with
                       data.supported
  missing-meta         a request without the _meta envelope gets -32602
  header-mismatch      HTTP: a POST whose Mcp-Method disagrees with the
                       body gets 400 -32020
  stateless            two requests on fresh connections both succeed

--profile NAME adds one item per client named (claude-code, codex,
gemini-cli, vscode, cursor; all for every one, with a grid of clients
against rules after the report): whether the server fits what that client
accepts — tool name characters and length (as the client names the tool,
with the server's name), schema keywords it rejects, description and
instructions sizes, the number of tools — FAIL where the client refuses or
breaks, WARN where it renames, cuts or leaves out. Each limit, its date and
its source (the client's docs or code) are in runtime/check/PROFILES.md.

Each server runs in its own session, started and stopped by the check;
every request, the probes included, is dialed as a session's (headers,
token, limits, redirect policy: a redirect to another origin is reported,
never followed).
Exit status: 0 when nothing FAILed (WARN and SKIP do not fail), 1 when any
item FAILed, including a server that could not even be initialized (its
initialize item FAILs and says why), 2 for usage errors, 4 when interrupted.`,
		Example: `  mcpdeck check
  mcpdeck check myserver --json
  mcpdeck check --stdio 'node build/index.js' --tool search --args '{"query":"x"}'
  mcpdeck check myserver --profile claude-code --profile cursor
  mcpdeck check myserver --profile all`,
		ValidArgsFunction: completeEveryServer,
		RunE: func(cmd *cobra.Command, names []string) error {
			return runCheck(cmd, &tf, &cf, names)
		},
	}
	addTargetFlags(cmd, &tf)
	fl := cmd.Flags()
	fl.BoolVar(&cf.asJSON, "json", false, "print the reports as stable JSON")
	fl.StringVar(&cf.tool, "tool", "", "the tool the call item invokes (default: one whose schema the checker can satisfy)")
	fl.StringVar(&cf.args, "args", "", "the arguments for --tool, a JSON object (default: minimal valid arguments from its schema)")
	fl.DurationVar(&cf.timeout, "timeout", check.DefaultCallTimeout, "how long each request may take before it counts as unanswered")
	fl.IntVar(&cf.resultMax, "result-max", check.DefaultResultMax, "the largest acceptable tool result, in bytes")
	fl.StringArrayVar(&cf.profiles, "profile", nil, "also judge the server against what client `NAME` accepts ("+strings.Join(check.ProfileNames(), ", ")+"), or all, as a grid (repeatable)")
	addRecordFlags(cmd, &cf.record)
	cmd.Flags().Lookup("record").Usage += "; checking several servers writes one file each, FILE with the server's name before its extension"
	return cmd
}

// checkOptions are what a check takes from the session's settings, the
// same for mcpdeck check and the TUI's c: the protocol, roots, log level,
// tokens, telemetry and tool decisions the session itself would use.
func checkOptions(session runtime.Options) check.Options {
	return check.Options{ClientVersion: version(), Auth: session.Auth, Protocol: session.Protocol, Roots: session.Roots,
		LogLevel: session.LogLevel, Telemetry: session.Telemetry, Tools: session.Tools}
}

func runCheck(cmd *cobra.Command, tf *targetFlags, cf *checkFlags, names []string) (err error) {
	var recFailed error // a recording that could not be written
	defer func() {
		if err == nil {
			err = recFailed
		}
	}()
	session, err := sessionOptions(cmd, runtime.Options{Auth: newAuthManager(cmd, 0)})
	if err != nil {
		return err
	}
	opts := checkOptions(session)
	opts.Tool, opts.CallTimeout, opts.ResultMax = cf.tool, cf.timeout, cf.resultMax
	if cf.args != "" {
		opts.Args = json.RawMessage(cf.args)
	}
	if err := opts.Validate(); err != nil {
		return withCode(ExitUsage, fmt.Errorf("--tool/--args: %w", err))
	}
	if opts.Profiles, err = check.ResolveProfiles(cf.profiles); err != nil {
		return withCode(ExitUsage, fmt.Errorf("--profile: %w", err))
	}
	cfg, err := resolveTargets(cmd, tf, names)
	if err != nil {
		return err
	}
	if len(cfg.Servers) == 0 {
		return withCode(ExitUsage, fmt.Errorf("no enabled server to check in %s: name one, or give --stdio or --url", sourcesOf(cfg)))
	}
	ctx, cancel := signalContext(cmd)
	defer cancel()

	out := cmd.OutOrStdout()
	stream := !cf.asJSON && isTerminal(out)
	var reports []check.Report
	for i, srv := range cfg.Servers {
		if ctx.Err() != nil {
			break
		}
		var progress func(check.Item)
		if stream {
			if i > 0 {
				fmt.Fprintln(out)
			}
			printCheckHeading(out, srv.Name, string(srv.Transport))
			width := terminalWidth(out)
			progress = func(it check.Item) { printCheckRow(out, it, width) }
		}
		rec := checkRecording(&cf.record, srv, len(cfg.Servers) > 1)
		if err := rec.validate(); err != nil {
			return err
		}
		var recErr error
		sopts := opts
		sopts.OnController = func(rt *runtime.Controller) { recErr = rec.start(rt) }
		rep := check.Run(ctx, srv, sopts, progress)
		if ferr := rec.finish(cmd.ErrOrStderr()); ferr != nil {
			recFailed = ferr
		}
		if recErr != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "mcpdeck: not recording the check of %s: %v\n", srv.Name, recErr)
		}
		reports = append(reports, rep)
		if stream {
			printCheckSummary(out, rep)
		}
	}
	switch {
	case cf.asJSON:
		if err := present.WriteJSON(out, checkJSONOf(reports)); err != nil {
			return err
		}
	case !stream:
		printCheckReports(out, reports)
	}
	if !cf.asJSON && len(opts.Profiles) > 1 {
		printProfileGrids(out, reports)
	}
	if ctx.Err() != nil {
		return interrupted("check")
	}
	for _, r := range reports {
		if r.Failed() {
			return silentExit(ExitToolError)
		}
	}
	return nil
}

// checkItemWidth is the width of the ITEM column: the longest item id, so
// that rows streamed one at a time line up with the table printed whole.
var checkItemWidth = func() int {
	w := len("ITEM")
	for _, id := range append(check.IDs(), check.ModernIDs()...) {
		w = max(w, len(id))
	}
	return w
}()

func printCheckHeading(w io.Writer, server, transport string) {
	fmt.Fprintf(w, "%s (%s)\n", server, transport)
	fmt.Fprintf(w, "%-6s  %-*s  %s\n", "STATUS", checkItemWidth, "ITEM", "REASON")
}

// printCheckRow prints one item as the table does; on a terminal width
// columns wide (0: not a terminal) the reason is wrapped as prose in its
// column, where the terminal would carry it on at the left margin.
func printCheckRow(w io.Writer, it check.Item, width int) {
	lines := reasonLines(it.Reason)
	if room := width - (6 + 2 + checkItemWidth + 2); width > 0 && room >= minReasonWidth {
		var wrapped []string
		for _, l := range lines {
			wrapped = append(wrapped, strings.Split(ansi.Wrap(l, room, ""), "\n")...)
		}
		lines = wrapped
	}
	for i, l := range lines {
		status, id := it.Status.String(), it.ID
		if i > 0 {
			status, id = "", ""
		}
		fmt.Fprintf(w, "%-6s  %-*s  %s\n", status, checkItemWidth, id, l)
	}
}

// maxReasonLines bounds the lines one reason takes in the table.
const maxReasonLines = 6

// minReasonWidth is the narrowest REASON column worth wrapping into: on a
// narrower terminal the terminal's own wrapping reads no worse.
const minReasonWidth = 24

// terminalWidth is w's width in columns when it is a terminal, else 0.
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(w) {
		return 0
	}
	width, _, err := term.GetSize(f.Fd())
	if err != nil {
		return 0
	}
	return width
}

// reasonLines are the lines of a reason as the table shows them, each
// under the one before in the REASON column: a reason quoting what a
// server said (a Python traceback as an error's message) keeps its lines
// as lines, not one row joined with ⏎ running past the terminal's width.
// Blank lines and the lines' indentation are left out; past
// maxReasonLines the middle is counted, and --json has the whole reason.
func reasonLines(reason string) []string {
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(reason, "\r\n", "\n"), "\n") {
		if l = strings.TrimSpace(present.Line(l)); l != "" {
			out = append(out, l)
		}
	}
	if len(out) > maxReasonLines {
		// The first lines say what failed, the last one often why (a
		// traceback's exception): both stay, the middle is counted.
		last := out[len(out)-1]
		more := len(out) - (maxReasonLines - 1)
		out = append(out[:maxReasonLines-2], fmt.Sprintf("… %d more lines (mcpdeck check --json shows the whole reason)", more), last)
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

// printCheckReports prints every report whole: a heading, a table and a
// summary line per server.
func printCheckReports(w io.Writer, reports []check.Report) {
	for i, r := range reports {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s (%s%s)\n", r.Server, r.Transport, eraOf(r, ", "))
		rows := make([][]string, 0, len(r.Items)+1)
		for _, it := range r.Items {
			for i, l := range reasonLines(it.Reason) {
				if i == 0 {
					rows = append(rows, []string{it.Status.String(), it.ID, l})
				} else {
					rows = append(rows, []string{"", "", l})
				}
			}
		}
		// The widest id pads the ITEM column even when a report is cut
		// short, so every table lines up with a streamed one.
		header := []string{"STATUS", fmt.Sprintf("%-*s", checkItemWidth, "ITEM"), "REASON"}
		printTable(w, header, rows)
		printCheckSummary(w, r)
	}
}

func printCheckSummary(w io.Writer, r check.Report) {
	n := r.Counts()
	verdict := "passed"
	if r.Failed() {
		verdict = "FAILED"
	}
	fmt.Fprintf(w, "%s: %s%s: %d passed, %s, %d failed, %d skipped\n",
		r.Server, verdict, eraOf(r, " on "), n[check.Pass], present.Count(n[check.Warn], "warning", "warnings"), n[check.Fail], n[check.Skip])
}

// eraOf names the era a check ran on ("modern 2026-07-28") after sep, or
// "" when it never negotiated one.
func eraOf(r check.Report, sep string) string {
	if r.Era == "" {
		return ""
	}
	return sep + r.Era + " " + r.ProtocolVersion
}

// checkJSON is the stable machine output of mcpdeck check --json.
type checkJSON struct {
	Servers []checkServerJSON `json:"servers"`
}

type checkServerJSON struct {
	Server          string          `json:"server"`
	Transport       string          `json:"transport"`
	Era             string          `json:"era,omitempty"`
	ProtocolVersion string          `json:"protocolVersion,omitempty"`
	Items           []checkItemJSON `json:"items"`
	// Profiles are the client profiles asked for, each limit's finding.
	Profiles []check.ProfileResult `json:"profiles,omitempty"`
	Passed   bool                  `json:"passed"`
}

type checkItemJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Status     string `json:"status"`
	Reason     string `json:"reason"`
	DurationMs int64  `json:"durationMs"`
	// Changed lists the tools changed since approved (pinned-definitions,
	// instruction-text), with how.
	Changed []check.ChangedTool `json:"changed,omitempty"`
}

func checkJSONOf(reports []check.Report) checkJSON {
	out := checkJSON{Servers: []checkServerJSON{}}
	for _, r := range reports {
		s := checkServerJSON{Server: r.Server, Transport: r.Transport, Era: r.Era, ProtocolVersion: r.ProtocolVersion, Items: []checkItemJSON{},
			Profiles: r.Profiles, Passed: !r.Failed()}
		for _, it := range r.Items {
			s.Items = append(s.Items, checkItemJSON{ID: it.ID, Name: it.Name, Status: it.Status.String(),
				Reason: it.Reason, DurationMs: it.Duration.Milliseconds(), Changed: it.Changed})
		}
		out.Servers = append(out.Servers, s)
	}
	return out
}
