package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// ownMembersServer is a bare JSON-RPC server over stdio whose tools/call
// result carries members of its own beside the specification's.
const ownMembersServer = `
const rl = require('readline').createInterface({input: process.stdin});
const send = (m) => process.stdout.write(JSON.stringify(Object.assign({jsonrpc: '2.0'}, m)) + '\n');
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  switch (m.method) {
  case 'initialize':
    return send({id: m.id, result: {protocolVersion: m.params.protocolVersion, capabilities: {tools: {}}, serverInfo: {name: 'own-members', version: '1'}}});
  case 'tools/list':
    return send({id: m.id, result: {tools: [{name: 'priced', inputSchema: {type: 'object'}}]}});
  case 'tools/call':
    return send({id: m.id, result: {content: [{type: 'text', text: 'ok'}], cost: {usd: 0.25, tokens: [1, 2]}, _meta: {k: 1}, trace: 'abc'}});
  case 'ping':
    return send({id: m.id, result: {}});
  }
  send({id: m.id, error: {code: -32601, message: 'method not found: ' + m.method}});
});
`

// TestCallJSONKeepsTheServersOwnMembers: call --json is promised
// faithful: a result's top-level members outside the specification are
// printed as the server sent them, beside _meta.
func TestCallJSONKeepsTheServersOwnMembers(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on PATH; it runs the test's server")
	}
	script := filepath.Join(t.TempDir(), "server.js")
	if err := os.WriteFile(script, []byte(ownMembersServer), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHeadless(t, map[string]map[string]any{"own": {"command": node, "args": []string{script}}})
	r := h.run(t, "", "call", "own", "priced", "--json")
	wantCode(t, r, ExitOK)
	var out map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("stdout is not a JSON object (%v):\n%s", err, r.stdout)
	}
	for k, want := range map[string]string{"cost": `{"usd":0.25,"tokens":[1,2]}`, "trace": `"abc"`, "_meta": `{"k":1}`} {
		var got bytes.Buffer
		if json.Compact(&got, out[k]) != nil || got.String() != want {
			t.Errorf("call --json printed %s as %s, want %s:\n%s", k, out[k], want, r.stdout)
		}
	}
}
