package mcp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func decodeMap(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return m
}

func TestEnvelopeMeta(t *testing.T) {
	env := Envelope{
		Version:       LatestModern,
		Capabilities:  ClientCapabilities{Elicitation: &ElicitationCapability{Form: &Empty{}}},
		ClientInfo:    &Implementation{Name: "mcpdeck", Version: "1.2.3"},
		LogLevel:      "warning",
		ProgressToken: 7,
		Trace:         map[string]string{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01", "x-other": "dropped"},
	}
	raw, err := env.Params(map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	got := decodeMap(t, raw)
	want := decodeMap(t, []byte(`{"name":"echo","arguments":{"text":"hi"},"_meta":{
		"io.modelcontextprotocol/protocolVersion":"2026-07-28",
		"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},
		"io.modelcontextprotocol/clientInfo":{"name":"mcpdeck","version":"1.2.3"},
		"io.modelcontextprotocol/logLevel":"warning",
		"progressToken":7,
		"traceparent":"00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"}}`))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("params =\n%s\nwant\n%v", raw, want)
	}
}

func TestEnvelopeMinimal(t *testing.T) {
	// No capabilities is {}, never absent: the key is required.
	raw, err := Envelope{Version: LatestModern}.Params(nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`; string(raw) != want {
		t.Errorf("params = %s, want %s", raw, want)
	}
}

func TestEnvelopeKeepsCallerMeta(t *testing.T) {
	env := Envelope{Version: LatestModern}
	for name, params := range map[string]any{
		"map": map[string]any{"uri": "file:///x", "_meta": map[string]any{"com.example/tag": "a", MetaProtocolVersion: "1999-01-01"}},
		"raw": json.RawMessage(`{"uri":"file:///x","_meta":{"com.example/tag":"a","io.modelcontextprotocol/protocolVersion":"1999-01-01"}}`),
		"struct": struct {
			URI  string         `json:"uri"`
			Meta map[string]any `json:"_meta"`
		}{"file:///x", map[string]any{"com.example/tag": "a"}},
	} {
		raw, err := env.Params(params)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		meta := decodeMap(t, raw)["_meta"].(map[string]any)
		if meta["com.example/tag"] != "a" || meta[MetaProtocolVersion] != LatestModern {
			t.Errorf("%s: _meta = %v; want the caller's key kept and the envelope's version winning", name, meta)
		}
	}
	if _, err := env.Params(json.RawMessage(`[1]`)); err == nil {
		t.Error("an array as params was accepted")
	}
}

func TestCapabilitiesHas(t *testing.T) {
	c := ClientCapabilities{Elicitation: &ElicitationCapability{}, Extensions: map[string]json.RawMessage{ExtensionTasks: json.RawMessage(`{}`)}}
	if !c.Has(MethodElicit) || c.Has(MethodSample) || c.Has(MethodListRoots) || !c.Tasks() {
		t.Errorf("Has/Tasks wrong for %+v", c)
	}
	b, _ := json.Marshal(c)
	if string(b) != `{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}` {
		t.Errorf("capabilities marshal as %s", b)
	}
}

func TestParseLogLevel(t *testing.T) {
	if l, err := ParseLogLevel("notice"); err != nil || l != "notice" {
		t.Errorf("ParseLogLevel(notice) = %q, %v", l, err)
	}
	if _, err := ParseLogLevel("verbose"); err == nil || !strings.Contains(err.Error(), "debug") {
		t.Errorf("ParseLogLevel(verbose) error = %v, want one listing the levels", err)
	}
}

func BenchmarkEnvelopeApply(b *testing.B) {
	env := Envelope{Version: LatestModern, ClientInfo: &Implementation{Name: "mcpdeck", Version: "1"}}
	b.ReportAllocs()
	for b.Loop() {
		p := env.Apply(map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}})
		if _, err := json.Marshal(p); err != nil {
			b.Fatal(err)
		}
	}
}

func TestEncoded(t *testing.T) {
	env := Envelope{Version: LatestModern, Capabilities: ClientCapabilities{Roots: &RootsCapability{}}, ClientInfo: &Implementation{Name: "mcpdeck", Version: "1"}, LogLevel: "info"}
	enc, err := env.Encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, token := range []any{nil, 7, "tok"} {
		fast, _ := json.Marshal(enc.Apply(map[string]any{"name": "echo"}, token))
		env.ProgressToken = token
		slow, _ := env.Params(map[string]any{"name": "echo"})
		if !reflect.DeepEqual(decodeMap(t, fast), decodeMap(t, slow)) {
			t.Errorf("token %v: Encoded.Apply = %s, Envelope.Params = %s", token, fast, slow)
		}
	}
	merged, _ := json.Marshal(enc.Apply(map[string]any{"_meta": map[string]any{"com.example/x": 1, MetaProtocolVersion: "old"}}, nil))
	meta := decodeMap(t, merged)["_meta"].(map[string]any)
	if meta["com.example/x"] != float64(1) || meta[MetaProtocolVersion] != LatestModern || meta[MetaLogLevel] != "info" {
		t.Errorf("merged _meta = %v", meta)
	}
}

func TestEncodedMarshal(t *testing.T) {
	enc, err := Envelope{Version: LatestModern, ClientInfo: &Implementation{Name: "t", Version: "1"}}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	check := func(raw json.RawMessage, wantKeys ...string) map[string]json.RawMessage {
		t.Helper()
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("not JSON: %s: %v", raw, err)
		}
		for _, k := range wantKeys {
			if _, ok := m[k]; !ok {
				t.Errorf("%s lacks %s", raw, k)
			}
		}
		return m
	}
	raw, err := enc.Marshal(map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}, "tok")
	if err != nil {
		t.Fatal(err)
	}
	m := check(raw, "name", "arguments", "_meta")
	if !strings.Contains(string(m["_meta"]), `"progressToken":"tok"`) || !strings.Contains(string(m["_meta"]), MetaProtocolVersion) {
		t.Errorf("_meta %s", m["_meta"])
	}
	raw, _ = enc.Marshal(nil, nil)
	if m := check(raw, "_meta"); len(m) != 1 || strings.Contains(string(m["_meta"]), "progressToken") {
		t.Errorf("nil params: %s", raw)
	}
	// A caller's own _meta keys are kept; the caller's map is not changed.
	params := map[string]any{"uri": "x", "_meta": map[string]any{"traceparent": "00-a-b-01"}}
	raw, _ = enc.Marshal(params, nil)
	if m := check(raw, "uri", "_meta"); !strings.Contains(string(m["_meta"]), "traceparent") || !strings.Contains(string(m["_meta"]), MetaClientInfo) {
		t.Errorf("merged _meta %s", m["_meta"])
	}
	if _, isMap := params["_meta"].(map[string]any); !isMap {
		t.Error("Marshal changed the caller's params")
	}
}
