package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mcpdeck/jsonrpc/jsonrpctest"
)

// minus32000Server is a stdio MCP server (node, no SDK) whose tools/call
// answers a JSON-RPC error -32000, the code many servers use for their own
// failures.
const minus32000Server = `
const rl = require('node:readline').createInterface({ input: process.stdin });
const send = m => process.stdout.write(JSON.stringify(m) + '\n');
rl.on('line', line => {
  const m = JSON.parse(line);
  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'e32000', version: '1' } } });
  else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'boom', inputSchema: { type: 'object' } }] } });
  else if (m.method === 'tools/call') send({ jsonrpc: '2.0', id: m.id, error: { code: -32000, message: 'database unavailable' } });
  else if (m.id !== undefined) send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
});
`

// A stdio server's own -32000 was taken for a failed HTTP exchange: "the
// HTTP exchange failed: check the url", and bench counted it as transport
// (found by qa3). It is the server's protocol error, advised as one.
func TestServerMinus32000OverStdioIsTheServers(t *testing.T) {
	node, _ := jsonrpctest.Everything(t)
	script := filepath.Join(t.TempDir(), "server.cjs")
	if err := os.WriteFile(script, []byte(minus32000Server), 0o600); err != nil {
		t.Fatal(err)
	}
	h := newHeadless(t, nil)
	r := h.run(t, "", "call", "--stdio", node+" "+script, "boom")
	wantCode(t, r, ExitConnection)
	if !strings.Contains(r.stderr, "database unavailable") || strings.Contains(r.stderr, "HTTP") {
		t.Errorf("stderr should quote the server's error and say nothing of HTTP:\n%s", r.stderr)
	}
	r = h.run(t, "", "bench", "--stdio", node+" "+script, "boom", "-n", "2", "--json")
	if !strings.Contains(r.stderr, "database unavailable") || strings.Contains(r.stderr, "HTTP") {
		t.Errorf("bench's warm-up error should quote the server and say nothing of HTTP:\n%s", r.stderr)
	}
}
