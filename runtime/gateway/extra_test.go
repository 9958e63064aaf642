package gateway

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"mcpdeck/config"
)

// envOwn makes the test binary a bare session-era JSON-RPC server on
// stdio whose tools/call result carries members of its own beside the
// specification's ("cost", "trace"), as ui/cli's ownMembersServer does
// in Node.
const envOwn = "MCPDECK_GATEWAY_TEST_OWN"

func maybeServeOwn() {
	if os.Getenv(envOwn) != "1" {
		return
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		var result string
		switch m.Method {
		case "initialize":
			result = `{"protocolVersion":"` + m.Params.ProtocolVersion + `","capabilities":{"tools":{}},"serverInfo":{"name":"own-members","version":"1"}}`
		case "tools/list":
			result = `{"tools":[{"name":"priced","inputSchema":{"type":"object"}}]}`
		case "tools/call":
			result = `{"content":[{"type":"text","text":"ok"}],"cost":{"usd":0.25,"tokens":[1,2]},"_meta":{"k":1},"trace":"abc"}`
		case "ping":
			result = `{}`
		default:
			os.Stdout.WriteString(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"method not found"}}` + "\n")
			continue
		}
		os.Stdout.WriteString(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + "}\n")
	}
	os.Exit(0)
}

// TestGatewayKeepsTheServersOwnMembers: a result's top-level members
// outside the specification (a server's cost, its trace), which the
// runtime keeps (runtime.Result.Extra), reach the gateway's clients as
// the server sent them, in either era, beside _meta.
func TestGatewayKeepsTheServersOwnMembers(t *testing.T) {
	t.Parallel()
	exe, _ := os.Executable()
	rt := newRuntime(t, config.Server{Name: "own", Transport: config.TransportStdio, Command: exe, Args: []string{"-test.run=^$"},
		Env: map[string]string{envOwn: "1", "GORACE": "atexit_sleep_ms=0"}, Enabled: true, StartupTimeout: 20 * time.Second, CallTimeout: 20 * time.Second})
	g := newGateway(t, rt, Options{})
	want := map[string]string{"cost": `{"usd":0.25,"tokens":[1,2]}`, "trace": `"abc"`, "_meta": `{"k":1}`}
	check := func(era string, raw json.RawMessage) {
		t.Helper()
		var res map[string]json.RawMessage
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatalf("%s client: the result is not an object: %s", era, raw)
		}
		for k, v := range want {
			got := res[k]
			if k == "_meta" && era == "modern" {
				var meta map[string]json.RawMessage
				_ = json.Unmarshal(got, &meta)
				got = meta["k"]
				v = "1"
			}
			var b bytes.Buffer
			if json.Compact(&b, got) != nil || b.String() != v {
				t.Errorf("%s client: %s is %s, want %s; the result: %s", era, k, got, v, raw)
			}
		}
	}

	conn := legacyConn(t, g, `{}`, nil)
	raw, err := conn.Call(ctxFor(t, 20*time.Second), "tools/call", map[string]any{"name": "own__priced", "arguments": map[string]any{}})
	if err != nil {
		t.Fatalf("legacy tools/call: %v", err)
	}
	check("legacy", raw)

	url := serveHTTP(t, g)
	resp := rawPost(t, url, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"own__priced","arguments":{},`+modernMeta(`{}`)+`}}`,
		modernHeaders("tools/call", "own__priced")...)
	a := decodeAnswer(t, resp)
	if a.Error != nil {
		t.Fatalf("modern tools/call: %+v", a.Error)
	}
	check("modern", a.Result)
}
