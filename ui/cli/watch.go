package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"mcpdeck/runtime"
)

// logLevels are the MCP (syslog) log levels, least severe first.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// levelRank orders a level; a level the spec does not know ranks above
// every known one, so a filter never hides what it cannot judge.
func levelRank(level string) int {
	for i, l := range logLevels {
		if l == level {
			return i
		}
	}
	return len(logLevels)
}

// watchFlags are watch's own flags.
type watchFlags struct {
	dur    time.Duration
	asJSON bool
	level  string
	stderr bool
	tel    telemetryFlags
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
faster than the lines can be written is slowed down instead.

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
   "method": "...", "params": {...}, "line": "...", "detail": "..."}

Exit status: 0 when ended by ctrl+c or --for; 3 when no server could be
connected; 2 for a usage or configuration error.`,
		Example: `  mcpdeck watch
  mcpdeck watch demo --level debug --for 30s
  mcpdeck watch --json | jq 'select(.kind == "log")'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWatch(cmd, &tf, &wf, args)
		},
	}
	addTargetFlags(cmd, &tf)
	fl := cmd.Flags()
	fl.DurationVar(&wf.dur, "for", 0, "stop after `D` (default: run until interrupted)")
	fl.BoolVar(&wf.asJSON, "json", false, "print one JSON object per line (shape in --help)")
	fl.StringVar(&wf.level, "level", "info", "the least severe log `L`evel to show and ask for: "+strings.Join(logLevels, ", "))
	fl.BoolVar(&wf.stderr, "stderr", false, "print the servers' stderr lines too")
	addTelemetryFlags(fl, &wf.tel)
	return cmd
}

func runWatch(cmd *cobra.Command, tf *targetFlags, wf *watchFlags, names []string) error {
	if levelRank(wf.level) == len(logLevels) {
		return withCode(ExitUsage, fmt.Errorf("--level %q: use one of %s", wf.level, strings.Join(logLevels, ", ")))
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
	protocol, err := protocolSetting(cmd)
	if err != nil {
		return err
	}
	rt := runtime.New(runtime.Options{Config: cfg, Elicitor: runtime.DeclineElicitor{}, LogLevel: wf.level, ClientVersion: version(),
		Auth: newAuthManager(cmd, 0), InteractiveLogin: tf.login, Protocol: protocol, Telemetry: tel})
	events, unsubscribe := rt.Subscribe(runtime.SubscribeOptions{Lossless: true})
	w := &watchWriter{out: cmd.OutOrStdout(), asJSON: wf.asJSON, minLevel: levelRank(wf.level), stderr: wf.stderr}
	// quiet stops the output once the watch is over; the stream is still
	// drained, since a lossless subscriber that stops reading would stall
	// the teardown that publishes into it.
	var quiet atomic.Bool
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for ev := range events {
			if !quiet.Load() {
				w.write(ev)
			}
		}
	}()
	finish := func() {
		quiet.Store(true)
		shutdownRuntime(rt)
		// Only after Shutdown: nothing publishes any more, so closing the
		// subscription cannot race a publisher.
		unsubscribe()
		<-drained
	}

	if err := rt.SetEnabled(ctx, true); err != nil {
		finish()
		if ctx.Err() != nil {
			return nil // interrupted while starting: still a clean end
		}
		return withCode(exitCodeOf(err), err)
	}
	snap := rt.Snapshot()
	live := 0
	for _, v := range snap.Servers {
		if v.State.Live() {
			live++
			continue
		}
		if err := serverFailure(snap, v.Name); err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "mcpdeck: %v\n", err)
		}
	}
	if live == 0 {
		finish()
		return withCode(ExitConnection, fmt.Errorf("nothing to watch: no server could be connected; see the errors above, and mcpdeck servers"))
	}

	var deadline <-chan time.Time
	if wf.dur > 0 {
		t := time.NewTimer(wf.dur)
		defer t.Stop()
		deadline = t.C
	}
	select {
	case <-ctx.Done():
	case <-deadline:
	}
	finish()
	return nil
}

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
	List      string          `json:"list,omitempty"`
	URI       string          `json:"uri,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Line      string          `json:"line,omitempty"`
	Detail    string          `json:"detail,omitempty"`
}

// watchWriter turns events into lines. It is used by one goroutine only.
type watchWriter struct {
	out      io.Writer
	asJSON   bool
	minLevel int
	stderr   bool
}

// toLine maps an event to its line, or reports false for events watch
// does not show (traffic, requests, publications, filtered logs).
func (w *watchWriter) toLine(ev runtime.Event) (watchLine, bool) {
	h := ev.Header()
	l := watchLine{Time: h.Time.Format(time.RFC3339Nano), Server: h.Server}
	switch e := ev.(type) {
	case runtime.StateChanged:
		l.Kind, l.From, l.To, l.Reason = "state", e.From.String(), e.To.String(), e.Reason
	case runtime.LogMessage:
		if levelRank(e.Level) < w.minLevel {
			return l, false
		}
		l.Kind, l.Level, l.Logger, l.Data = "log", e.Level, e.Logger, e.Data
	case runtime.Progress:
		p := e.Progress
		l.Kind, l.RequestID, l.Token, l.Progress, l.Total, l.Message = "progress", e.RequestID, e.Token, &p, e.Total, e.Message
	case runtime.ListChanged:
		l.Kind, l.List = "list_changed", e.Kind
	case runtime.ResourceUpdated:
		l.Kind, l.URI = "resource_updated", e.URI
	case runtime.NotificationReceived:
		l.Kind, l.Method, l.Params = "notification", e.Method, e.Params
	case runtime.StdoutNoise:
		l.Kind, l.Line, l.Detail = "noise", e.Line, e.Detail
	case runtime.ProtocolAnomaly:
		l.Kind, l.Detail = "anomaly", strings.TrimSpace(e.Kind+" "+e.ID+" "+e.Detail)
	case runtime.StderrLine:
		if !w.stderr {
			return l, false
		}
		l.Kind, l.Line = "stderr", e.Line
	default:
		return l, false
	}
	return l, true
}

func (w *watchWriter) write(ev runtime.Event) {
	l, ok := w.toLine(ev)
	if !ok {
		return
	}
	if w.asJSON {
		b, err := json.Marshal(l)
		if err != nil {
			// Only invalid raw JSON from a server can fail; keep the line.
			l.Data, l.Params = nil, nil
			l.Detail = strings.TrimSpace(l.Detail + " (unprintable JSON: " + err.Error() + ")")
			b, _ = json.Marshal(l)
		}
		w.out.Write(append(b, '\n'))
		return
	}
	fmt.Fprintf(w.out, "%s  %s  %-16s  %s\n", ev.Header().Time.Format("15:04:05.000"), orDash(l.Server), l.Kind, summary(l))
}

// summary is the human text after a line's kind.
func summary(l watchLine) string {
	switch l.Kind {
	case "state":
		s := l.From + " → " + l.To
		if l.Reason != "" {
			s += ": " + oneLine(l.Reason)
		}
		return s
	case "log":
		s := l.Level
		if l.Logger != "" {
			s += " [" + l.Logger + "]"
		}
		return s + " " + compactJSON(l.Data, true)
	case "progress":
		s := progressText(runtime.Progress{Progress: *l.Progress, Total: l.Total, Message: l.Message})
		if l.RequestID != 0 {
			return s + " (request " + strconv.FormatUint(l.RequestID, 10) + ")"
		}
		return s + " (token " + l.Token + ")"
	case "list_changed":
		return l.List + " list changed"
	case "resource_updated":
		return l.URI
	case "notification":
		return l.Method + " " + compactJSON(l.Params, false)
	case "noise":
		return oneLine(l.Line) + " (" + l.Detail + ")"
	case "stderr":
		return l.Line
	default:
		return l.Detail
	}
}

// compactJSON prints raw JSON on one line; a plain string as itself when
// unquote is set, since log data is most often just a message.
func compactJSON(raw json.RawMessage, unquote bool) string {
	if len(raw) == 0 {
		return ""
	}
	if unquote {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return oneLine(s)
		}
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return oneLine(string(raw))
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
