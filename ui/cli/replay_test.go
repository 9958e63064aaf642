package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/jsonrpctest"
	"mcpdeck/runtime"
	"mcpdeck/runtime/record"
)

// TestRecordCallThenReplay records `call` against a fake server and
// replays the file: as text, as JSON with watch's filters, and against a
// live server, which passes on the same server and fails on a changed one
// (the same tools, one description different) unless that path is ignored.
func TestRecordCallThenReplay(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{
		"same":    srvFake(jsonrpctest.Normal),
		"changed": srvFake(jsonrpctest.SecretLeak, jsonrpctest.WithSecret("a-changed-description")),
	})
	file := filepath.Join(h.dir, "call.jsonl")
	r := h.run(t, "", "call", "same", "echo", `{"text":"recorded"}`, "--record", file)
	wantCode(t, r, ExitOK)
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the recording: %v, %v", fi, err)
	}

	r = h.run(t, "", "replay", file, "--text")
	wantCode(t, r, ExitOK)
	for _, s := range []string{"StateChanged", "starting → initializing", "RequestFinished", "→ request tools/call", `"text":"recorded"`} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("replay --text lacks %q:\n%s", s, r.stdout)
		}
	}

	r = h.run(t, "", "replay", file, "--json", "--kind", "request", "--method", "tools/call")
	wantCode(t, r, ExitOK)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 2 {
		t.Fatalf("--kind request --method tools/call: %d lines, want started and finished:\n%s", len(lines), r.stdout)
	}
	for _, l := range lines {
		var e struct {
			Kind   string         `json:"kind"`
			Server string         `json:"server"`
			Event  map[string]any `json:"event"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil || !strings.HasPrefix(e.Kind, "Request") || e.Server != "same" || e.Event["Tool"] != "echo" {
			t.Errorf("line %s: %+v %v", l, e, err)
		}
	}

	r = h.run(t, "", "replay", file, "--against", "same")
	wantCode(t, r, ExitOK)
	if !strings.Contains(r.stdout, "PASS  ") || !strings.Contains(r.stdout, "0 failed") {
		t.Errorf("against the same server:\n%s", r.stdout)
	}

	// An ad-hoc server goes alone, not after --against, which would take
	// "--stdio" as the server's name: said so, not "accepts 1 arg(s),
	// received 2".
	r = h.run(t, "", "replay", file, "--against", "--stdio", "node server.js")
	wantCode(t, r, ExitUsage)
	if !strings.Contains(r.stderr, `--against takes a configured server's name, not "--stdio": for an ad-hoc server give --stdio 'CMD' or --url URL alone`) {
		t.Errorf("--against --stdio: %s", r.stderr)
	}

	r = h.run(t, "", "replay", file, "--against", "changed")
	wantCode(t, r, ExitToolError)
	// The changed description carries the server's secret, scrubbed as it
	// came in (it used to be printed raw here). The tool is named: lists
	// are compared by name.
	if !strings.Contains(r.stdout, "FAIL") || !strings.Contains(r.stdout, "/result/tools/echo/description") ||
		!strings.Contains(r.stdout, "authenticated with token ••••••") || strings.Contains(r.stdout, "a-changed-description") {
		t.Errorf("against a changed server:\n%s", r.stdout)
	}
	r = h.run(t, "", "replay", file, "--against", "changed", "--ignore", "result.tools.*.description", "--json")
	wantCode(t, r, ExitOK)
	var out struct {
		Passed   bool `json:"passed"`
		Requests []struct {
			Method, Status string
		} `json:"requests"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || !out.Passed || len(out.Requests) < 3 {
		t.Errorf("--ignore: %+v %v\n%s", out, err, r.stdout)
	}
	assertReaped(t, h.mark)
}

func TestReplayRefusesWhatItCannotRead(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{})
	newer := filepath.Join(h.dir, "newer.jsonl")
	os.WriteFile(newer, []byte(`{"kind":"header","format":"mcpdeck-recording","version":"2.1","mcpdeck":"v9","started":"2030-01-01T00:00:00Z","part":1}`+"\n"), 0o600)
	r := h.run(t, "", "replay", newer, "--text")
	wantCode(t, r, ExitUsage)
	if !strings.Contains(r.stderr, "2.1") || !strings.Contains(r.stderr, "newer mcpdeck") {
		t.Errorf("stderr: %s", r.stderr)
	}
	r = h.run(t, "", "replay", filepath.Join(h.dir, "missing.jsonl"), "--text")
	wantCode(t, r, ExitUsage)
	r = h.run(t, "", "replay", newer, "--text", "--json")
	wantCode(t, r, ExitUsage)
	r = h.run(t, "", "call", "x", "y", "--record-max", "1MB")
	wantCode(t, r, ExitUsage)
}

// TestWatchRecordingSurvivesSIGKILL kills mcpdeck watch --record while a
// demo server logs every 5 ms into it: the file reads back to its last
// complete line.
func TestWatchRecordingSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "5ms")})
	file := filepath.Join(h.dir, "watch.jsonl")
	w := h.start(t, "watch", "demo", "--record", file)
	n := 0
	w.waitLine(t, false, "50 log lines", func(l string) bool {
		if strings.Contains(l, " log ") {
			n++
		}
		return n >= 50
	})
	if err := w.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	w.wait(t)
	rec, err := record.ReadFile(file)
	if err != nil {
		t.Fatalf("the killed mcpdeck's recording does not read: %v", err)
	}
	logs := 0
	for _, e := range rec.Entries {
		if _, ok := e.Event.(runtime.LogMessage); ok {
			logs++
		}
	}
	if rec.Header.MCPDeck == "" || len(rec.Entries) < 2 || logs == 0 {
		t.Errorf("header %+v, %d entries, %d log lines", rec.Header, len(rec.Entries), logs)
	}
	t.Logf("%d entries (%d log lines), truncated=%v", len(rec.Entries), logs, rec.Truncated)
	assertReaped(t, h.mark)
}

// TestRecordHTTPThenHAR records a call to server-everything over
// Streamable HTTP and exports the session as an HTTP Archive.
func TestRecordHTTPThenHAR(t *testing.T) {
	t.Parallel()
	url := jsonrpctest.EverythingHTTP(t, "streamableHttp") + "/mcp"
	h := newHeadless(t, map[string]map[string]any{})
	file := filepath.Join(h.dir, "http.jsonl")
	r := h.run(t, "", "call", "--url", url, "--header", "Authorization: Bearer sk-http-secret-1234", "echo", `{"message":"har"}`, "--record", file)
	wantCode(t, r, ExitOK)
	out := filepath.Join(h.dir, "out.har")
	r = h.run(t, "", "replay", file, "--har", out)
	wantCode(t, r, ExitOK)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Log struct {
			Entries []struct {
				Response struct{ Content struct{ Text string } }
			}
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Log.Entries) < 3 {
		t.Fatalf("HAR: %v, %d entries", err, len(doc.Log.Entries))
	}
	if strings.Contains(string(b), "sk-http-secret") || !strings.Contains(string(b), `\"har\"`) {
		t.Errorf("the HAR leaks the header or lacks the call:\n%.2000s", b)
	}
	// A stdio session has no HTTP exchanges to export.
	h2 := newHeadless(t, map[string]map[string]any{"demo": srvDemo(t, "0")})
	stdio := filepath.Join(h2.dir, "stdio.jsonl")
	wantCode(t, h2.run(t, "", "call", "demo", "echo", `{"text":"x"}`, "--record", stdio), ExitOK)
	r = h2.run(t, "", "replay", stdio, "--har", filepath.Join(h2.dir, "x.har"))
	wantCode(t, r, ExitUsage)
	if !strings.Contains(r.stderr, "no HTTP exchanges") {
		t.Errorf("stderr: %s", r.stderr)
	}
}

// TestCheckRecordsEachServer: check --record writes each checked
// server's session, one file per server when several are checked.
func TestCheckRecordsEachServer(t *testing.T) {
	t.Parallel()
	h := newHeadless(t, map[string]map[string]any{"a": srvFake(jsonrpctest.Normal), "b": srvFake(jsonrpctest.Normal)})
	file := filepath.Join(h.dir, "check.jsonl")
	r := h.run(t, "", "check", "a", "b", "--record", file)
	wantCode(t, r, ExitOK)
	for _, name := range []string{"a", "b"} {
		rec, err := record.ReadFile(filepath.Join(h.dir, "check."+name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		cancelled, reconnected := false, 0
		for _, e := range rec.Entries {
			switch ev := e.Event.(type) {
			case runtime.RequestCancelled:
				cancelled = true
			case runtime.StateChanged:
				if ev.To == runtime.StateReady {
					reconnected++
				}
			}
			if s := e.Event.Header().Server; s != "" && s != name {
				t.Errorf("%s's recording has an event of %s", name, s)
			}
		}
		if len(rec.Header.Servers) != 1 || rec.Header.Servers[0].Name != name || !cancelled || reconnected < 2 {
			t.Errorf("%s: header servers %v, cancelled %v, ready %d times", name, rec.Header.Servers, cancelled, reconnected)
		}
	}
}

// A recording with lines that cannot be read is replayed as far as it
// can be, and the command says which lines it skipped, and why.
func TestReplayReportsSkippedLines(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "replay-demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	mangled := append([]string{lines[0], "{not json\n"}, lines[1:]...)
	path := filepath.Join(t.TempDir(), "mangled.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(mangled, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runBin(t, "", nil, "", "replay", path, "--text")
	wantCode(t, r, ExitOK)
	if !strings.Contains(r.stderr, "could not be read whole: 1 line skipped: line 2 (not JSON)") || !strings.Contains(r.stdout, "StateChanged") {
		t.Fatalf("stderr %q, stdout %d bytes", r.stderr, len(r.stdout))
	}
}

// replay --against SERVER on a recording of several servers (a TUI
// session) sends the requests recorded of the server of that name, as a
// person means; another name still needs --server (found by the stranger
// pass: "--against weather" was refused with "name one with --server").
func TestAgainstTakesTheRecordedServerItNames(t *testing.T) {
	request := func(seq uint64, server string) record.Entry {
		return record.Entry{Seq: seq, Event: runtime.TrafficFrame{EventHeader: runtime.EventHeader{Server: server},
			Frame: jsonrpc.Frame{Dir: jsonrpc.Out, Kind: jsonrpc.KindRequest, ID: "1", Method: "tools/list", Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)}}}
	}
	rec := &record.Recording{Entries: []record.Entry{request(1, "weather"), request(2, "everything")}}
	if got, err := recordedServer(rec, nil, "weather"); err != nil || got != "weather" {
		t.Errorf("--against weather: %q, %v", got, err)
	}
	if got, err := recordedServer(rec, []string{"everything"}, "weather"); err != nil || got != "everything" {
		t.Errorf("--against weather --server everything: %q, %v", got, err)
	}
	if _, err := recordedServer(rec, nil, "weather-dev"); err == nil || !strings.Contains(err.Error(), "name one with --server") {
		t.Errorf("--against weather-dev: %v, want name one with --server", err)
	}
}
