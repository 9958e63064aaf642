package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/jsonrpc/mcphttp"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

// chanSource is a Source the test feeds by hand, for the codec's unit
// tests; sessions are recorded from a real runtime elsewhere.
type chanSource struct {
	mu   sync.Mutex
	ch   chan []runtime.Event
	once sync.Once
	snap *runtime.Snapshot
}

func newChanSource(snap *runtime.Snapshot) *chanSource {
	return &chanSource{ch: make(chan []runtime.Event, 1024), snap: snap}
}

func (s *chanSource) SubscribeBatches(runtime.SubscribeOptions) (<-chan []runtime.Event, func()) {
	return s.ch, s.end
}

// end closes the stream, as a runtime's cancel does.
func (s *chanSource) end() { s.once.Do(func() { close(s.ch) }) }

func (s *chanSource) Snapshot() *runtime.Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snap
}

var at = time.Date(2026, 3, 4, 5, 6, 7, 890123456, time.UTC)

func hdr(server string, sec int) runtime.EventHeader {
	return runtime.EventHeader{Time: at.Add(time.Duration(sec) * time.Second), Server: server}
}

func sampleSnapshot() *runtime.Snapshot {
	return &runtime.Snapshot{Generation: 7, At: at, Enabled: true, Sources: []string{"/p/mcp.json"},
		Servers: []runtime.ServerSnapshot{{
			Name: "demo", Transport: "stdio", Target: "demo-server", State: runtime.StateReady, Enabled: true,
			PID: 42, StartedAt: at, Restarts: 1, ProtocolVersion: "2025-11-25",
			ServerInfo:   runtime.Implementation{Name: "demo", Version: "1"},
			Capabilities: json.RawMessage(`{"tools":{}}`),
			Tools: []runtime.Tool{{Name: "demo__echo", Server: "demo", ServerTool: "echo",
				InputSchema: json.RawMessage(`{"type":"object"}`)}},
			Ping:        runtime.PingStats{Last: 3 * time.Millisecond, EWMA: 2 * time.Millisecond, Recent: []time.Duration{time.Millisecond}},
			Outstanding: []runtime.RequestInfo{{ID: 9, Server: "demo", Method: "tools/call", Tool: "sleep", Started: at, Progress: &runtime.ProgressInfo{Progress: 1, Total: 3, At: at}}},
			LastError:   &runtime.ErrorInfo{Server: "demo", Message: "boom", Code: -32000, At: at},
			LastStop:    runtime.StopInfo{Step: runtime.StopStdinClose, Took: time.Second},
			Counters:    runtime.Counters{Notifications: 5, Calls: 2},
		}},
		Tools: []runtime.Tool{{Name: "demo__echo", Server: "demo", ServerTool: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}},
	}
}

// samples holds one value of every registered kind, each field set, so a
// round trip proves every field survives.
func samples() []runtime.Event {
	return []runtime.Event{
		runtime.StateChanged{EventHeader: hdr("demo", 1), From: runtime.StateListing, To: runtime.StateReady, Reason: "ok"},
		runtime.Published{EventHeader: hdr("", 2), Generation: 7, Enabled: true, Snapshot: sampleSnapshot()},
		runtime.NotificationReceived{EventHeader: hdr("demo", 3), Method: "notifications/x", Params: json.RawMessage(`{"a":[1,2]}`)},
		runtime.LogMessage{EventHeader: hdr("demo", 4), Level: "info", Logger: "l", Data: json.RawMessage(`"hello"`)},
		runtime.Progress{EventHeader: hdr("demo", 5), RequestID: 9, Token: "t", Progress: 1.5, Total: 3, Message: "m"},
		runtime.ListChanged{EventHeader: hdr("demo", 6), Kind: "tools"},
		runtime.ResourceUpdated{EventHeader: hdr("demo", 7), URI: "demo://status"},
		runtime.RequestStarted{EventHeader: hdr("demo", 8), ID: 9, Method: "tools/call", Tool: "sleep"},
		runtime.RequestFinished{EventHeader: hdr("demo", 9), ID: 9, Method: "tools/call", Tool: "sleep", Duration: 1500 * time.Millisecond, IsError: true, Err: "e"},
		runtime.RequestCancelled{EventHeader: hdr("demo", 10), ID: 9, Method: "tools/call", Tool: "sleep", Reason: "user"},
		runtime.StderrLine{EventHeader: hdr("demo", 11), Line: "stderr line"},
		runtime.StdoutNoise{EventHeader: hdr("demo", 12), Line: "noise", Detail: "stdout noise"},
		runtime.TrafficFrame{EventHeader: hdr("demo", 13), Frame: jsonrpc.Frame{Dir: jsonrpc.In, Time: at, Kind: jsonrpc.KindResult,
			Method: "tools/call", ID: "9", Size: 40, Raw: []byte(`{"jsonrpc":"2.0","id":9,"result":{}}`)}},
		runtime.TrafficFrame{EventHeader: hdr("demo", 14), Frame: jsonrpc.Frame{Dir: jsonrpc.Out, Time: at, Kind: jsonrpc.KindRequest,
			Method: "tools/call", ID: "10", Size: 70000, Raw: []byte(`{"jsonrpc":"2.0","id":10,"params":{"x":"cut sho`)}},
		runtime.ProtocolAnomaly{EventHeader: hdr("demo", 15), Kind: "late response", ID: "3", Detail: "d"},
		runtime.AppMessage{EventHeader: hdr("apps", 15), View: "v1", Tool: "get-time", Frame: jsonrpc.Frame{Dir: jsonrpc.In, Time: at, Kind: jsonrpc.KindRequest,
			Method: "tools/call", ID: "2", Size: 84, Raw: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get-time","arguments":{}}}`)}},
		runtime.HTTPExchange{EventHeader: hdr("remote", 15), Exchange: mcphttp.Exchange{Started: at, Method: "POST", URL: "http://127.0.0.1:1/mcp",
			RequestHeaders: http.Header{"Authorization": {"[redacted]"}}, RequestBody: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, RequestSize: 40,
			Status: 200, Proto: "HTTP/1.1", ResponseHeaders: http.Header{"Content-Type": {"text/event-stream"}},
			ResponseBody: "event: message\ndata: {}\n\n", ResponseSize: 25, Wait: time.Millisecond, Total: 2 * time.Millisecond}},
		Gap{EventHeader: hdr("", 16), Dropped: 12},
		Live{EventHeader: hdr("", 17), Servers: []LiveServer{{Name: "demo", PID: 42, StartedAt: at, Ping: runtime.PingStats{Last: time.Millisecond},
			Counters: runtime.Counters{Calls: 1}, Outstanding: []runtime.RequestInfo{{ID: 1, Server: "demo", Started: at}}, Stderr: []string{"x"},
			LogLevel: "notice", Subscriptions: []string{"demo://status"}, Roots: []runtime.Root{{URI: "file:///tmp/x", Name: "x"}},
			Listen: &runtime.ListenInfo{State: "open", ID: 4, Since: at, Opens: 1}}}, DroppedEvents: 3},
		ReloadPlanned{EventHeader: hdr("", 18), Plan: runtime.Plan{Add: []string{"b"}, Keep: []string{"demo"}}, Err: ""},
		runtime.HealthChecked{EventHeader: hdr("demo", 19), Method: "ping", Latency: 2 * time.Millisecond, OK: false, Missed: 2, Err: "timed out"},
		runtime.RuntimeFault{EventHeader: hdr("", 20), Err: `server "demo" is stopping and cannot become ready`},
		runtime.LogLevelSet{EventHeader: hdr("demo", 21), Level: "debug"},
		runtime.SubscriptionChanged{EventHeader: hdr("demo", 22), URI: "demo://status", Subscribed: true},
		runtime.RootsChanged{EventHeader: hdr("demo", 23), Roots: []runtime.Root{{URI: "file:///tmp/x", Name: "x"}}},
		runtime.TaskUpdated{EventHeader: hdr("demo", 24), RequestID: 9, Method: "tools/call", Tool: "research",
			Task: runtime.TaskInfo{TaskID: "t-1", Status: "input_required", Message: "which one?", PollInterval: time.Second, Updated: at}},
		runtime.ListenChanged{EventHeader: hdr("demo", 25), Listen: &runtime.ListenInfo{State: runtime.ListenOpen, ID: 4,
			Requested: mcp.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"demo://status"}},
			Granted:   mcp.SubscriptionFilter{ToolsListChanged: true}, Since: at, Opens: 1}},
		runtime.ToolDecision{EventHeader: hdr("demo", 26), Action: runtime.ToolActionOff, Tools: []string{"echo", "add"}, Err: "disk full"},
		runtime.OperatorDecision{EventHeader: hdr("demo", 27), Kind: runtime.DecisionApproval, ID: "g42-1", Client: "claude-code 1.0 (c1)",
			Subject: "demo__delete", Rule: `gateway.tools.approve[0] "*__delete" at mcp.json:3:5`, Decision: "denied",
			By: "the operator (TUI)", Asked: at},
	}
}

// recordEvents writes events through a real Recorder into a file and
// returns the file's bytes.
func recordEvents(t testing.TB, mod func(*Options), events ...runtime.Event) (string, []byte) {
	t.Helper()
	src := newChanSource(sampleSnapshot())
	r, path := startRecorder(t, src, nil, func(o *Options) {
		o.SampleEvery = -1
		if mod != nil {
			mod(o)
		}
	})
	for _, e := range events {
		src.ch <- []runtime.Event{e}
	}
	src.end()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

func TestEveryKindRoundTrips(t *testing.T) {
	t.Parallel()
	in := samples()
	covered := map[string]bool{}
	for _, e := range in {
		k, ok := registry().nameOf(e)
		if !ok {
			t.Fatalf("sample %T is not registered", e)
		}
		covered[k] = true
	}
	for _, k := range Kinds() {
		if !covered[k] {
			t.Errorf("no sample of kind %s: add one to samples()", k)
		}
	}
	_, raw := recordEvents(t, nil, in...)
	rec, err := Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	// The recorder opens with the current snapshot and a live sample, and
	// follows each publication with a sample.
	var entries []Entry
	for i, e := range rec.Entries {
		if i < 2 {
			continue
		}
		if _, ok := e.Event.(Live); ok && rec.Entries[i-1].Kind == "Published" {
			continue
		}
		entries = append(entries, e)
	}
	if len(entries) != len(in) {
		t.Fatalf("read %d entries, want %d:\n%s", len(entries), len(in), raw)
	}
	for i, want := range in {
		got := entries[i]
		if !reflect.DeepEqual(got.Event, want) {
			t.Errorf("%s did not round-trip:\n got %#v\nwant %#v", got.Kind, got.Event, want)
		}
	}
	for i, e := range rec.Entries {
		if e.Seq != uint64(i+1) {
			t.Errorf("%s: seq %d, want %d", e.Kind, e.Seq, i+1)
		}
	}
	// Enums are written by name, frames as JSON a person (and a scrubber)
	// can read, never base64.
	for _, s := range []string{`"From":"listing"`, `"To":"ready"`, `"Dir":"in"`, `"Kind":"result"`, `"Raw":{"jsonrpc":"2.0","id":9,"result":{}}`,
		`"RawText":"{\"jsonrpc\":\"2.0\",\"id\":10,\"params\":{\"x\":\"cut sho"`, `"Duration":1500000000`} {
		if !bytes.Contains(raw, []byte(s)) {
			t.Errorf("the file lacks %s", s)
		}
	}
}

func TestHeaderAndFileMode(t *testing.T) {
	t.Parallel()
	cfg := configOf(demoServer("demo", "API_KEY", "sk-live-0123456789"))
	src := newChanSource(sampleSnapshot())
	r, path := startRecorder(t, src, cfg, func(o *Options) { o.SampleEvery = -1 })
	src.end()
	r.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	rec, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := rec.Header
	if h.Format != Format || h.Version != FormatVersion || h.MCPDeck != "test" || h.Part != 1 || h.Started.IsZero() {
		t.Errorf("header %+v", h)
	}
	if len(h.Servers) != 1 || h.Servers[0].Env["API_KEY"] != "••••••" {
		t.Errorf("header servers not redacted: %+v", h.Servers)
	}
	b, _ := os.ReadFile(path)
	if bytes.Contains(b, []byte("sk-live")) {
		t.Errorf("the secret reached the file:\n%s", b)
	}
}

func TestReaderRefusesNewerMajor(t *testing.T) {
	t.Parallel()
	head := `{"kind":"header","format":"mcpdeck-recording","version":"2.0","mcpdeck":"v9","started":"2030-01-01T00:00:00Z","part":1}` + "\n"
	_, err := Read(strings.NewReader(head))
	if !errors.Is(err, ErrNewerFormat) {
		t.Fatalf("err = %v, want ErrNewerFormat", err)
	}
	if !strings.Contains(err.Error(), "2.0") || !strings.Contains(err.Error(), "newer mcpdeck") {
		t.Errorf("message %q does not say which version and what to do", err)
	}
	if _, err := Read(strings.NewReader(`{"hello":1}` + "\n")); !errors.Is(err, ErrNotRecording) {
		t.Errorf("a non-recording: err = %v", err)
	}
}

func TestReaderKeepsUnknownKindsOfNewerMinor(t *testing.T) {
	t.Parallel()
	in := `{"kind":"header","format":"mcpdeck-recording","version":"1.9","mcpdeck":"v9","started":"2030-01-01T00:00:00Z","part":1,"future":true}
{"seq":1,"mono":5,"kind":"Teleported","ev":{"Time":"2030-01-01T00:00:01Z","Server":"demo","Where":"mars"}}
{"seq":2,"mono":6,"kind":"StderrLine","ev":{"Time":"2030-01-01T00:00:02Z","Server":"demo","Line":"hi","NewField":1}}
`
	rec, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Entries) != 2 {
		t.Fatalf("%d entries", len(rec.Entries))
	}
	u, ok := rec.Entries[0].Event.(Unknown)
	if !ok || u.Kind != "Teleported" || u.Server != "demo" || !strings.Contains(string(u.Raw), "mars") {
		t.Errorf("unknown kind: %#v", rec.Entries[0].Event)
	}
	if l, ok := rec.Entries[1].Event.(runtime.StderrLine); !ok || l.Line != "hi" {
		t.Errorf("a known kind with a new field: %#v", rec.Entries[1].Event)
	}
}

func TestReaderStopsAtAnIncompleteLastLine(t *testing.T) {
	t.Parallel()
	_, raw := recordEvents(t, nil, samples()[:4]...)
	cut := raw[:len(raw)-7] // the writer died mid-line
	rec, err := Read(bytes.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	// The opening snapshot and sample, three events of which one is a
	// publication followed by its sample; the fourth event was cut.
	if !rec.Truncated || len(rec.Entries) != 2+3+1 {
		t.Errorf("truncated=%v entries=%d, want true and %d", rec.Truncated, len(rec.Entries), 6)
	}
}

func TestSnapshotAtLaysLiveOverPublished(t *testing.T) {
	t.Parallel()
	snap := sampleSnapshot()
	snap.Servers[0].PID, snap.Generation = 0, 8
	pub := runtime.Published{EventHeader: hdr("", 1), Generation: 8, Enabled: true, Snapshot: snap}
	live := Live{EventHeader: hdr("", 2), Servers: []LiveServer{{Name: "demo", PID: 77, Ping: runtime.PingStats{Last: 9 * time.Millisecond}}}}
	_, raw := recordEvents(t, nil, pub, runtime.StderrLine{EventHeader: hdr("demo", 2)}, live)
	rec, err := Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	// Entries: initial Published, initial Live, pub, the source's live
	// values sampled after it, stderr, live.
	if s := rec.SnapshotAt(2); s.Generation != 8 || s.Servers[0].PID != 0 {
		t.Errorf("before the sample: gen %d pid %d", s.Generation, s.Servers[0].PID)
	}
	if _, ok := rec.Entries[3].Event.(Live); !ok {
		t.Fatalf("entry 3 is a %s, want the Live sample that follows a publication", rec.Entries[3].Kind)
	}
	if s := rec.SnapshotAt(4); s.Generation != 8 || s.Servers[0].PID != sampleSnapshot().Servers[0].PID {
		t.Errorf("after the publication's sample: gen %d pid %d, want the source's %d", s.Generation, s.Servers[0].PID, sampleSnapshot().Servers[0].PID)
	}
	if s := rec.SnapshotAt(5); s.Servers[0].PID != 77 || s.Servers[0].Ping.Last != 9*time.Millisecond {
		t.Errorf("after the sample: pid %d ping %v", s.Servers[0].PID, s.Servers[0].Ping.Last)
	}
	if rec.Entries[5].Event.(Live).Servers[0].PID != 77 || snap.Servers[0].PID != 0 {
		t.Error("SnapshotAt changed the recording")
	}
}

func TestFastEncodingMatchesGeneric(t *testing.T) {
	t.Parallel()
	fast := 0
	extra := []runtime.Event{
		runtime.Progress{EventHeader: hdr("", 0), Progress: 1e-9, Total: 3e22},
		runtime.Progress{EventHeader: hdr("x", 0), Progress: 0.1, Total: 123456789.25},
		runtime.Progress{EventHeader: hdr("x", 0), RequestID: 3, Token: "mcpdeck-1", Progress: 1, Tool: "slow"},
		runtime.Progress{EventHeader: hdr("x", 0), Token: "mcpdeck-1", Progress: 2, Tool: "slow", Late: "cancelled"},
		runtime.LogMessage{EventHeader: hdr("x", 0), Level: "info", Data: json.RawMessage(`"tab\t<b>&é\u2028"`), Logger: "a\"b\\c\x01"},
		runtime.StderrLine{EventHeader: runtime.EventHeader{Time: time.Date(2026, 1, 2, 3, 4, 5, 100, time.FixedZone("x", 3600))}, Line: "bad \xff utf8"},
		runtime.RequestFinished{EventHeader: hdr("x", 1), ID: 1},
		// The rounds of one request, and a response that continues it.
		runtime.RequestStarted{EventHeader: hdr("x", 1), ID: 12, Method: "tools/call", Tool: "t", Round: 2, FirstID: 11},
		runtime.RequestFinished{EventHeader: hdr("x", 1), ID: 12, Method: "tools/call", Tool: "t", Duration: 5, Round: 2, FirstID: 11, Continues: "task"},
		runtime.RequestFinished{EventHeader: hdr("x", 1), ID: 12, Method: "tools/call", Round: 1, Continues: "input_required", Inputs: []string{"k: elicitation/create"}},
	}
	for _, e := range append(samples(), extra...) {
		f, ok := fastEncode(nil, e)
		if !ok {
			continue
		}
		fast++
		g, err := encodeGeneric(nil, e)
		if err != nil {
			t.Fatal(err)
		}
		// Raw JSON may differ in escaping (the generic codec re-formats
		// it); the values must not.
		var fv, gv any
		if err := json.Unmarshal(f, &fv); err != nil {
			t.Fatalf("%T: fast encoding is not JSON: %v\n%s", e, err, f)
		}
		_ = json.Unmarshal(g, &gv)
		if !bytes.Equal(f, g) && !reflect.DeepEqual(fv, gv) {
			t.Errorf("%T:\nfast    %s\ngeneric %s", e, f, g)
		}
	}
	if fast < 10 {
		t.Errorf("only %d samples took the fast path", fast)
	}
}

func TestIndexAtToleratesSlightlyUnorderedTimes(t *testing.T) {
	t.Parallel()
	rec := &Recording{}
	for i, ms := range []int{0, 5, 4, 10, 9, 20} {
		rec.Entries = append(rec.Entries, Entry{Seq: uint64(i + 1), Mono: time.Duration(ms) * time.Millisecond, Event: runtime.StderrLine{}})
	}
	rec.index()
	for d, want := range map[time.Duration]int{0: 0, 4 * time.Millisecond: 0, 5 * time.Millisecond: 2, 9 * time.Millisecond: 2, 10 * time.Millisecond: 4, time.Hour: 5} {
		if got := rec.IndexAt(d); got != want {
			t.Errorf("IndexAt(%v) = %d, want %d", d, got, want)
		}
	}
	if got := rec.IndexAt(-time.Millisecond); got != -1 {
		t.Errorf("before the start: %d", got)
	}
}
