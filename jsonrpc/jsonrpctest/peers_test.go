//go:build unix

package jsonrpctest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// These tests pin what the real modern peers (the TypeScript SDK v2 and
// go-sdk v1.8.0) answer to hand-written 2026-07-28 frames on a raw pipe,
// before the runtime relies on any of it.

// meta is a request envelope with the given version and capabilities.
func meta(version, caps string, extra ...string) string {
	m := `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + version + `","io.modelcontextprotocol/clientInfo":{"name":"wire","version":"0"},"io.modelcontextprotocol/clientCapabilities":` + caps
	for _, e := range extra {
		m += "," + e
	}
	return m + "}"
}

var (
	modernMeta = meta("2026-07-28", `{"elicitation":{"form":{}}}`)
	noCapsMeta = meta("2026-07-28", `{}`)
)

// stdioPeer names a modern peer on stdio, how to start it, and where it
// departs from the specification (pinned here, reported to the lead).
type stdioPeer struct {
	name       string
	start      func(t *testing.T) *fake
	modernOnly bool // rejects initialize
	cancelLog  string
	// The error code for a request without _meta on a modern connection
	// (the spec: -32602), for ask without the elicitation capability (the
	// spec: -32021) and for initialize on a modern connection; 0 means the
	// peer answers with a result instead.
	missingMeta, missingCap, initAfterModern int
	// answersCancelled: the peer answers a cancelled request with an error
	// (the spec: it should not answer at all).
	answersCancelled bool
	// prompts: the peer offers prompts (with listChanged), so a listen
	// asking for prompt list changes is granted them.
	prompts bool
}

func stdioPeers() []stdioPeer {
	ts := func(era jsonrpctest.Era) func(t *testing.T) *fake {
		return func(t *testing.T) *fake {
			path, args, env := jsonrpctest.TSServerStdio(t, era)
			return startCmd(t, path, args, env)
		}
	}
	return []stdioPeer{
		{name: "ts-dual", start: ts(jsonrpctest.DualEra), cancelLog: "cancelled ", missingMeta: -32602, missingCap: -32021, initAfterModern: -32022, prompts: true},
		{name: "ts-modern", start: ts(jsonrpctest.ModernEra), modernOnly: true, cancelLog: "cancelled ", missingMeta: -32602, missingCap: -32021, initAfterModern: -32022, prompts: true},
		// go-sdk v1.8.0 serves a request without _meta as a legacy one, runs
		// a tool that needs elicitation without checking the declared
		// capabilities, answers a late initialize with error code 0, and
		// answers a cancelled request with error code 0 "context canceled".
		{name: "gosdk", start: func(t *testing.T) *fake { return start(t, jsonrpctest.GoSDKModern) }, cancelLog: "cancelled slow", missingMeta: 0, missingCap: 0, initAfterModern: 0, answersCancelled: true},
	}
}

func errCode(t *testing.T, m wire, want int) {
	t.Helper()
	if m.Error == nil || m.Error.Code != want {
		t.Fatalf("response %s: result %s error %+v; want error %d", m.ID, truncate(m.Result), m.Error, want)
	}
}

// errData returns the error's data member, re-read from the raw line.
func errData(t *testing.T, f *fake, id int, method, params string) (int, json.RawMessage) {
	t.Helper()
	f.request(id, method, params)
	for {
		l := f.line()
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code int             `json:"code"`
				Data json.RawMessage `json:"data"`
			} `json:"error"`
		}
		if json.Unmarshal(l, &m) == nil && string(m.ID) == fmt.Sprint(id) {
			if m.Error == nil {
				t.Fatalf("%s %d answered %s, want an error", method, id, l)
			}
			return m.Error.Code, m.Error.Data
		}
	}
}

func TestPeerStdioTranscripts(t *testing.T) {
	for _, p := range stdioPeers() {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			f := p.start(t)

			// server/discover: the probe. A DiscoverResult with resultType.
			m := f.call(1, "server/discover", `{`+modernMeta+`}`)
			var d struct {
				SupportedVersions []string        `json:"supportedVersions"`
				Capabilities      json.RawMessage `json:"capabilities"`
				ResultType        string          `json:"resultType"`
				Meta              struct {
					ServerInfo *struct{ Name string } `json:"io.modelcontextprotocol/serverInfo"`
				} `json:"_meta"`
			}
			if m.Error != nil || json.Unmarshal(m.Result, &d) != nil || !slices.Contains(d.SupportedVersions, "2026-07-28") || d.ResultType != "complete" || !bytes.HasPrefix(d.Capabilities, []byte("{")) {
				t.Fatalf("server/discover = %s %+v", truncate(m.Result), m.Error)
			}
			if d.Meta.ServerInfo == nil || d.Meta.ServerInfo.Name == "" {
				t.Errorf("server/discover carries no serverInfo: %s", truncate(m.Result))
			}

			// An unknown version: -32022 naming what the server speaks.
			code, data := errData(t, f, 2, "server/discover", `{`+meta("2099-01-01", `{}`)+`}`)
			var uv struct {
				Supported []string `json:"supported"`
				Requested string   `json:"requested"`
			}
			if code != -32022 || json.Unmarshal(data, &uv) != nil || !slices.Contains(uv.Supported, "2026-07-28") || uv.Requested != "2099-01-01" {
				t.Errorf("server/discover 2099-01-01: code %d data %s; want -32022 with supported and requested", code, data)
			}

			// A modern request pins the connection; the tool with x-mcp-header is listed.
			m = f.call(3, "tools/list", `{`+modernMeta+`}`)
			if m.Error != nil || !bytes.Contains(m.Result, []byte(`"x-mcp-header":"Region"`)) || !bytes.Contains(m.Result, []byte(`"resultType":"complete"`)) {
				t.Fatalf("tools/list = %s %+v", truncate(m.Result), m.Error)
			}

			// No _meta on a modern connection: -32602.
			if m := f.call(4, "tools/list", `{}`); p.missingMeta != 0 {
				errCode(t, m, p.missingMeta)
			} else if m.Error != nil || bytes.Contains(m.Result, []byte(`"resultType"`)) {
				t.Errorf("%s: tools/list without _meta = %s %+v; pinned: a legacy-shaped result", p.name, truncate(m.Result), m.Error)
			}

			// ping is gone in 2026-07-28.
			errCode(t, f.call(5, "ping", `{`+modernMeta+`}`), -32601)

			// MRTR: input_required, then a retry with a new id, the answer and
			// the byte-exact requestState.
			f.request(6, "tools/call", `{"name":"ask","arguments":{},`+modernMeta+`}`)
			raw := rawResponse(t, f, 6)
			var ir struct {
				Result struct {
					ResultType    string `json:"resultType"`
					InputRequests map[string]struct {
						Method string `json:"method"`
					} `json:"inputRequests"`
					RequestState json.RawMessage `json:"requestState"`
				} `json:"result"`
			}
			if json.Unmarshal(raw, &ir) != nil || ir.Result.ResultType != "input_required" || ir.Result.InputRequests["who"].Method != "elicitation/create" || len(ir.Result.RequestState) < 3 || ir.Result.RequestState[0] != '"' {
				t.Fatalf("ask = %s; want input_required asking who with a requestState", raw)
			}
			state := string(ir.Result.RequestState)
			m = f.call(7, "tools/call", `{"name":"ask","arguments":{},"inputResponses":{"who":{"action":"accept","content":{"name":"octocat"}}},"requestState":`+state+`,`+modernMeta+`}`)
			if text, _ := toolText(t, m); text != "Hello, octocat!" {
				t.Errorf("ask retry = %q", text)
			}
			// A changed requestState is refused.
			// (Inside the payload: the last base64 character of a signature
			// may carry unused bits, so changing it can change nothing.)
			repl := byte('A')
			if state[5] == 'A' {
				repl = 'B'
			}
			changed := state[:5] + string(repl) + state[6:]
			errCode(t, f.call(8, "tools/call", `{"name":"ask","arguments":{},"inputResponses":{"who":{"action":"accept","content":{"name":"octocat"}}},"requestState":`+changed+`,`+modernMeta+`}`), -32602)
			// Elicitation not declared: -32021 naming it.
			if p.missingCap != 0 {
				code, data = errData(t, f, 9, "tools/call", `{"name":"ask","arguments":{},`+noCapsMeta+`}`)
				if code != p.missingCap || !bytes.Contains(data, []byte(`"requiredCapabilities":{"elicitation"`)) {
					t.Errorf("ask without elicitation: code %d data %s; want -32021 naming elicitation", code, data)
				}
			} else if m := f.call(9, "tools/call", `{"name":"ask","arguments":{},`+noCapsMeta+`}`); m.Error != nil || !bytes.Contains(m.Result, []byte(`"input_required"`)) {
				t.Errorf("%s: ask without elicitation = %s %+v; pinned: input_required regardless", p.name, truncate(m.Result), m.Error)
			}

			// listen: acknowledged, then list_changed with the subscriptionId.
			f.request(10, "subscriptions/listen", `{"notifications":{"toolsListChanged":true,"promptsListChanged":true},`+modernMeta+`}`)
			ack := f.next()
			if ack.Method != "notifications/subscriptions/acknowledged" || subID(ack) != "10" || !bytes.Contains(ack.Params, []byte(`"toolsListChanged":true`)) ||
				bytes.Contains(ack.Params, []byte(`"promptsListChanged":true`)) != p.prompts {
				t.Fatalf("listen 10 first got %s %s; want the acknowledgement with subscriptionId 10 granting tools, and prompts only if the peer offers them (%v)", ack.Method, ack.Params, p.prompts)
			}
			// The notification may come before or after the call's response.
			f.request(11, "tools/call", `{"name":"add_tool","arguments":{"name":"extra"},`+modernMeta+`}`)
			var changedNote *wire
			for answered := false; !answered || changedNote == nil; {
				w := f.next()
				switch {
				case w.Method == "" && string(w.ID) == "11":
					answered = true
					if text, _ := toolText(t, w); text != "added extra" {
						t.Errorf("add_tool = %q", text)
					}
				case w.Method == "notifications/tools/list_changed":
					changedNote = &w
				default:
					t.Fatalf("add_tool: unexpected %s %s", w.Method, w.ID)
				}
			}
			if subID(*changedNote) != "10" {
				t.Errorf("notifications/tools/list_changed %s; want subscriptionId 10", changedNote.Params)
			}
			var skipped []wire

			// Progress on the request's own stream.
			m, skipped = callSkipping(f, 12, "tools/call", `{"name":"slow","arguments":{"seconds":0.3},`+meta("2026-07-28", `{}`, `"progressToken":"p12"`)+`}`)
			if text, _ := toolText(t, m); !strings.HasPrefix(text, "slept") {
				t.Errorf("slow = %q", text)
			}
			if n := countProgress(skipped, `"p12"`); n == 0 {
				t.Errorf("slow with a progress token: no notifications/progress among %v", methods(skipped))
			}

			// Logs at the level asked for, and none without one.
			_, skipped = callSkipping(f, 13, "tools/call", `{"name":"log","arguments":{"message":"m"},`+meta("2026-07-28", `{}`, `"io.modelcontextprotocol/logLevel":"warning"`)+`}`)
			if got := levels(skipped); !slices.Equal(got, []string{"warning", "error"}) {
				t.Errorf("log at warning delivered %v; want warning, error", got)
			}
			_, skipped = callSkipping(f, 14, "tools/call", `{"name":"log","arguments":{"message":"m"},`+modernMeta+`}`)
			if got := levels(skipped); len(got) != 0 {
				t.Errorf("log without a logLevel delivered %v; want none", got)
			}

			// Cancellation: notifications/cancelled stops the running call
			// (proven running by its first progress notification).
			f.request(15, "tools/call", `{"name":"slow","arguments":{"seconds":20},`+meta("2026-07-28", `{}`, `"progressToken":"p15"`)+`}`)
			for w := f.next(); w.Method != "notifications/progress"; w = f.next() {
				t.Fatalf("slow 15: %s %s before any progress", w.Method, w.ID)
			}
			f.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":15,"reason":"test"}}`)
			f.stderrLine(p.cancelLog)
			_, skipped = callSkipping(f, 16, "tools/call", `{"name":"echo","arguments":{"text":"after"},`+modernMeta+`}`)
			for _, w := range skipped {
				if string(w.ID) != "15" {
					continue
				}
				if !p.answersCancelled {
					t.Errorf("the cancelled call was answered: %+v", w)
				} else if w.Error == nil {
					t.Errorf("%s: the cancelled call was answered with a result", p.name)
				}
			}

			// initialize on a modern connection (or a modern-only server): -32022.
			code, data = errData(t, f, 17, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wire","version":"0"}}`)
			if code != p.initAfterModern || (code == -32022 && !bytes.Contains(data, []byte(`"supported":["2026-07-28"]`))) {
				t.Errorf("initialize on a modern connection: %d %s; want %d", code, data, p.initAfterModern)
			}
		})
	}
}

// TestPeerStdioLegacyOpening pins how each peer answers a legacy client:
// the dual-era ones initialize, the modern-only one names its versions.
func TestPeerStdioLegacyOpening(t *testing.T) {
	for _, p := range stdioPeers() {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			f := p.start(t)
			f.request(1, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wire","version":"0"}}`)
			raw := rawResponse(t, f, 1)
			if p.modernOnly {
				if !bytes.Contains(raw, []byte(`"code":-32022`)) || !bytes.Contains(raw, []byte(`"supported":["2026-07-28"]`)) {
					t.Errorf("initialize on a modern-only server = %s; want -32022 listing 2026-07-28", raw)
				}
				return
			}
			if !bytes.Contains(raw, []byte(`"protocolVersion":"2025-11-25"`)) {
				t.Errorf("initialize on a dual-era server = %s; want the 2025-11-25 handshake", raw)
			}
		})
	}
}

// rawResponse returns the raw line of the response with id.
func rawResponse(t *testing.T, f *fake, id int) []byte {
	t.Helper()
	for {
		l := f.line()
		var m wire
		if json.Unmarshal(l, &m) == nil && m.Method == "" && string(m.ID) == fmt.Sprint(id) {
			return l
		}
	}
}

func callSkipping(f *fake, id int, method, params string) (wire, []wire) {
	f.t.Helper()
	f.request(id, method, params)
	return f.response(fmt.Sprint(id))
}

// subID returns the compact subscriptionId in a message's _meta.
func subID(w wire) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(w.Params, &p)
	return string(p.Meta["io.modelcontextprotocol/subscriptionId"])
}

func methods(ws []wire) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Method)
	}
	return out
}

func countProgress(ws []wire, token string) int {
	n := 0
	for _, w := range ws {
		if w.Method == "notifications/progress" && bytes.Contains(w.Params, []byte(`"progressToken":`+token)) {
			n++
		}
	}
	return n
}

func levels(ws []wire) []string {
	var out []string
	for _, w := range ws {
		if w.Method == "notifications/message" {
			var p struct{ Level string }
			_ = json.Unmarshal(w.Params, &p)
			out = append(out, p.Level)
		}
	}
	return out
}
