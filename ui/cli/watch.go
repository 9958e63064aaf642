package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
	"mcpdeck/runtime/record"
	"mcpdeck/ui/present"
)

// watchFlags are watch's own flags.
type watchFlags struct {
	dur    time.Duration
	asJSON bool
	level  string
	stderr bool
	tel    telemetryFlags
	record recordFlags
}

func newWatchCmd() *cobra.Command {
	var tf targetFlags
	var wf watchFlags
	cmd := &cobra.Command{
		Use:   "watch [SERVER]...",
		Short: "Stream notifications, logs, progress and list changes, one per line",
		Long: `watch connects to every enabled server (or the named ones, or the ad-hoc
server given with --url or --stdio) and prints what they send, one line
per event, until interrupted (ctrl+c) or until --for has passed; both end
it cleanly with exit status 0. Nothing is dropped: a server that sends
faster than the lines can be written is slowed down instead. Only when
stdout is not read at all (a paused pager) while mcpdeck's own events
keep coming are they dropped past a bound, and counted on stderr;
ctrl+c still ends the watch at once, lines not yet written left unwritten.

Each line is TIME SERVER KIND SUMMARY. Kinds:
  state             the server changed state (ready, failed, ...)
  log               notifications/message: level, logger, data
  progress          notifications/progress: progress/total (percent) message
  list_changed      the server's tools, prompts or resources changed
  resource_updated  notifications/resources/updated: the uri
  notification      any other notification: method and params
  noise, anomaly    stdout lines that are not JSON-RPC; unmatched responses
  stderr            the server's stderr lines, only with --stderr

--level L asks servers to log at L and up (logging/setLevel) and hides
messages below it. --for D stops D after the servers are up.

--json prints one JSON object per line, keys in this order, each present
only when it applies to the kind (time, server and kind always are):
  {"time": "2006-01-02T15:04:05.999999999Z07:00", "server": "demo",
   "kind": "log", "from": "starting", "to": "ready", "reason": "...",
   "level": "info", "logger": "demo", "data": <any JSON>,
   "requestId": 3, "token": "...", "progress": 1.5, "total": 3,
   "message": "...", "list": "tools", "uri": "...",
   "method": "...", "params": {...}, "line": "...", "detail": "...",
   "invalidUTF8": 2}
Output is always valid UTF-8: byte sequences a server sent that are not
UTF-8 are replaced by U+FFFD, counted per line in "invalidUTF8" and in
total on stderr at the end.

Exit status: 0 when ended by ctrl+c or --for; 3 when no server could be
connected; 2 for a usage or configuration error.`,
		Example: `  mcpdeck watch
  mcpdeck watch demo --level debug --for 30s
  mcpdeck watch --json | jq 'select(.kind == "log")'`,
		ValidArgsFunction: completeEveryServer,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWatch(cmd, &tf, &wf, args)
		},
	}
	addTargetFlags(cmd, &tf)
	fl := cmd.Flags()
	fl.DurationVar(&wf.dur, "for", 0, "stop after `D` (default: run until interrupted)")
	fl.BoolVar(&wf.asJSON, "json", false, "print one JSON object per line (shape in --help)")
	fl.StringVar(&wf.level, "level", "info", "the least severe log `L`evel to show and ask for: "+strings.Join(mcp.LevelNames(), ", "))
	fl.BoolVar(&wf.stderr, "stderr", false, "print the servers' stderr lines too")
	addTelemetryFlags(fl, &wf.tel)
	addRecordFlags(cmd, &wf.record)
	return cmd
}

func runWatch(cmd *cobra.Command, tf *targetFlags, wf *watchFlags, names []string) (err error) {
	var recFailed error // a recording that could not be written
	defer func() {
		if err == nil {
			err = recFailed
		}
	}()
	if !mcp.LogLevel(wf.level).Known() {
		return withCode(ExitUsage, fmt.Errorf("--level %q: use one of %s", wf.level, strings.Join(mcp.LevelNames(), ", ")))
	}
	if wf.dur < 0 {
		return withCode(ExitUsage, fmt.Errorf("--for %s: give a positive duration such as 30s", wf.dur))
	}
	ctx, stop := signalContext(cmd)
	defer stop()
	cfg, err := resolveTargets(cmd, tf, names)
	if err != nil {
		return err
	}
	if len(cfg.Servers) == 0 {
		return withCode(ExitUsage, fmt.Errorf("nothing to watch: no enabled server in %s; enable one in mcp.json, name one, or give --url or --stdio", sourcesOf(cfg)))
	}

	// Telemetry's own diagnostics go to stderr as text: stdout is the watch.
	tel, err := wf.tel.startTelemetry(ctx, slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		return err
	}
	defer shutdownTelemetry(tel)
	// Subscribe before enabling, so the logs servers send while starting
	// are seen too; that is why this does not use startRuntime.
	rec := &recording{flags: &wf.record, cfg: cfg}
	if err := rec.validate(); err != nil {
		return err
	}
	// --level both filters and asks; the global --log-level, when given,
	// asks for more than is shown (or less).
	opts, err := sessionOptions(cmd, runtime.Options{Config: cfg, Elicitor: runtime.DeclineElicitor{}, LogLevel: wf.level, ClientVersion: version(),
		Auth: newAuthManager(cmd, 0), InteractiveLogin: tf.login, Telemetry: tel})
	if err != nil {
		return err
	}
	rt := runtime.New(opts)
	if err := rec.start(rt); err != nil {
		shutdownRuntime(rt)
		return err
	}
	// Lossless: a server that sends faster than stdout takes the lines is
	// slowed down. Only past a bound (a stdout nobody reads for long) are
	// events dropped, and then counted.
	var dropped atomic.Uint64
	events, unsubscribe := rt.Subscribe(runtime.SubscribeOptions{Lossless: true, Dropped: &dropped})
	// Lines go through a buffer, written out at most flushEvery after the
	// first line that entered it (and when it fills, and at the end): a
	// flood costs one write(2) per 64 KiB instead of one per line, and a
	// person still sees a line within flushEvery.
	out := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
	w := &watchWriter{out: out, asJSON: wf.asJSON, minLevel: mcp.LevelRank(wf.level), stderr: wf.stderr}
	for _, s := range cfg.Servers {
		w.serverW = max(w.serverW, utf8.RuneCountInString(present.Line(s.Name)))
	}
	// quiet stops the output once the watch is over.
	var quiet atomic.Bool
	drained := make(chan struct{})
	// broken is closed when stdout's reader went away (watch | head -5):
	// the watch ends as ctrl+c would end it, servers stopped, status 0.
	broken := make(chan struct{})
	go func() {
		defer close(drained)
		flush := time.NewTimer(flushEvery)
		flush.Stop()
		pending, gone := false, false
		failed := func(err error) {
			if err != nil && !gone {
				gone = true
				quiet.Store(true)
				close(broken)
			}
		}
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					// What was taken before the end is written out.
					if !gone {
						failed(out.Flush())
					}
					flush.Stop()
					return
				}
				if quiet.Load() {
					continue
				}
				failed(w.write(ev))
				if !pending && out.Buffered() > 0 {
					pending = true
					flush.Reset(flushEvery)
				}
			case <-flush.C:
				pending = false
				if !gone {
					failed(out.Flush())
				}
			}
		}
	}()
	finish := func() {
		quiet.Store(true)
		// Unsubscribe before the teardown: the servers' streams then stop
		// waiting for this watch, so they are stopped at their own pace
		// even while a write to stdout is blocked (a paused pager).
		unsubscribe()
		shutdownRuntime(rt)
		// The writer discards what is left in its channel and ends, unless
		// it is stuck in a write to a stdout nobody reads: then it is left
		// behind, and the process exits around it.
		select {
		case <-drained:
			if w.replaced > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "mcpdeck: replaced %s of invalid UTF-8 in what the servers sent with U+FFFD (see \"invalidUTF8\" in --json lines)\n", present.Count(w.replaced, "byte sequence", "byte sequences"))
			}
		case <-time.After(writerGrace):
			warnf(cmd.ErrOrStderr(), "stdout is not being read: the watch ended without writing the lines still queued")
		}
		if n := dropped.Load(); n > 0 {
			warnf(cmd.ErrOrStderr(), "%s dropped: stdout was not read while they kept coming", present.Count(int(n), "event was", "events were"))
		}
		recFailed = rec.finish(cmd.ErrOrStderr())
	}

	if err := rt.SetEnabled(ctx, true); err != nil {
		finish()
		if ctx.Err() != nil || quiet.Load() {
			return nil // interrupted or stdout closed while starting: still a clean end
		}
		return withCode(exitCodeOf(err), err)
	}
	snap := rt.Snapshot()
	live := 0
	for _, v := range snap.Servers {
		if v.State.Live() {
			live++
		}
	}
	if code := reportFailures(cmd.ErrOrStderr(), snap); live == 0 {
		finish()
		if code == ExitOK {
			code = ExitConnection // no server at all
		}
		return withCode(code, fmt.Errorf("nothing to watch: no server could be connected; see the errors above, and mcpdeck servers"))
	}

	var deadline <-chan time.Time
	if wf.dur > 0 {
		t := time.NewTimer(wf.dur)
		defer t.Stop()
		deadline = t.C
	}
	// A quiet server may give nothing to write for hours: the reader's
	// going away is watched for as well, not only learnt from a write.
	gone, stopWatching := readerGone(cmd.OutOrStdout())
	defer stopWatching()
	select {
	case <-ctx.Done():
	case <-deadline:
	case <-broken:
	case <-gone:
	}
	finish()
	return nil
}

// flushEvery bounds how long a line waits in watch's output buffer.
const flushEvery = 50 * time.Millisecond

// writerGrace is how long the end of a watch waits for its writer after
// the servers were stopped: long enough to discard what is queued, short
// enough that a write blocked on a stdout nobody reads does not hold the
// exit.
const writerGrace = 100 * time.Millisecond

// watchLine is one line of watch --json. Field order is the key order.
type watchLine struct {
	Time      string          `json:"time"`
	Server    string          `json:"server"`
	Kind      string          `json:"kind"`
	From      string          `json:"from,omitempty"`
	To        string          `json:"to,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	Level     string          `json:"level,omitempty"`
	Logger    string          `json:"logger,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	RequestID uint64          `json:"requestId,omitempty"`
	Token     string          `json:"token,omitempty"`
	Progress  *float64        `json:"progress,omitempty"`
	Total     float64         `json:"total,omitempty"`
	Message   string          `json:"message,omitempty"`
	// Tool is the call a progress token belongs to (runtime.Progress.Tool);
	// Late how that call had ended when its progress came after its end.
	Tool   string          `json:"tool,omitempty"`
	Late   string          `json:"late,omitempty"`
	List   string          `json:"list,omitempty"`
	URI    string          `json:"uri,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Line   string          `json:"line,omitempty"`
	Detail string          `json:"detail,omitempty"`
	// InvalidUTF8 counts the byte sequences in what the server sent that
	// were not UTF-8 and were replaced by U+FFFD on this line.
	InvalidUTF8 int `json:"invalidUTF8,omitempty"`
}

// fixUTF8 replaces invalid UTF-8 in every field that carries server text
// and records how many sequences it replaced.
func (l *watchLine) fixUTF8() {
	n := 0
	for _, s := range []*string{&l.Reason, &l.Level, &l.Logger, &l.Token, &l.Message, &l.Tool, &l.Late, &l.List, &l.URI, &l.Method, &l.Line, &l.Detail} {
		var k int
		*s, k = fixString(*s)
		n += k
	}
	for _, r := range []*json.RawMessage{&l.Data, &l.Params} {
		var k int
		*r, k = fixRaw(*r)
		n += k
	}
	l.InvalidUTF8 = n
}

// appendJSON appends the line as one line of JSON (no newline), as
// present.MarshalLine would write it (TestWatchJSONLineMatchesGeneric),
// by hand: reflection was a third of a flooded watch's own work. Raw
// values come from the runtime, which parsed them: they are valid JSON,
// only compacted here.
func (l *watchLine) appendJSON(b []byte) []byte {
	start := len(b)
	o := record.NewObject(b)
	o.StrAlways("time", l.Time)
	o.StrAlways("server", l.Server)
	o.StrAlways("kind", l.Kind)
	o.Str("from", l.From)
	o.Str("to", l.To)
	o.Str("reason", l.Reason)
	o.Str("level", l.Level)
	o.Str("logger", l.Logger)
	if len(l.Data) > 0 {
		o.Raw("data", compactJSON(l.Data))
	}
	o.Uint("requestId", l.RequestID)
	o.Str("token", l.Token)
	if l.Progress != nil {
		o.FloatAlways("progress", *l.Progress)
	}
	o.Float("total", l.Total)
	o.Str("message", l.Message)
	o.Str("tool", l.Tool)
	o.Str("late", l.Late)
	o.Str("list", l.List)
	o.Str("uri", l.URI)
	o.Str("method", l.Method)
	if len(l.Params) > 0 {
		o.Raw("params", compactJSON(l.Params))
	}
	o.Str("line", l.Line)
	o.Str("detail", l.Detail)
	o.Int("invalidUTF8", int64(l.InvalidUTF8))
	b = o.End()
	if esc := present.EscapeJSON(b[start:]); &esc[0] != &b[start] {
		b = append(b[:start], esc...)
	}
	return b
}

// compactJSON is valid JSON raw without the white space between its
// tokens, as encoding/json writes a RawMessage; raw itself when it has
// none (the usual case: servers write compact JSON).
func compactJSON(raw []byte) []byte {
	inString, escaped := false, false
	for _, c := range raw {
		switch {
		case escaped:
			escaped = false
		case inString:
			escaped = c == '\\'
			inString = c != '"'
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			var b bytes.Buffer
			if json.Compact(&b, raw) != nil {
				return raw
			}
			return b.Bytes()
		}
	}
	return raw
}

// watchWriter turns events into lines. It is used by one goroutine only.
type watchWriter struct {
	out      io.Writer
	asJSON   bool
	minLevel int
	stderr   bool
	// replaced counts invalid UTF-8 sequences replaced so far; read after
	// the writing goroutine is done.
	replaced int
	buf      []byte // the --json line being written, reused
	// serverW is the width of the server column in the text form: the
	// longest watched server's name, so the kinds and texts of several
	// servers line up.
	serverW int
}

// toLine maps an event to its line, or reports false for events watch
// does not show (traffic, requests, publications, filtered logs).
func (w *watchWriter) toLine(ev runtime.Event) (watchLine, bool) {
	h := ev.Header()
	k, _ := runtime.EventKindOf(ev)
	l := watchLine{Time: h.Time.Format(time.RFC3339Nano), Server: h.Server, Kind: k.Alias}
	switch e := ev.(type) {
	case runtime.StateChanged:
		l.From, l.To, l.Reason = e.From.String(), e.To.String(), e.Reason
	case runtime.LogMessage:
		if mcp.LevelRank(e.Level) < w.minLevel {
			return l, false
		}
		l.Level, l.Logger, l.Data = e.Level, e.Logger, e.Data
	case runtime.Progress:
		p := e.Progress
		l.RequestID, l.Token, l.Progress, l.Total, l.Message = e.RequestID, e.Token, &p, e.Total, e.Message
		l.Tool, l.Late = e.Tool, e.Late
	case runtime.ListChanged:
		l.List = e.Kind
	case runtime.ResourceUpdated:
		l.URI = e.URI
	case runtime.NotificationReceived:
		l.Method, l.Params = e.Method, e.Params
	case runtime.StdoutNoise:
		l.Line, l.Detail = e.Line, e.Detail
	case runtime.ProtocolAnomaly:
		l.Detail = strings.TrimSpace(e.Kind + " " + e.ID + " " + e.Detail)
	case runtime.StderrLine:
		if !w.stderr {
			return l, false
		}
		l.Line = e.Line
	default:
		return l, false
	}
	return l, true
}

// write prints ev's line, if it has one. An error means stdout is gone
// (its reader exited, as head does) and the watch should end.
func (w *watchWriter) write(ev runtime.Event) error {
	l, ok := w.toLine(ev)
	if !ok {
		return nil
	}
	l.fixUTF8()
	w.replaced += l.InvalidUTF8
	if w.asJSON {
		w.buf = append(l.appendJSON(w.buf[:0]), '\n')
		_, err := w.out.Write(w.buf)
		return err
	}
	// The words are present's, as in the terminal UI's streams.
	d, _ := present.Describe(ev)
	text := d.Text
	if d.Level != "" {
		text = d.Level + " " + text
	}
	if _, ok := ev.(runtime.NotificationReceived); ok {
		text = d.Method + " " + text
	}
	server := present.OrHyphen(present.Line(l.Server))
	if pad := w.serverW - utf8.RuneCountInString(server); pad > 0 {
		server += strings.Repeat(" ", pad)
	}
	_, err := fmt.Fprintf(w.out, "%s  %s  %-16s  %s\n", ev.Header().Time.Format("15:04:05.000"), server, l.Kind, text)
	return err
}
