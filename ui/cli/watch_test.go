package cli

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// decodeWatch parses watch --json output, one object per line.
func decodeWatch(t *testing.T, out string) []watchLine {
	t.Helper()
	var lines []watchLine
	for _, s := range strings.Split(strings.TrimSpace(out), "\n") {
		if s == "" {
			continue
		}
		var l watchLine
		if err := json.Unmarshal([]byte(s), &l); err != nil {
			t.Fatalf("watch --json printed a line that is not JSON: %v\n%s", err, s)
		}
		if l.Time == "" || l.Kind == "" {
			t.Fatalf("line lacks time or kind: %s", s)
		}
		lines = append(lines, l)
	}
	return lines
}

func countKind(lines []watchLine, kind string) int {
	n := 0
	for _, l := range lines {
		if l.Kind == kind {
			n++
		}
	}
	return n
}

func TestWatchDemoJSON(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "50ms")})
	r := h.run(t, "", "watch", "--json", "--for", "1s")
	wantCode(t, r, ExitOK)
	lines := decodeWatch(t, r.stdout)
	ready := false
	for _, l := range lines {
		ready = ready || (l.Kind == "state" && l.To == "ready" && l.Server == "demo")
	}
	if !ready {
		t.Errorf("no state line to ready:\n%s", r.stdout)
	}
	heartbeats := 0
	for _, l := range lines {
		if l.Kind == "log" && l.Level == "info" && l.Logger == "demo" && bytes.Contains(l.Data, []byte("heartbeat")) {
			heartbeats++
		}
	}
	if heartbeats == 0 {
		t.Errorf("no heartbeat log line in a second at a 50ms interval:\n%s", r.stdout)
	}
	// The teardown after --for is not part of the stream.
	if n := countKind(lines, "state"); n != 4 {
		t.Errorf("%d state lines, want the 4 of starting up:\n%s", n, r.stdout)
	}
}

func TestWatchHumanAndLevel(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "50ms")})
	r := h.run(t, "", "watch", "demo", "--for", "400ms")
	wantCode(t, r, ExitOK)
	if !strings.Contains(r.stdout, "  demo  log               info [demo] {") || !strings.Contains(r.stdout, "  demo  state             listing → ready") {
		t.Errorf("unexpected human lines:\n%s", r.stdout)
	}
	// Heartbeats are info: --level warning hides them.
	r = h.run(t, "", "watch", "demo", "--for", "400ms", "--json", "--level", "warning")
	wantCode(t, r, ExitOK)
	if lines := decodeWatch(t, r.stdout); countKind(lines, "log") != 0 || countKind(lines, "state") == 0 {
		t.Errorf("--level warning let info through, or printed nothing:\n%s", r.stdout)
	}
	r = h.run(t, "", "watch", "--level", "loud")
	wantCode(t, r, ExitUsage)
	if !strings.Contains(r.stderr, "debug, info") {
		t.Errorf("--level loud: stderr does not list the levels:\n%s", r.stderr)
	}
}

func TestWatchIsLosslessAndEndsOnInterrupt(t *testing.T) {
	t.Parallel()
	const count = 3000
	h := newHeadless(t, map[string]map[string]any{"flood": srvFake(jsonrpctest.Flood, jsonrpctest.WithCount(count))})
	p := h.start(t, "watch", "--json")
	next := 0
	p.waitLine(t, false, strconv.Itoa(count)+" flood lines", func(s string) bool {
		var l watchLine
		if json.Unmarshal([]byte(s), &l) != nil || l.Kind != "log" {
			return false
		}
		var data struct{ Seq int }
		if err := json.Unmarshal(l.Data, &data); err != nil {
			t.Fatalf("flood data %s: %v", l.Data, err)
		}
		if data.Seq != next {
			t.Fatalf("flood message %d arrived where %d was due: the stream lost or reordered messages", data.Seq, next)
		}
		next++
		return next == count
	})
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t); code != ExitOK {
		t.Fatalf("exit status %d after SIGINT, want 0; stderr:\n%s", code, strings.Join(p.seenErr, "\n"))
	}
}

func TestWatchStderrAndFailures(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{
		"demo":   srvDemo(t, "0"),
		"broken": srvFake(jsonrpctest.ExitEarly),
	})
	// A failed server is reported; the others are still watched.
	r := h.run(t, "", "watch", "--json", "--stderr", "--for", "200ms")
	wantCode(t, r, ExitOK)
	found := false
	for _, l := range decodeWatch(t, r.stdout) {
		found = found || (l.Kind == "stderr" && l.Server == "broken" && strings.Contains(l.Line, "missing API key"))
	}
	if !found {
		t.Errorf("--stderr did not print the broken server's stderr:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, `server "broken"`) {
		t.Errorf("stderr does not report the failed server:\n%s", r.stderr)
	}
	// Without --stderr the line is not printed.
	r = h.run(t, "", "watch", "--json", "--for", "200ms")
	wantCode(t, r, ExitOK)
	if n := countKind(decodeWatch(t, r.stdout), "stderr"); n != 0 {
		t.Errorf("%d stderr lines printed without --stderr", n)
	}
	// Nothing left to watch is a connection failure.
	r = h.run(t, "", "watch", "broken")
	wantCode(t, r, ExitConnection)
}

func TestWatchLinesGolden(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 11, 25, 12, 30, 45, 123000000, time.UTC)
	hd := func(server string) runtime.EventHeader { return runtime.EventHeader{Time: at, Server: server} }
	events := []runtime.Event{
		runtime.StateChanged{EventHeader: hd("a"), From: runtime.StateReady, To: runtime.StateFailed, Reason: "process exited\nstatus 3"},
		runtime.LogMessage{EventHeader: hd("a"), Level: "debug", Logger: "x", Data: json.RawMessage(`"hidden by the level"`)},
		runtime.LogMessage{EventHeader: hd("a"), Level: "error", Logger: "db", Data: json.RawMessage(`"connection lost"`)},
		runtime.LogMessage{EventHeader: hd("a"), Level: "info", Data: json.RawMessage(`{"k": [1, 2]}`)},
		runtime.Progress{EventHeader: hd("a"), RequestID: 7, Token: "mcpdeck-1", Progress: 1.5, Total: 3, Message: "half"},
		runtime.Progress{EventHeader: hd("a"), Token: "foreign", Progress: 2},
		runtime.Progress{EventHeader: hd("a"), RequestID: 8, Token: "mcpdeck-2", Progress: 1, Total: 4, Tool: "longRun"},
		runtime.Progress{EventHeader: hd("a"), Token: "mcpdeck-2", Progress: 2, Total: 4, Tool: "longRun", Late: "cancelled"},
		runtime.ListChanged{EventHeader: hd("a"), Kind: "tools"},
		runtime.ResourceUpdated{EventHeader: hd("a"), URI: "demo://status"},
		runtime.NotificationReceived{EventHeader: hd("a"), Method: "notifications/custom", Params: json.RawMessage(`{ "x" : 1 }`)},
		runtime.StdoutNoise{EventHeader: hd("a"), Line: "hello from print", Detail: "noise"},
		runtime.ProtocolAnomaly{EventHeader: hd("a"), Kind: "unknown-id", ID: "99", Detail: "no such request"},
		runtime.StderrLine{EventHeader: hd("a"), Line: "hidden without --stderr"},
		runtime.RequestStarted{EventHeader: hd("a"), ID: 1, Method: "ping"},
		runtime.Published{EventHeader: hd("")},
	}
	var human, js bytes.Buffer
	hw := &watchWriter{out: &human, minLevel: mcp.LevelRank("info")}
	jw := &watchWriter{out: &js, asJSON: true, minLevel: mcp.LevelRank("info")}
	for _, ev := range events {
		hw.write(ev)
		jw.write(ev)
	}
	// Time is local in the human form: pin it by checking it apart.
	want := at.Local().Format("15:04:05.000")
	for _, l := range strings.Split(strings.TrimSpace(human.String()), "\n") {
		if !strings.HasPrefix(l, want+"  ") {
			t.Fatalf("line %q does not start with the time %s", l, want)
		}
	}
	// Late progress carries its call and how it ended, in both forms, in
	// the words the terminal UI uses.
	if !strings.Contains(human.String(), "late progress for longRun (cancelled): 2/4") {
		t.Errorf("the text form does not word late progress as the TUI does:\n%s", human.String())
	}
	for _, w := range []string{`"token":"mcpdeck-2","progress":1,"total":4,"tool":"longRun"}`, `"tool":"longRun","late":"cancelled"}`} {
		if !strings.Contains(js.String(), w) {
			t.Errorf("watch --json has no %s:\n%s", w, js.String())
		}
	}
	golden.RequireEqual(headlessGolden{t, "watch/lines"}, strings.ReplaceAll(human.String(), want, "TIME"))
	golden.RequireEqual(headlessGolden{t, "watch/lines-json"}, js.String())
}

// The text form of several servers lines up: the server column is as
// wide as the longest watched name, so each server's kinds and texts
// start where the others' do. The second server cannot start, which
// costs no process.
func TestWatchHumanColumnsLineUp(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0"), "nosuchserver": {"command": "/nonexistent/mcp-server"}})
	r := h.run(t, "", "watch", "demo", "nosuchserver", "--for", "300ms")
	for _, want := range []string{"  demo          state             listing → ready", "  nosuchserver  state             starting → failed"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no line %q:\n%s", want, r.stdout)
		}
	}
}
