package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// initFailServer is a stdio MCP server (node, no SDK) that answers every
// request, initialize first, with the JSON-RPC error an SDK server sends
// when its handler throws: -32603 "Internal server error".
const initFailServer = `
const rl = require('node:readline').createInterface({ input: process.stdin });
rl.on('line', line => {
  const m = JSON.parse(line);
  if (m.id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: 'Internal server error' } }) + '\n');
});
`

// A failed server was named twice: 'server "adhoc" has failed: adhoc:
// Internal server error' (the face's sentence, then ErrorInfo.Error's
// prefix). Every face says it once: call's message, its --json message,
// servers' table and --json error, and the failure servers reports. The
// request refused is named (initialize), once too.
func TestFailedServerIsNamedOnce(t *testing.T) {
	node, _ := jsonrpctest.Everything(t)
	script := filepath.Join(t.TempDir(), "server.cjs")
	if err := os.WriteFile(script, []byte(initFailServer), 0o600); err != nil {
		t.Fatal(err)
	}
	stdio := node + " " + script
	h := newHeadless(t, nil)
	twice := "adhoc: Internal server error"

	r := h.run(t, "", "call", "--stdio", stdio, "x")
	wantCode(t, r, ExitConnection)
	if !strings.Contains(r.stderr, `server "adhoc" has failed: initialize: Internal server error`) || strings.Contains(r.stderr, twice) {
		t.Errorf("call's error should name adhoc once:\n%s", r.stderr)
	}
	r = h.run(t, "", "call", "--stdio", stdio, "x", "--json")
	var out struct {
		Error struct{ Message, Server string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("call --json: %v\n%s", err, r.stdout)
	}
	if out.Error.Message != `server "adhoc" has failed: initialize: Internal server error` || out.Error.Server != "adhoc" {
		t.Errorf("call --json's error: %+v", out.Error)
	}

	r = h.run(t, "", "servers", "--stdio", stdio)
	if strings.Contains(r.stdout, twice) || strings.Contains(r.stderr, twice) || !strings.Contains(r.stdout, "Internal server error") {
		t.Errorf("servers should name adhoc once (the NAME column, the failure's sentence):\n%s%s", r.stdout, r.stderr)
	}
	r = h.run(t, "", "servers", "--stdio", stdio, "--json")
	var list struct {
		Servers []struct{ Name, Error string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list.Servers) != 1 {
		t.Fatalf("servers --json: %v\n%s", err, r.stdout)
	}
	if got := list.Servers[0]; got.Name != "adhoc" || got.Error != "initialize: Internal server error" {
		t.Errorf("servers --json: %+v, want the error without the name its object has", got)
	}
}
