package record

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
)

// wire builds a recording of one server's traffic from frames written as
// "DIR KIND +OFFSET RAW": out/in, request/notification/result/error, the
// offset from the start in milliseconds.
func wire(t *testing.T, server string, lines ...string) *Recording {
	t.Helper()
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	rec := &Recording{}
	for i, l := range lines {
		parts := strings.SplitN(l, " ", 4)
		if len(parts) != 4 {
			t.Fatalf("frame %q: want DIR KIND +MS RAW", l)
		}
		ms, err := strconv.Atoi(strings.TrimPrefix(parts[2], "+"))
		if err != nil {
			t.Fatalf("frame %q: %v", l, err)
		}
		var msg wireMessage
		if err := stdjson.Unmarshal([]byte(parts[3]), &msg); err != nil {
			t.Fatalf("frame %q: %v", l, err)
		}
		f := jsonrpc.Frame{Dir: jsonrpc.Out, Time: start.Add(time.Duration(ms) * time.Millisecond), Method: msg.Method,
			ID: strings.Trim(string(msg.ID), `"`), Raw: []byte(parts[3]), Size: len(parts[3])}
		if parts[0] == "in" {
			f.Dir = jsonrpc.In
		}
		f.Kind = map[string]jsonrpc.FrameKind{"request": jsonrpc.KindRequest, "notification": jsonrpc.KindNotification,
			"result": jsonrpc.KindResult, "error": jsonrpc.KindError}[parts[1]]
		rec.Entries = append(rec.Entries, Entry{Seq: uint64(i + 1), Kind: "TrafficFrame",
			Event: runtime.TrafficFrame{EventHeader: runtime.EventHeader{Time: f.Time, Server: server}, Frame: f}})
	}
	rec.index()
	return rec
}

const legacyHandshake = `out request +0 {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpdeck","version":"t"}}}
in result +5 {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"counter","version":"1"}}}
out request +6 {"jsonrpc":"2.0","id":2,"method":"tools/list"}
in result +7 {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"count","inputSchema":{"type":"object"}},{"name":"add","inputSchema":{"type":"object"}}]}}`

// peer is a client connection as a Mock sees it: what it was sent, also
// announced on each (when not nil).
type peer struct {
	mu   sync.Mutex
	sent []string // "method params", "request method params"
	each chan string
}

func (p *peer) add(s string) {
	p.mu.Lock()
	p.sent = append(p.sent, s)
	p.mu.Unlock()
	if p.each != nil {
		p.each <- s
	}
}

func (p *peer) Notify(_ context.Context, method string, params any) error {
	b, _ := stdjson.Marshal(params)
	p.add(method + " " + string(b))
	return nil
}

func (p *peer) Call(_ context.Context, method string, params any, _ ...jsonrpc.CallOption) (stdjson.RawMessage, error) {
	b, _ := stdjson.Marshal(params)
	p.add("request " + method + " " + string(b))
	return stdjson.RawMessage(`{"action":"decline"}`), nil
}

func answer(t *testing.T, m *Mock, p Peer, id, method, params string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := m.Answer(ctx, p, &jsonrpc.Request{ID: id, Method: method, Params: stdjson.RawMessage(params)}, MockOptions{})
	if err != nil {
		return "", err
	}
	b, _ := stdjson.Marshal(res)
	return string(b), nil
}

// The handshake and lists are the last recorded; a call repeated gets the
// recorded answers in order, then the last again; _meta and ids never
// count, and a key order or a number's spacing does not either.
func TestMockAnswersInOrder(t *testing.T) {
	rec := wire(t, "counter", strings.Split(legacyHandshake+`
out request +10 {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"count","arguments":{"by":1},"_meta":{"progressToken":"mcpdeck-1"}}}
in result +11 {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"1"}]}}
out request +12 {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"count","arguments":{"by":1}}}
in result +13 {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"2"}]}}`, "\n")...)
	m, err := NewMock(rec, "")
	if err != nil {
		t.Fatal(err)
	}
	if m.Server != "counter" || m.Era != EraLegacy || m.Version != "2025-11-25" {
		t.Fatalf("mock of %q, %s %s", m.Server, m.Era, m.Version)
	}
	p := &peer{}
	got, err := answer(t, m, p, "7", "initialize", `{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"other","version":"2"}}`)
	if err != nil || !strings.Contains(got, `"serverInfo":{"name":"counter"`) {
		t.Fatalf("initialize: %s %v", got, err)
	}
	for i, want := range []string{`"text":"1"`, `"text":"2"`, `"text":"2"`} {
		got, err := answer(t, m, p, "9", "tools/call", `{"arguments":{"by": 1},"name":"count","_meta":{"progressToken":"x"}}`)
		if err != nil || !strings.Contains(got, want) {
			t.Fatalf("call %d: %s %v, want %s", i+1, got, err, want)
		}
	}
	if got, err := answer(t, m, p, "10", "ping", ``); err == nil {
		t.Fatalf("ping reached the mock: %s (the connection answers it)", got)
	}
	if got, err := answer(t, m, p, "11", "logging/setLevel", `{"level":"debug"}`); err != nil || got != "{}" {
		t.Fatalf("logging/setLevel, never recorded: %s %v", got, err)
	}
}

// A request nothing recorded matches gets -32602 naming the nearest
// recorded arguments and where they differ; a tool never called names the
// ones that were; a method never seen is -32601.
func TestMockNearest(t *testing.T) {
	rec := wire(t, "counter", strings.Split(legacyHandshake+`
out request +10 {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}
in result +11 {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"3"}]}}
out request +12 {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":{"a":10,"b":20,"c":30}}}
in result +13 {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"60"}]}}`, "\n")...)
	m, err := NewMock(rec, "counter")
	if err != nil {
		t.Fatal(err)
	}
	_, err = answer(t, m, &peer{}, "5", "tools/call", `{"name":"add","arguments":{"a":1,"b":5}}`)
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("unrecorded arguments: %v", err)
	}
	for _, want := range []string{`tool "add"`, `(seq 5) had arguments {"a":1,"b":2}`, "/arguments/b is 2 there, 5 here"} {
		if !strings.Contains(rpc.Message, want) {
			t.Errorf("message lacks %q: %s", want, rpc.Message)
		}
	}
	var data struct {
		Nearest map[string]any `json:"nearest"`
		Line    int            `json:"recordedSeq"`
	}
	if stdjson.Unmarshal(rpc.Data, &data) != nil || data.Line != 5 || data.Nearest["b"] != float64(2) {
		t.Errorf("data: %s", rpc.Data)
	}
	_, err = answer(t, m, &peer{}, "6", "tools/call", `{"name":"count","arguments":{}}`)
	if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpc.Message, `tool "count": the recording has no tools/call of it; recorded: "add"`) {
		t.Fatalf("a tool never called: %v", err)
	}
	_, err = answer(t, m, &peer{}, "7", "prompts/get", `{"name":"greet"}`)
	if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeMethodNotFound || !strings.Contains(rpc.Message, "no prompts/get request") {
		t.Fatalf("a method never seen: %v", err)
	}
}

// What the server sent during a call is sent again in order before the
// answer: progress under the new request's token (none when it asked for
// none), a log message, a question to the client, whose answer is
// awaited.
func TestMockReplaysDuringACall(t *testing.T) {
	rec := wire(t, "counter", strings.Split(legacyHandshake+`
out request +10 {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"count","arguments":{},"_meta":{"progressToken":"mcpdeck-7"}}}
in notification +11 {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"mcpdeck-7","progress":1,"total":2}}
in notification +12 {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"halfway"}}
in notification +12 {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
in request +13 {"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"message":"sure?","requestedSchema":{"type":"object"}}}
out result +14 {"jsonrpc":"2.0","id":0,"result":{"action":"accept"}}
in notification +15 {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"mcpdeck-7","progress":2,"total":2}}
in result +16 {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"done"}]}}`, "\n")...)
	m, err := NewMock(rec, "")
	if err != nil {
		t.Fatal(err)
	}
	p := &peer{}
	got, err := answer(t, m, p, "20", "tools/call", `{"name":"count","arguments":{},"_meta":{"progressToken":42}}`)
	if err != nil || !strings.Contains(got, "done") {
		t.Fatalf("call: %s %v", got, err)
	}
	want := []string{
		`notifications/progress {"progress":1,"progressToken":42,"total":2}`,
		`notifications/message {"level":"info","data":"halfway"}`,
		`request elicitation/create {"message":"sure?","requestedSchema":{"type":"object"}}`,
		`notifications/progress {"progress":2,"progressToken":42,"total":2}`,
	}
	if strings.Join(p.sent, "\n") != strings.Join(want, "\n") {
		t.Fatalf("sent during the call:\n%s\nwant:\n%s", strings.Join(p.sent, "\n"), strings.Join(want, "\n"))
	}
	p = &peer{}
	if _, err := answer(t, m, p, "21", "tools/call", `{"name":"count","arguments":{}}`); err != nil {
		t.Fatal(err)
	}
	for _, s := range p.sent {
		if strings.HasPrefix(s, "notifications/progress") {
			t.Errorf("progress sent to a request that asked for none: %s", s)
		}
	}
}

// A request the recording never saw answered is held until the client
// cancels it; the recorded pace is kept at speed 1 and scaled by speed.
func TestMockHoldsAndPaces(t *testing.T) {
	rec := wire(t, "counter", strings.Split(legacyHandshake+`
out request +10 {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"count","arguments":{"forever":true}}}
out notification +20 {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"user"}}
out request +30 {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"count","arguments":{}}}
in result +230 {"jsonrpc":"2.0","id":4,"result":{"content":[]}}`, "\n")...)
	m, err := NewMock(rec, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := m.Answer(ctx, &peer{}, &jsonrpc.Request{ID: "1", Method: "tools/call", Params: stdjson.RawMessage(`{"name":"count","arguments":{"forever":true}}`)}, MockOptions{})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("a request never answered in the recording was answered: %v", err)
	default:
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("after the cancel: %v", err)
	}
	for _, c := range []struct {
		speed   float64
		atLeast time.Duration
	}{{1, 200 * time.Millisecond}, {4, 50 * time.Millisecond}} {
		start := time.Now()
		_, err := m.Answer(context.Background(), &peer{}, &jsonrpc.Request{ID: "2", Method: "tools/call", Params: stdjson.RawMessage(`{"name":"count","arguments":{}}`)}, MockOptions{Speed: c.speed})
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took < c.atLeast {
			t.Errorf("speed %g: answered after %s, recorded 200 ms", c.speed, took)
		}
	}
}

// A modern recording: the listen stream is acknowledged under the new
// request's id and held open; the era is taken from server/discover.
func TestMockModernListen(t *testing.T) {
	rec := wire(t, "peer",
		`out request +0 {"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`in result +3 {"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true}},"resultType":"complete"}}`,
		`out request +4 {"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`in notification +5 {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}`,
		`in notification +6 {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}`,
	)
	m, err := NewMock(rec, "")
	if err != nil {
		t.Fatal(err)
	}
	if m.Era != EraModern {
		t.Fatalf("era %s", m.Era)
	}
	p := &peer{each: make(chan string, 8)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := m.Answer(ctx, p, &jsonrpc.Request{ID: "31", Method: "subscriptions/listen", Params: stdjson.RawMessage(`{"notifications":{"toolsListChanged":true}}`)}, MockOptions{})
		done <- err
	}()
	var ack string
	select {
	case ack = <-p.each:
	case <-time.After(10 * time.Second):
		t.Fatal("no acknowledgement")
	}
	select {
	case err := <-done:
		t.Fatalf("the listen request was answered: %v", err)
	default:
	}
	cancel()
	<-done
	if !strings.Contains(ack, `"io.modelcontextprotocol/subscriptionId":31`) || len(p.sent) != 1 {
		t.Fatalf("sent on the listen stream: %v", p.sent)
	}
}

// A recording without the server's handshake cannot say what it is.
func TestMockNeedsAHandshake(t *testing.T) {
	rec := wire(t, "x",
		`out request +0 {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a"}}`,
		`in result +1 {"jsonrpc":"2.0","id":3,"result":{"content":[]}}`)
	if _, err := NewMock(rec, ""); err == nil || !strings.Contains(err.Error(), "no answered initialize or server/discover") {
		t.Fatalf("NewMock: %v", err)
	}
	if _, err := NewMock(rec, "y"); !errors.Is(err, ErrNoServer) {
		t.Fatalf("another server: %v", err)
	}
	two := wire(t, "a", strings.Split(legacyHandshake, "\n")...)
	two.Entries = append(two.Entries, wire(t, "b", strings.Split(legacyHandshake, "\n")...).Entries...)
	if _, err := NewMock(two, ""); !errors.Is(err, ErrSeveralServers) || !strings.Contains(err.Error(), "requests of a, b") {
		t.Fatalf("two servers, none named: %v", err)
	}
	if m, err := NewMock(two, "b"); err != nil || m.Server != "b" || m.Info.Name != "counter" {
		t.Fatalf("b of two: %+v %v", m, err)
	}
}
