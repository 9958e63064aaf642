package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"mcpdeck/runtime"
	"mcpdeck/ui/present"
)

// callFlags are call's own flags.
type callFlags struct {
	timeout     time.Duration
	asJSON      bool
	elicitation string
	noValidate  bool
	task        bool
	record      recordFlags
}

func newCallCmd() *cobra.Command {
	var tf targetFlags
	var cf callFlags
	cmd := &cobra.Command{
		Use:   "call SERVER TOOL [ARGS_JSON | - | @FILE]",
		Short: "Call one tool and print its result",
		Long: `call starts SERVER (or the ad-hoc server given with --url or --stdio, in
which case SERVER is left out), calls TOOL with the arguments and prints
the result.

Arguments are a JSON object: given inline, read from stdin with -, or
read from a file with @FILE; none means {}. They are checked against the
tool's input schema first; --no-validate sends them anyway.

Output: text blocks as text; image and audio blocks as
"[image image/png, 1234 bytes]"; resource links and embedded resources as
one line each; structuredContent pretty-printed when there is no text
block. A result cut to the size bound ends with a visible marker. With
--json the whole result is printed instead:

  {"content": [{"type": "text", "text": "...",
                "annotations": {...}, "_meta": {...}}, ...],  // as sent
   "structuredContent": {...},        // omitted when absent
   "isError": true,                   // omitted when false
   "_meta": {...},                    // the server's, as sent (MCP Apps: viewUUID)
   "truncated": true, "originalSize": 123,   // omitted unless cut
   "structuredError": "...",          // omitted unless it breaks outputSchema
   "requestId": 3, "duration": 1234567,      // duration in nanoseconds
   "cost": {...}}                     // a server's own members, as sent

Progress goes to stderr: a bar when stderr is a terminal, lines otherwise.
Interrupting (ctrl+c) cancels the call: the server is sent
notifications/cancelled.

A modern (2026-07-28) server may answer input_required: the elicitation it
asks for is answered as --elicitation says and the call is retried (the
rounds are counted in "rounds" of --json).

A server may ask for sampling (sampling/createMessage: a model's reply to
messages it sends). mcpdeck has no model: the TUI shows the request to a
person; headless, --sampling decline refuses it (the server hears the
user's rejection), and --sampling FILE answers with a canned reply, the
file's text as one text block (model "mcpdeck-canned"), or a whole
CreateMessageResult when the file is a JSON object:
  {"role":"assistant","content":{"type":"text","text":"…"},"model":"…","stopReason":"endTurn"}
Without --sampling, sampling is not offered to the server, and a server
may then not list the tools that need it (an unknown tool's error says
so). A server may run the call as a
task (the tasks extension, or a 2025-11-25 tool whose taskSupport is
"required"; --task asks for one where it is "optional"): its states go to
stderr, and ctrl+c cancels the task with tasks/cancel.

Exit status: 0 success; 1 the tool returned isError; 2 usage error,
invalid arguments JSON or arguments that break the schema; 3 connection
or protocol failure; 4 timeout or cancellation.`,
		Example: `  mcpdeck call demo echo '{"text":"hi"}'
  echo '{"a":1,"b":2}' | mcpdeck call demo add -
  mcpdeck call demo sleep @args.json --timeout 5s
  mcpdeck call everything trigger-sampling-request '{"prompt":"hi"}' --sampling reply.txt
  mcpdeck call --stdio 'npx -y @modelcontextprotocol/server-everything' echo '{"message":"hi"}'`,
		Args:              cobra.RangeArgs(1, 3),
		ValidArgsFunction: completeFirstServer(func(n cachedNames) []string { return n.Tools }),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCall(cmd, &tf, &cf, args)
		},
	}
	addTargetFlags(cmd, &tf)
	fl := cmd.Flags()
	fl.DurationVar(&cf.timeout, "timeout", 0, "give up on the call after `D` without progress, a task it runs as included, which is then cancelled (default: the server's configured call timeout; a task is then bounded by each of its requests' only)")
	fl.BoolVar(&cf.asJSON, "json", false, "print the whole result as stable JSON (shape in --help)")
	fl.StringVar(&cf.elicitation, "elicitation", "decline", "answer the server's elicitation requests: decline, or defaults (accept with what the TUI's form starts with: defaults, first choices; declined, saying why, when a required field has none)")
	fl.BoolVar(&cf.noValidate, "no-validate", false, "send arguments that fail the tool's input schema anyway")
	fl.BoolVar(&cf.task, "task", false, "call a tool whose taskSupport is \"optional\" as a task (2025-11-25 servers)")
	addSamplingFlag(cmd, "")
	addRecordFlags(cmd, &cf.record)
	return cmd
}

// callTarget is what call's positional arguments name.
type callTarget struct {
	server, tool, argSpec string
}

// parseCallArgs reads SERVER TOOL [ARGS], or TOOL [ARGS] with an ad-hoc
// server, which takes SERVER's place.
func parseCallArgs(adHoc bool, args []string) (callTarget, error) {
	if adHoc {
		if len(args) > 2 {
			return callTarget{}, withCode(ExitUsage, fmt.Errorf("with --url or --stdio give TOOL [ARGS_JSON], not a SERVER (got %d arguments)", len(args)))
		}
		t := callTarget{server: adHocName, tool: args[0]}
		if len(args) == 2 {
			t.argSpec = args[1]
		}
		return t, nil
	}
	if len(args) < 2 {
		return callTarget{}, withCode(ExitUsage, errors.New("give SERVER and TOOL, e.g. mcpdeck call demo echo '{\"text\":\"hi\"}' (list them with mcpdeck tools)"))
	}
	t := callTarget{server: args[0], tool: args[1]}
	if len(args) == 3 {
		t.argSpec = args[2]
	}
	return t, nil
}

// readArguments resolves ARGS_JSON, - or @FILE to a JSON object. Errors
// name where the arguments came from and where in them the problem is.
func readArguments(spec string, stdin io.Reader) (json.RawMessage, error) {
	var data []byte
	var where string
	switch {
	case spec == "":
		return nil, nil
	case spec == "-":
		where = "stdin"
		b, err := io.ReadAll(stdin)
		if err != nil {
			return nil, withCode(ExitUsage, fmt.Errorf("reading the arguments from stdin: %w", err))
		}
		data = b
	case strings.HasPrefix(spec, "@"):
		where = spec[1:]
		b, err := os.ReadFile(where)
		if err != nil {
			return nil, withCode(ExitUsage, fmt.Errorf("reading the arguments: %w; give @FILE with a readable JSON file", err))
		}
		data = b
	default:
		where = "the ARGS_JSON argument"
		data = []byte(spec)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, withCode(ExitUsage, fmt.Errorf("the arguments in %s are empty; give a JSON object such as {\"text\":\"hi\"}, or leave ARGS out for {}", where))
	}
	var v any
	if err := json.Unmarshal(trimmed, &v); err != nil {
		return nil, withCode(ExitUsage, fmt.Errorf("the arguments in %s are not valid JSON: %s; give a JSON object such as {\"text\":\"hi\"}", where, describeJSONError(data, err)))
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, withCode(ExitUsage, fmt.Errorf("the arguments in %s are a JSON %s, not an object; give a JSON object such as {\"text\":\"hi\"}", where, jsonKind(v)))
	}
	return json.RawMessage(trimmed), nil
}

// describeJSONError places a syntax error at its line and column, which a
// byte offset into a file the user is editing is not.
func describeJSONError(data []byte, err error) string {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		if errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "unexpected end") {
			return "it ends too early"
		}
		return err.Error()
	}
	// Offsets are into the trimmed text; count the leading space back in.
	off := int(se.Offset) + (len(data) - len(bytes.TrimLeft(data, " \t\r\n")))
	if off > len(data) {
		off = len(data)
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	if line == 1 {
		col = off
	}
	return fmt.Sprintf("%s at line %d, column %d", se.Error(), line, col)
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	default:
		return "value"
	}
}

// elicitorFor maps --elicitation to the runtime's headless elicitors;
// every decline is reported on stderr, with its reason.
func elicitorFor(mode string, cmd *cobra.Command) (runtime.Elicitor, error) {
	stderr, advice := cmd.ErrOrStderr(), tuiAdvice(cmd)
	switch mode {
	case "decline", "":
		return reportDeclines{runtime.DeclineElicitor{}, stderr, advice}, nil
	case "defaults":
		return reportDeclines{runtime.DefaultsElicitor{}, stderr, advice}, nil
	default:
		return nil, withCode(ExitUsage, fmt.Errorf("--elicitation %q: use decline or defaults", mode))
	}
}

// reportDeclines tells the person why an elicitation was declined: the
// server only learns "decline".
type reportDeclines struct {
	runtime.Elicitor
	w      io.Writer
	advice string // tuiAdvice
}

// tuiAdvice says where a question a headless command declined can be
// answered: in the TUI, which starts the configured servers; an ad-hoc
// server (--url, --stdio) must be added first, so the advice names the
// command that adds it.
func tuiAdvice(cmd *cobra.Command) string {
	flag := func(name string) string {
		if f := cmd.Flags().Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	switch {
	case flag("url") != "":
		return "to answer it in the TUI, add the server (mcpdeck add NAME --url " + flag("url") + ") and run mcpdeck"
	case flag("stdio") != "":
		return "to answer it in the TUI, add the server (mcpdeck add NAME -- " + flag("stdio") + ") and run mcpdeck"
	}
	return "answer it in the TUI (mcpdeck)"
}

func (r reportDeclines) Elicit(ctx context.Context, req runtime.ElicitRequest) (runtime.ElicitResponse, error) {
	resp, err := r.Elicitor.Elicit(ctx, req)
	switch {
	case err != nil || resp.Action != "decline":
	case resp.Reason != "":
		warnf(r.w, "declined %s's elicitation %q: %s; %s", req.Server, req.Message, resp.Reason, r.advice)
	default:
		warnf(r.w, "declined %s's elicitation %q: headless commands decline; --elicitation defaults answers with what the TUI's form starts with; or %s", req.Server, req.Message, r.advice)
	}
	return resp, err
}

// callTargetOf reads the SERVER TOOL [ARGS] of call and app open (TOOL
// [ARGS] with an ad-hoc server) and checks their --timeout; names are
// the configured servers to start (none for an ad-hoc one).
func callTargetOf(tf *targetFlags, args []string, timeout time.Duration) (target callTarget, names []string, err error) {
	if _, _, err := tf.adHoc(); err != nil {
		return target, nil, err
	}
	hasAdHoc := tf.url != "" || tf.stdio != ""
	if target, err = parseCallArgs(hasAdHoc, args); err != nil {
		return target, nil, err
	}
	if timeout < 0 {
		return target, nil, withCode(ExitUsage, fmt.Errorf("--timeout %s: give a positive duration such as 30s", timeout))
	}
	if !hasAdHoc {
		names = []string{target.server}
	}
	return target, names, nil
}

// openCallTarget starts the target's server for call and app open and
// checks that it is up and has the tool. The caller shuts rt down.
func openCallTarget(ctx context.Context, cmd *cobra.Command, tf *targetFlags, target callTarget, names []string, what string,
	opts runtime.Options, rec *recording) (*runtime.Controller, error) {
	rt, err := openTargets(ctx, cmd, tf, names, what, opts, rec.withConfig)
	if err != nil {
		return nil, err
	}
	if err := serverFailure(rt.Snapshot(), target.server); err != nil {
		return rt, err
	}
	err = knownTool(rt.Snapshot(), target.server, target.tool)
	if err != nil && opts.Sampler == nil && what == "call" {
		// Servers list some tools only to a client that can answer
		// sampling (server-everything's trigger-sampling-request).
		err = withCode(ExitUsage, fmt.Errorf("%w (a server may list some tools only to a client that offers sampling: give --sampling decline|FILE to offer it)", err))
	}
	return rt, err
}

func runCall(cmd *cobra.Command, tf *targetFlags, cf *callFlags, args []string) (err error) {
	target, names, err := callTargetOf(tf, args, cf.timeout)
	if err != nil {
		return err
	}
	elicitor, err := elicitorFor(cf.elicitation, cmd)
	if err != nil {
		return err
	}
	sampler, err := samplerFlag(cmd)
	if err != nil {
		return err
	}
	// Read the arguments before starting anything: a typo should cost
	// nothing, and stdin must be read before a server could want it.
	arguments, err := readArguments(target.argSpec, cmd.InOrStdin())
	if err != nil {
		return err
	}

	ctx, stop := signalContext(cmd)
	defer stop()
	rec := &recording{flags: &cf.record}
	if err := rec.validate(); err != nil {
		return err
	}
	defer func() { err = rec.finishInto(cmd.ErrOrStderr(), err) }() // after the shutdown below
	rt, err := openCallTarget(ctx, cmd, tf, target, names, "call", runtime.Options{Elicitor: elicitor, Sampler: sampler,
		// A call needs the tools alone; a recording keeps the whole
		// session, lists and all, for replay --serve to answer from.
		ToolsOnly: cf.record.path == ""}, rec)
	if rt != nil {
		defer shutdownRuntime(rt)
	}
	if err != nil {
		return err
	}

	var id, first atomic.Uint64
	// Lossless, so the task's last state is printed before the result: the
	// printer only writes a line to stderr, it cannot stall the runtime.
	events, unsubscribe := rt.Subscribe(runtime.SubscribeOptions{Lossless: true})
	progressDone := make(chan struct{})
	pp := newProgressPrinter(cmd.ErrOrStderr())
	go func() {
		defer close(progressDone)
		for ev := range events {
			switch e := ev.(type) {
			case runtime.Progress:
				if e.Server == target.server && e.RequestID != 0 && e.RequestID == id.Load() {
					pp.print(e)
				}
			case runtime.TaskUpdated:
				if e.Server == target.server && e.RequestID != 0 && e.RequestID == first.Load() {
					pp.note(fmt.Sprintf("task %s: %s%s", e.Task.TaskID, e.Task.Status, suffix(": ", e.Task.Message)))
				}
			}
		}
	}()
	res, err := rt.Call(ctx, runtime.CallRequest{
		Server: target.server, Tool: target.tool, Arguments: arguments,
		Timeout: cf.timeout, NoValidate: cf.noValidate, Task: cf.task,
		OnStarted: func(n uint64) { first.CompareAndSwap(0, n); id.Store(n) },
	})
	unsubscribe()
	<-progressDone
	pp.finish()

	if err != nil {
		return callFailure(ctx, err)
	}
	out := cmd.OutOrStdout()
	if cf.asJSON {
		if err := present.WriteJSON(out, res); err != nil {
			return err
		}
	} else {
		writeResult(out, res)
	}
	if res.StructuredError != "" {
		warnf(cmd.ErrOrStderr(), "warning: the structuredContent does not match the tool's outputSchema: %s", res.StructuredError)
	}
	if res.IsError {
		warnf(cmd.ErrOrStderr(), "tool %q on server %q returned an error (isError)", target.tool, target.server)
		return silentExit(ExitToolError)
	}
	return nil
}

// callFailure maps a failed call to its exit code and message.
func callFailure(ctx context.Context, err error) error {
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return withCode(ExitTimeout, errors.New("call cancelled by a signal; the server was told (notifications/cancelled, or tasks/cancel for a task)"))
	}
	var argErr *runtime.ArgumentsError
	if errors.As(err, &argErr) {
		return withCode(ExitUsage, err)
	}
	return withCode(exitCodeOf(err), err)
}

// writeResult prints a result for a person: text as text, binary blocks
// as a one-line description, and the structured content only when no text
// block already says it.
func writeResult(w io.Writer, r *runtime.Result) {
	hasText := false
	for _, c := range r.Content {
		switch c.Type {
		case "text":
			hasText = true
			text := present.Clean(c.Text)
			io.WriteString(w, text)
			if !strings.HasSuffix(text, "\n") {
				io.WriteString(w, "\n")
			}
		case "image", "audio":
			fmt.Fprintf(w, "[%s %s, %s]\n", c.Type, present.Line(orUnknown(c.MIMEType)), present.Count(base64Size(c.Data), "byte", "bytes"))
		case "resource_link":
			fmt.Fprintf(w, "[resource link %s]\n", present.Line(c.URI+suffix(" ", c.Name)+suffix(", ", c.MIMEType)))
		case "resource":
			if c.Resource == nil {
				fmt.Fprintln(w, "[resource, empty]")
				continue
			}
			size := len(c.Resource.Text)
			if c.Resource.Blob != "" {
				size = base64Size(c.Resource.Blob)
			}
			fmt.Fprintf(w, "[resource %s, %d bytes]\n", present.Line(c.Resource.URI+suffix(", ", c.Resource.MIMEType)), size)
		default:
			fmt.Fprintf(w, "[%s block]\n", present.Line(c.Type))
		}
	}
	if len(r.StructuredContent) > 0 && !hasText {
		var b bytes.Buffer
		if json.Indent(&b, r.StructuredContent, "", "  ") == nil {
			b.WriteByte('\n')
			w.Write(present.EscapeJSON(b.Bytes()))
		} else {
			fmt.Fprintf(w, "%s\n", present.Clean(string(r.StructuredContent)))
		}
	}
}

// base64Size is the decoded size of base64 data, the size a user cares
// about; undecodable data counts as its encoded length.
func base64Size(data string) int {
	if b, err := base64.StdEncoding.DecodeString(data); err == nil {
		return len(b)
	}
	return len(data)
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown type)"
	}
	return s
}

func suffix(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}
