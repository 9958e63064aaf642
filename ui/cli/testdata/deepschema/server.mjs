// A stdio MCP server (session era) whose one tool, "deep", has an input
// schema nested DEPTH objects deep (two JSON levels each): the hostile
// shape TestToolsJSONBoundsAHostileSchema lists. It is Node, not the race-
// built test binary, because the test reads mcpdeck's peak memory from
// wait4, which counts the reaped server too: Node's own is small and steady.
import { createInterface } from "node:readline";

const depth = Number(process.env.DEPTH || "4900");
const deep = '{"type":"object","properties":{"a":'.repeat(depth) + '{"type":"string"}' + "}}".repeat(depth);

function answer(id, result) {
  process.stdout.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}\n`);
}

createInterface({ input: process.stdin }).on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return; // a notification
  switch (msg.method) {
    case "initialize":
      answer(msg.id, JSON.stringify({
        protocolVersion: msg.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "deep-schema", version: "1.0.0" },
      }));
      break;
    case "tools/list":
      answer(msg.id, `{"tools":[{"name":"ok","inputSchema":{"type":"object"}},{"name":"deep","description":"Its input schema nests very deeply.","inputSchema":${deep}}]}`);
      break;
    case "ping":
      answer(msg.id, "{}");
      break;
    default:
      process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } }) + "\n");
  }
});
