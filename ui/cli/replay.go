package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
	"mcpdeck/runtime/record"
	"mcpdeck/ui"
	"mcpdeck/ui/present"
)

// replayFlags are replay's own flags.
type replayFlags struct {
	asJSON, asText bool
	servers        []string
	methods        []string
	kinds          []string
	level          string
	since, until   string
	har            string
	against        string
	ignore         []string
	serve          bool
	http           string
	speed          float64
	mockUpstream   string
}

func newReplayCmd() *cobra.Command {
	var tf targetFlags
	var rf replayFlags
	cmd := &cobra.Command{
		Use:   "replay FILE",
		Short: "Replay a recorded session: in the TUI, as lines, as HTTP Archive, or against a live server",
		Long: `replay reads a recording made with --record (or the TUI's ctrl+r key).

With no output flag it opens the TUI on the recording, read only: nothing
is started, every tab shows the session as recorded, and the timeline keys
move through it (, and . one event, < and > ten seconds, { and } to the
previous or next state change or request, ^ and $ to either end); the
header shows the position.

--text prints one line per event: OFFSET TIME SERVER KIND SUMMARY.
--json prints one JSON object per line:
  {"seq": 12, "offset": 1234567 (ns from the start), "time": "...",
   "server": "demo", "kind": "StateChanged", "era": "legacy",
   "event": {...}}       // the event as the recording holds it
Both take watch's filters: --server, --method (a substring of the
JSON-RPC method), --kind (a recording kind such as TrafficFrame, or
watch's names: state, log, progress, list_changed, resource_updated,
notification, noise, anomaly, stderr, frame, request), --level (hides log
messages below it) and --since/--until (an offset such as 1m30s, or an
RFC 3339 time).

--har OUT.har writes the HTTP exchanges of remote (Streamable HTTP or
SSE) servers as an HTTP Archive 1.2, as browser devtools read it: one
entry per exchange, a streamed response's SSE events as its content,
credentials redacted.

--against SERVER (or --url/--stdio) sends the recorded client requests
(tools/call, tools/list, prompts/get, resources/read, ...) to a live
server again and compares each answer with the recorded one, ignoring
request ids and every path given with --ignore: a JSON pointer
(/result/content/0/text) or a dotted path (result.content.0.text),
relative to the answer {"result": ...} or {"error": {"code", "message"}};
* matches any one key or index. Lists are compared by name (resources by
URI), so a list in another order is no difference; their items are
addressed by it: result.tools.get-sum.description. A tool's text block
that holds its structuredContent as JSON, on both sides, is compared
through structuredContent: one difference there, not two. With several
servers in the recording, --server names whose requests to send (by
default the one of the name --against gives).

--serve answers MCP clients as the recorded server did: a mock server for
deterministic, offline tests of a client. It serves on stdio, or over
Streamable HTTP at http://ADDR/mcp with --http ADDR (loopback only; the
bearer token is MCPDECK_GATEWAY_TOKEN, else one printed on stderr), to
clients of both protocol eras whatever era was recorded. The handshake
and the lists are the recorded server's (its tool names, serverInfo,
capabilities and instructions; the last lists it gave). Each request is
matched by method and params (_meta and ids aside): the n-th identical
request gets the n-th recorded answer, then the last; progress, log
messages and questions the server sent during it are sent again first,
at the recorded pace times --speed (0: no delays). A request that was
never recorded is answered -32602 naming the nearest recorded arguments
of the same tool (or the tools that were called). Not served: tasks, and
notifications sent outside any request. With several servers in the
recording, --server names the one to serve.

The format is documented in runtime/record/FORMAT.md. Exit status: 0; 1
when --against found a difference; 2 for a usage error or a file that is
not a recording (or is from a newer mcpdeck); 3 when the live server could
not be connected (or, for --serve, the recording could not be started).`,
		Example: `  mcpdeck replay session.jsonl
  mcpdeck replay session.jsonl --text --kind state --kind request
  mcpdeck replay session.jsonl --json --server demo --method tools/call | jq .event
  mcpdeck replay session.jsonl --against demo --ignore result.content.0.text
  mcpdeck replay session.jsonl --serve --speed 0
  MCPDECK_GATEWAY_TOKEN=... mcpdeck replay session.jsonl --serve --http 127.0.0.1:8766`,
		Args: func(cmd *cobra.Command, args []string) error {
			if strings.HasPrefix(rf.against, "-") {
				// "--against --stdio 'CMD'": the flag took "--stdio" as
				// its SERVER, and CMD became a second argument.
				return withCode(ExitUsage, fmt.Errorf("--against takes a configured server's name, not %q: for an ad-hoc server give --stdio 'CMD' or --url URL alone", rf.against))
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(cmd, &tf, &rf, args[0])
		},
	}
	addTargetFlags(cmd, &tf)
	fl := cmd.Flags()
	fl.BoolVar(&rf.asJSON, "json", false, "print the events as JSON lines (shape in --help)")
	fl.BoolVar(&rf.asText, "text", false, "print the events as text lines")
	fl.StringArrayVar(&rf.servers, "server", nil, "only events of `SERVER` (repeatable); with --against, whose requests to send")
	fl.StringArrayVar(&rf.methods, "method", nil, "only events about a JSON-RPC method containing `M` (repeatable)")
	fl.StringArrayVar(&rf.kinds, "kind", nil, "only events of `KIND` (repeatable; see --help)")
	fl.StringVar(&rf.level, "level", "", "hide log messages below `L`evel: debug, info, notice, warning, error, critical, alert, emergency")
	fl.StringVar(&rf.since, "since", "", "only events from `T` on: an offset from the start (90s) or an RFC 3339 time")
	fl.StringVar(&rf.until, "until", "", "only events up to `T`: an offset from the start or an RFC 3339 time")
	fl.StringVar(&rf.har, "har", "", "write the HTTP exchanges of remote servers to `OUT.har` (HTTP Archive 1.2; --server picks one server)")
	fl.StringVar(&rf.against, "against", "", "send the recorded requests to the configured server `SERVER` and compare the answers")
	fl.StringArrayVar(&rf.ignore, "ignore", nil, "with --against, a `PATH` whose value may differ (repeatable; see --help)")
	fl.BoolVar(&rf.serve, "serve", false, "serve the recording as a mock MCP server, on stdio unless --http is given")
	fl.StringVar(&rf.http, "http", "", "with --serve, serve Streamable HTTP on the loopback `ADDR` (host:port; port 0 picks one) instead of stdio")
	fl.Float64Var(&rf.speed, "speed", 1, "with --serve, the pace of what is sent during a call and of its answer: 1 as recorded, 2 twice as fast, 0 no delays")
	fl.StringVar(&rf.mockUpstream, mockUpstreamFlag, "", "answer on stdio as the recorded `SERVER` did (what --serve runs)")
	_ = fl.MarkHidden(mockUpstreamFlag)
	return cmd
}

func runReplay(cmd *cobra.Command, tf *targetFlags, rf *replayFlags, path string) error {
	rec, err := record.ReadFile(path)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if p := rec.Problems(); p != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "mcpdeck: %s could not be read whole: %s; replaying the rest\n", path, p)
	}
	if rf.mockUpstream != "" {
		return runMockUpstream(cmd, rf, rec, rf.mockUpstream)
	}
	adHoc := tf.url != "" || tf.stdio != ""
	against := rf.against != "" || adHoc
	modes := 0
	// With --against, --json is the shape of its report.
	for _, on := range []bool{rf.asJSON && !against, rf.asText, rf.har != "", against, rf.serve} {
		if on {
			modes++
		}
	}
	if modes > 1 {
		return withCode(ExitUsage, errors.New("give one of --json, --text, --har, --against (or --url/--stdio) and --serve"))
	}
	if rf.serveFlagsAlone(cmd) {
		return withCode(ExitUsage, errServeFlags)
	}
	switch {
	case rf.serve:
		return runServe(cmd, rf, rec, path)
	case against:
		return runAgainst(cmd, tf, rf, rec)
	case rf.har != "":
		return writeHAR(cmd, rec, rf)
	case rf.asJSON || rf.asText:
		f, err := rf.filter(rec)
		if err != nil {
			return err
		}
		return printEntries(cmd.OutOrStdout(), rec, f, rf.asJSON)
	}
	rp := ui.NewReplay(rec)
	ctx, stop := signalContext(cmd)
	defer stop()
	if err := ui.Run(ctx, ui.Options{Runtime: rp, Replay: rp, Sources: rec.Header.Sources}); err != nil {
		return withCode(ExitConnection, err)
	}
	return nil
}

// filter builds the record filter from the flags.
func (rf *replayFlags) filter(rec *record.Recording) (record.Filter, error) {
	f := record.Filter{Servers: rf.servers, Methods: rf.methods, Kinds: rf.kinds}
	if err := record.CheckKinds(rf.kinds); err != nil {
		return f, withCode(ExitUsage, fmt.Errorf("--kind: %w", err))
	}
	if rf.level != "" {
		if !mcp.LogLevel(rf.level).Known() {
			return f, withCode(ExitUsage, fmt.Errorf("--level %q: use one of %s", rf.level, strings.Join(mcp.LevelNames(), ", ")))
		}
		f.MinLevel = rf.level
	}
	var err error
	if f.Since, err = offsetOf(rec, "--since", rf.since); err != nil {
		return f, err
	}
	if f.Until, err = offsetOf(rec, "--until", rf.until); err != nil {
		return f, err
	}
	return f, nil
}

// offsetOf reads a time bound: an offset from the start, or a wall time.
func offsetOf(rec *record.Recording, flag, v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return d, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return max(t.Sub(rec.Header.Started), 0), nil
	}
	return 0, withCode(ExitUsage, fmt.Errorf("%s %q: give an offset from the start such as 90s, or an RFC 3339 time such as %s",
		flag, v, rec.Header.Started.Format(time.RFC3339)))
}

// printEntries writes the matching entries, as JSON or text lines.
func printEntries(w io.Writer, rec *record.Recording, f record.Filter, asJSON bool) error {
	for _, e := range rec.Entries {
		if !f.Match(e) {
			continue
		}
		if asJSON {
			b, err := record.MarshalEntry(e)
			if err != nil {
				return fmt.Errorf("writing event %d: %w", e.Seq, err)
			}
			if _, err := w.Write(append(b, '\n')); err != nil {
				return err
			}
			continue
		}
		h := e.Event.Header()
		if _, err := fmt.Fprintf(w, "+%s  %s  %s  %-16s  %s\n", offsetText(e.Mono), h.Time.Format("15:04:05.000"),
			present.OrHyphen(present.Line(h.Server)), e.Kind, replaySummary(e)); err != nil {
			return err
		}
	}
	return nil
}

// replaySummary is replay --text's words for e: the recording's own, else
// the stream line the TUI and watch show for it.
func replaySummary(e record.Entry) string {
	if s := record.Summary(e); s != "" {
		return s
	}
	if l, ok := present.Describe(e.Event); ok {
		return l.Text
	}
	return ""
}

func offsetText(d time.Duration) string {
	return fmt.Sprintf("%d:%06.3f", int(d/time.Minute), (d % time.Minute).Seconds())
}

// againstResult is one request of --against.
type againstResult struct {
	Seq         uint64              `json:"seq"`
	Server      string              `json:"server"`
	Method      string              `json:"method"`
	Tool        string              `json:"tool,omitempty"`
	Status      string              `json:"status"` // pass, fail, skip
	Reason      string              `json:"reason,omitempty"`
	Differences []record.Difference `json:"differences,omitempty"`
}

// runAgainst sends the recorded requests to a live server and compares.
func runAgainst(cmd *cobra.Command, tf *targetFlags, rf *replayFlags, rec *record.Recording) error {
	recorded, err := recordedServer(rec, rf.servers, rf.against)
	if err != nil {
		return err
	}
	exchanges := record.Exchanges(rec, recorded)
	if len(exchanges) == 0 {
		return withCode(ExitUsage, fmt.Errorf("the recording has no requests of %s to send again (%s)", recorded, strings.Join(record.Replayable, ", ")))
	}
	var names []string
	target := adHocName
	if rf.against != "" {
		names, target = []string{rf.against}, rf.against
	}
	return withTargets(cmd, tf, names, "replay", func(ctx context.Context, rt *runtime.Controller) error {
		if err := serverFailure(rt.Snapshot(), target); err != nil {
			return err
		}
		out := cmd.OutOrStdout()
		var results []againstResult
		failed := 0
		for _, x := range exchanges {
			r := againstResult{Seq: x.Seq, Server: target, Method: x.Method, Tool: x.Tool}
			if x.Answer == nil {
				r.Status, r.Reason = "skip", "the recording has no answer to it (cancelled, or the session ended first)"
			} else {
				live, err := liveAnswer(ctx, rt, target, x)
				if ctx.Err() != nil {
					return interrupted("replay")
				}
				var diffs []record.Difference
				if err == nil {
					diffs, err = record.CompareAnswers(x.Method, x.Answer, live, rf.ignore)
				}
				switch {
				case err != nil:
					r.Status, r.Reason = "fail", err.Error()
				case len(diffs) > 0:
					r.Status, r.Differences = "fail", diffs
				default:
					r.Status = "pass"
				}
			}
			if r.Status == "fail" {
				failed++
			}
			results = append(results, r)
			if !rf.asJSON {
				printAgainst(out, r)
			}
		}
		if rf.asJSON {
			if err := present.WriteJSON(out, struct {
				Requests []againstResult `json:"requests"`
				Passed   bool            `json:"passed"`
			}{results, failed == 0}); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(out, "%d requests: %d passed, %d failed, %d skipped\n", len(results), count(results, "pass"), failed, count(results, "skip"))
		}
		if failed > 0 {
			return silentExit(ExitToolError)
		}
		return nil
	})
}

// recordedServer picks whose requests to send: the one named, else the
// only server the recording has requests of, else the one of the
// recording's servers that --against names (a session of several
// servers, replayed against one of them as configured).
func recordedServer(rec *record.Recording, named []string, against string) (string, error) {
	if len(named) > 1 {
		return "", withCode(ExitUsage, errors.New("--against sends one server's requests: give at most one --server"))
	}
	if len(named) == 1 {
		return named[0], nil
	}
	seen := map[string]bool{}
	var servers []string
	for _, x := range record.Exchanges(rec, "") {
		if !seen[x.Server] {
			seen[x.Server] = true
			servers = append(servers, x.Server)
		}
	}
	if len(servers) > 1 {
		if slices.Contains(servers, against) {
			return against, nil
		}
		return "", withCode(ExitUsage, fmt.Errorf("the recording has requests of %s: name one with --server", strings.Join(servers, ", ")))
	}
	if len(servers) == 0 {
		return "", withCode(ExitUsage, errors.New("the recording has no client requests to send again"))
	}
	return servers[0], nil
}

// liveAnswer sends one recorded request and shapes the answer as the
// recorded one is: a JSON-RPC error from the server is an answer too; a
// transport failure is an error.
func liveAnswer(ctx context.Context, rt *runtime.Controller, server string, x record.Exchange) (json.RawMessage, error) {
	var params map[string]any
	if len(x.Params) > 0 && string(x.Params) != "null" {
		if err := json.Unmarshal(x.Params, &params); err != nil {
			return nil, fmt.Errorf("the recorded params do not decode: %w", err)
		}
	}
	raw, err := rt.Request(ctx, server, x.Method, params)
	var rpcErr *jsonrpc.Error
	switch {
	case errors.As(err, &rpcErr):
		return record.ErrorAnswer(rpcErr.Code, rpcErr.Message), nil
	case err != nil:
		return nil, err
	}
	return record.ResultAnswer(raw), nil
}

func printAgainst(w io.Writer, r againstResult) {
	what := strings.TrimSpace(r.Method + " " + r.Tool)
	fmt.Fprintf(w, "%-4s  #%d %s", strings.ToUpper(r.Status), r.Seq, what)
	if r.Reason != "" {
		fmt.Fprintf(w, ": %s", present.Line(r.Reason))
	}
	fmt.Fprintln(w)
	for _, d := range r.Differences {
		fmt.Fprintf(w, "        %s\n", d)
	}
}

func count(rs []againstResult, status string) int {
	n := 0
	for _, r := range rs {
		if r.Status == status {
			n++
		}
	}
	return n
}

// writeHAR exports the recording's HTTP exchanges.
func writeHAR(cmd *cobra.Command, rec *record.Recording, rf *replayFlags) error {
	if len(rf.servers) > 1 {
		return withCode(ExitUsage, errors.New("--har exports one server or all: give at most one --server"))
	}
	server := ""
	if len(rf.servers) == 1 {
		server = rf.servers[0]
	}
	b, err := record.HAR(rec, server, version())
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if err := os.WriteFile(rf.har, append(b, '\n'), 0o600); err != nil {
		return withCode(ExitUsage, fmt.Errorf("writing the HTTP Archive: %w (give --har a writable path)", err))
	}
	return nil
}
