//go:build unix

package jsonrpctest_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"mcpdeck/jsonrpc/jsonrpctest"
)

func TestModernFake(t *testing.T) {
	t.Parallel()
	f := start(t, jsonrpctest.Modern)
	m := f.call(1, "server/discover", `{`+modernMeta+`}`)
	if m.Error != nil || !bytes.Contains(m.Result, []byte(`"supportedVersions":["2026-07-28"]`)) || !bytes.Contains(m.Result, []byte(`"resultType":"complete"`)) || !bytes.Contains(m.Result, []byte(`"ttlMs":60000`)) {
		t.Fatalf("server/discover = %s %+v", m.Result, m.Error)
	}
	errCode(t, f.call(2, "tools/list", `{}`), -32602)
	code, data := errData(t, f, 3, "tools/list", `{`+meta("2099-01-01", `{}`)+`}`)
	if code != -32022 || string(data) != `{"requested":"2099-01-01","supported":["2026-07-28"]}` {
		t.Errorf("unsupported version: %d %s", code, data)
	}
	code, data = errData(t, f, 4, "initialize", `{"protocolVersion":"2025-11-25"}`)
	if code != -32022 || !strings.Contains(string(data), `"supported":["2026-07-28"]`) {
		t.Errorf("initialize: %d %s", code, data)
	}
	errCode(t, f.call(5, "ping", `{`+modernMeta+`}`), -32601)

	// MRTR with the tricky state: accepted only byte for byte.
	f.request(6, "tools/call", `{"name":"ask",`+modernMeta+`}`)
	if raw := rawResponse(t, f, 6); !bytes.Contains(raw, []byte(`"requestState":`+jsonrpctest.ModernState)) {
		t.Fatalf("ask = %s; want the state %s as sent", raw, jsonrpctest.ModernState)
	}
	m = f.call(7, "tools/call", `{"name":"ask","inputResponses":{"who":{"action":"accept","content":{"name":"octocat"}}},"requestState":`+jsonrpctest.ModernState+`,`+modernMeta+`}`)
	if text, _ := toolText(t, m); text != "Hello, octocat!" {
		t.Errorf("retry = %q", text)
	}
	// The same value re-encoded (é raw, / unescaped) is the same state, as
	// the TypeScript SDK v2 client sends it; a changed value is refused.
	reencoded, _ := json.Marshal(mustString(jsonrpctest.ModernState))
	m = f.call(8, "tools/call", `{"name":"ask","inputResponses":{"who":{"action":"accept","content":{"name":"tsclient"}}},"requestState":`+string(reencoded)+`,`+modernMeta+`}`)
	if text, _ := toolText(t, m); text != "Hello, tsclient!" {
		t.Errorf("retry with the state re-encoded = %q", text)
	}
	changed, _ := json.Marshal(strings.Replace(mustString(jsonrpctest.ModernState), "é", "e", 1))
	errCode(t, f.call(18, "tools/call", `{"name":"ask","inputResponses":{"who":{"action":"accept","content":{"name":"octocat"}}},"requestState":`+string(changed)+`,`+modernMeta+`}`), -32602)
	code, data = errData(t, f, 9, "tools/call", `{"name":"ask",`+noCapsMeta+`}`)
	if code != -32021 || !strings.Contains(string(data), `"requiredCapabilities":{"elicitation"`) {
		t.Errorf("ask without elicitation: %d %s", code, data)
	}

	// listen, list change, logs, progress, cancellation.
	f.request(10, "subscriptions/listen", `{"notifications":{"toolsListChanged":true,"promptsListChanged":true},`+modernMeta+`}`)
	if ack := f.next(); ack.Method != "notifications/subscriptions/acknowledged" || subID(ack) != "10" || !bytes.Contains(ack.Params, []byte(`{"toolsListChanged":true}`)) {
		t.Fatalf("listen: %s %s", ack.Method, ack.Params)
	}
	_, skipped := callSkipping(f, 11, "tools/call", `{"name":"notify_changed",`+modernMeta+`}`)
	if len(skipped) != 1 || skipped[0].Method != "notifications/tools/list_changed" || subID(skipped[0]) != "10" {
		t.Errorf("notify_changed: %v", methods(skipped))
	}
	_, skipped = callSkipping(f, 12, "tools/call", `{"name":"log","arguments":{"message":"m"},`+meta("2026-07-28", `{}`, `"io.modelcontextprotocol/logLevel":"info"`)+`}`)
	if got := levels(skipped); !slices.Equal(got, []string{"info", "warning", "error"}) {
		t.Errorf("log at info: %v", got)
	}
	errCode(t, f.call(13, "tools/call", `{"name":"log","arguments":{"message":"m"},`+meta("2026-07-28", `{}`, `"io.modelcontextprotocol/logLevel":"loud"`)+`}`), -32602)
	_, skipped = callSkipping(f, 14, "tools/call", `{"name":"slow","arguments":{"seconds":0.2},`+meta("2026-07-28", `{}`, `"progressToken":"t14"`)+`}`)
	if countProgress(skipped, `"t14"`) == 0 {
		t.Errorf("slow: no progress in %v", methods(skipped))
	}
	f.request(15, "tools/call", `{"name":"slow","arguments":{"seconds":30},`+modernMeta+`}`)
	f.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":15,"reason":"test"}}`)
	f.stderrLine("cancelled 15 test")
	f.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10,"reason":"done listening"}}`)
	f.stderrLine("cancelled 10")
	_, skipped = callSkipping(f, 16, "tools/call", `{"name":"notify_changed",`+modernMeta+`}`)
	if len(skipped) != 0 {
		t.Errorf("after cancelling both: %v %s", methods(skipped), skipped[0].ID)
	}
}

func mustString(token string) string {
	var s string
	if err := json.Unmarshal([]byte(token), &s); err != nil {
		panic(err)
	}
	return s
}

func TestModernFakeDefects(t *testing.T) {
	t.Parallel()
	t.Run("no resultType", func(t *testing.T) {
		f := start(t, jsonrpctest.ModernNoResultType)
		m := f.call(1, "tools/call", `{"name":"echo","arguments":{"text":"x"},`+modernMeta+`}`)
		if m.Error != nil || bytes.Contains(m.Result, []byte("resultType")) {
			t.Errorf("echo = %s %+v; want a result without resultType", m.Result, m.Error)
		}
	})
	t.Run("changed state", func(t *testing.T) {
		f := start(t, jsonrpctest.ModernChangedState)
		f.call(1, "tools/call", `{"name":"ask",`+modernMeta+`}`)
		errCode(t, f.call(2, "tools/call", `{"name":"ask","inputResponses":{"who":{"action":"accept","content":{"name":"a"}}},"requestState":`+jsonrpctest.ModernState+`,`+modernMeta+`}`), -32602)
	})
	t.Run("endless input", func(t *testing.T) {
		f := start(t, jsonrpctest.ModernEndlessInput)
		for i := 1; i <= 3; i++ {
			m := f.call(i, "tools/call", `{"name":"ask","inputResponses":{"who":{"action":"accept","content":{"name":"a"}}},"requestState":"x",`+modernMeta+`}`)
			if !bytes.Contains(m.Result, []byte(`"resultType":"input_required"`)) {
				t.Fatalf("round %d: %s", i, m.Result)
			}
		}
	})
	t.Run("no common version", func(t *testing.T) {
		f := start(t, jsonrpctest.ModernNoCommonVersion)
		code, data := errData(t, f, 1, "server/discover", `{`+modernMeta+`}`)
		if code != -32022 || !strings.Contains(string(data), `"supported":["2099-01-01"]`) {
			t.Errorf("discover: %d %s", code, data)
		}
	})
	t.Run("listen never acknowledged", func(t *testing.T) {
		f := start(t, jsonrpctest.ModernListenNoAck)
		f.request(1, "subscriptions/listen", `{"notifications":{"toolsListChanged":true},`+modernMeta+`}`)
		_, skipped := callSkipping(f, 2, "server/discover", `{`+modernMeta+`}`)
		if len(skipped) != 0 {
			t.Errorf("listen produced %v", methods(skipped))
		}
	})
	t.Run("legacy silent on discover", func(t *testing.T) {
		f := start(t, jsonrpctest.LegacySilentDiscover)
		f.request(1, "server/discover", `{`+modernMeta+`}`)
		// Ordered stdout: an answer to 1 would come before initialize's.
		m, skipped := callSkipping(f, 2, "initialize", `{"protocolVersion":"2025-11-25"}`)
		if m.Error != nil || len(skipped) != 0 {
			t.Errorf("initialize after a silent probe: %+v, %d before it", m.Error, len(skipped))
		}
	})
	t.Run("dual-era, discover answered late", func(t *testing.T) {
		f := start(t, jsonrpctest.DualLateDiscover)
		f.request(1, "server/discover", `{`+modernMeta+`}`)
		m, skipped := callSkipping(f, 2, "initialize", `{"protocolVersion":"2025-11-25"}`)
		if m.Error != nil || len(skipped) != 0 {
			t.Fatalf("initialize: %+v, %d before it; want it answered first", m.Error, len(skipped))
		}
		m, skipped = callSkipping(f, 3, "tools/list", `{}`)
		if m.Error != nil || len(skipped) != 1 || string(skipped[0].ID) != "1" || !strings.Contains(string(skipped[0].Result), "supportedVersions") {
			t.Fatalf("tools/list: %+v, after %v; want the discovery result (id 1) just before it", m.Error, methods(skipped))
		}
	})
	t.Run("dual-era, discover alone", func(t *testing.T) {
		f := start(t, jsonrpctest.DualLateDiscover, jsonrpctest.WithDelay(10*time.Millisecond))
		if m := f.call(1, "server/discover", `{`+modernMeta+`}`); m.Error != nil || !strings.Contains(string(m.Result), "supportedVersions") {
			t.Fatalf("discover: %+v %s", m.Error, m.Result)
		}
		if m := f.call(2, "tools/list", `{`+modernMeta+`}`); m.Error != nil || !strings.Contains(string(m.Result), `"resultType"`) {
			t.Fatalf("a modern tools/list: %+v %s", m.Error, m.Result)
		}
	})
	t.Run("legacy -32601 on discover", func(t *testing.T) {
		errCode(t, start(t, jsonrpctest.Normal).call(1, "server/discover", `{`+modernMeta+`}`), -32601)
	})
	t.Run("legacy -32602 before initialize", func(t *testing.T) {
		f := start(t, jsonrpctest.LegacyDiscoverInvalidParams)
		errCode(t, f.call(1, "server/discover", `{`+modernMeta+`}`), -32602)
		f.initialize()
		errCode(t, f.call(2, "server/discover", `{`+modernMeta+`}`), -32601)
	})
}
