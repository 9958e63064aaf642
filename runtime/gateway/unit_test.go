package gateway

import (
	"encoding/json"
	"strings"
	"testing"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime"
	"mcpdeck/runtime/mcp"
)

func TestCompileTemplate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tmpl, uri string
		match     bool
	}{
		{"demo://greeting/{name}", "demo://greeting/Ada", true},
		{"demo://greeting/{name}", "demo://greeting/Ada/more", false},
		{"file:///{+path}", "file:///a/b/c.txt", true},
		{"db://{table}/rows{?limit}", "db://users/rows?limit=3", true},
		{"x://a.b/{id}", "x://aXb/1", false}, // the dot is literal
	} {
		re := compileTemplate(tc.tmpl)
		if re == nil || re.MatchString(tc.uri) != tc.match {
			t.Errorf("%s ~ %s: want %v", tc.tmpl, tc.uri, tc.match)
		}
	}
	if compileTemplate("broken://{x") != nil {
		t.Error("an unterminated expression compiled")
	}
}

func TestParseEnvelope(t *testing.T) {
	t.Parallel()
	meta := func(s string) json.RawMessage { return json.RawMessage(`{"name":"x","_meta":{` + s + `}}`) }
	env, tok, err := parseEnvelope(meta(`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/logLevel":"debug","progressToken":7`))
	if err != nil || env == nil || env.logLevel != "debug" || !env.caps.Has(mcp.MethodElicit) || string(tok) != "7" {
		t.Fatalf("a full envelope: %+v %s %v", env, tok, err)
	}
	if env, tok, err := parseEnvelope(meta(`"progressToken":"p"`)); env != nil || err != nil || string(tok) != `"p"` {
		t.Fatalf("a legacy _meta: %+v %s %v", env, tok, err)
	}
	for body, code := range map[string]int64{
		`"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}`:                                           mcp.CodeUnsupportedVersion,
		`"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}`:                                           mcp.CodeUnsupportedVersion,
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28"`:                                                                                           -32602,
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"`: -32602,
	} {
		_, _, err := parseEnvelope(meta(body))
		if e := rpcOf(err); e == nil || e.Code != code {
			t.Errorf("%s: %v, want code %d", body, err, code)
		}
	}
}

func TestHeaderValues(t *testing.T) {
	t.Parallel()
	if v, ok := decodeHeaderValue("=?base64?SGVsbG8sIOS4lueVjA==?="); !ok || v != "Hello, 世界" {
		t.Errorf("base64: %q %v", v, ok)
	}
	if _, ok := decodeHeaderValue("bad\x01value"); ok {
		t.Error("a control character passed")
	}
	args := json.RawMessage(`{"a":{"b":42},"s":"x","f":true,"n":null}`)
	for path, want := range map[string]string{"a.b": "42/number", "s": "x/string", "f": "true/boolean"} {
		v, kind, ok := argumentAt(args, strings.Split(path, "."))
		if !ok || v+"/"+kind != want {
			t.Errorf("%s: %s/%s %v", path, v, kind, ok)
		}
	}
	if _, _, ok := argumentAt(args, []string{"n"}); ok {
		t.Error("null is present")
	}
	if !sameNumber("42.0", "42") || sameNumber("41", "42") {
		t.Error("numbers compare wrongly")
	}
}

func TestInstructions(t *testing.T) {
	t.Parallel()
	snap := &runtime.Snapshot{Enabled: true, Servers: []runtime.ServerSnapshot{
		{Name: "a", State: runtime.StateReady, Instructions: "Use a for apples.", ServerInfo: runtime.Implementation{Name: "apple-server"}},
		{Name: "b", State: runtime.StateReady},
		{Name: "c", State: runtime.StateFailed, Instructions: "never shown"},
	}}
	cat := buildCatalog(snap)
	got := cat.instructions(newPolicy(nil, ""))
	if !strings.Contains(got, "2 MCP server(s) at once: a, b") || !strings.Contains(got, "## a (apple-server)\n\nUse a for apples.") || strings.Contains(got, "never shown") {
		t.Fatalf("instructions:\n%s", got)
	}
	snap.Enabled = false
	if got := buildCatalog(snap).instructions(newPolicy(nil, "")); !strings.Contains(got, "switched off") {
		t.Fatalf("instructions when off: %s", got)
	}
}

func rpcOf(err error) *jsonrpc.Error {
	e, _ := err.(*jsonrpc.Error)
	return e
}
