// ts-dump.mjs: an MCP client on the TypeScript SDK v2 (@modelcontextprotocol/client,
// pinned in .ci/npm) that tells what a server offers and answers, for
// comparing two servers (a server and a mock of it) as this client sees them.
//
//   node ts-dump.mjs --url URL [--bearer TOKEN] [options]     Streamable HTTP
//   node ts-dump.mjs --stdio CMD [--arg A]... [options]       a server on stdio
//
// Options:
//   --era auto|legacy|modern   version negotiation (default auto; modern pins 2026-07-28)
//   --script FILE              a JSON array of requests to send, in order:
//                              {"method": "tools/call"|"prompts/get"|"resources/read"|"completion/complete",
//                               "params": {...}}
//
// It prints one JSON object on stdout:
//   {"era", "version", "server": serverInfo, "capabilities", "instructions",
//    "tools": [...], "prompts": [...], "resources": [...], "resourceTemplates": [...],   // every page
//    "answers": [{"result": ...} | {"error": {"code", "message"}}, ...],                  // one per request
//    "progress": [n, ...]}                                                                // notifications per request
// The exit status is 0 when it could connect and list, 1 otherwise.
import { readFileSync } from 'node:fs';
import { clientArgs, sdk } from './sdk.mjs';

const { opts, stdioArgs } = clientArgs();
const { Client, StreamableHTTPClientTransport } = await sdk('@modelcontextprotocol/client');

const era = opts.era ?? 'auto';
const mode = era === 'modern' ? { pin: '2026-07-28' } : era;
// Elicitation is declared (and every question declined): servers list
// some tools only to clients that can be asked.
const client = new Client({ name: 'mcpdeck-ts-dump', version: '0.1.0' }, {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: { mode, probe: { timeoutMs: 2000 } }
});
client.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }));

let transport;
if (opts.url) {
    const headers = opts.bearer ? { Authorization: `Bearer ${opts.bearer}` } : {};
    transport = new StreamableHTTPClientTransport(new URL(opts.url), { requestInit: { headers } });
} else if (opts.stdio) {
    const { StdioClientTransport } = await sdk('@modelcontextprotocol/client', './stdio');
    transport = new StdioClientTransport({ command: opts.stdio, args: stdioArgs, env: process.env, stderr: 'inherit' });
} else {
    process.stderr.write('ts-dump: give --url URL or --stdio CMD\n');
    process.exit(2);
}

const out = {};
try {
    await client.connect(transport);
    out.era = client.getProtocolEra();
    out.version = client.getNegotiatedProtocolVersion() ?? null;
    out.server = client.getServerVersion() ?? null;
    out.capabilities = client.getServerCapabilities() ?? null;
    out.instructions = client.getInstructions() ?? null;
    const caps = out.capabilities ?? {};
    out.tools = caps.tools ? (await client.listTools()).tools : [];
    out.prompts = caps.prompts ? (await client.listPrompts()).prompts : [];
    out.resources = caps.resources ? (await client.listResources()).resources : [];
    out.resourceTemplates = caps.resources ? (await client.listResourceTemplates()).resourceTemplates : [];
} catch (e) {
    process.stderr.write(`ts-dump: ${e?.stack ?? e}\n`);
    process.exit(1);
}

const script = opts.script ? JSON.parse(readFileSync(opts.script, 'utf8')) : [];
out.answers = [];
out.progress = [];
for (const { method, params } of script) {
    let progress = 0;
    const onprogress = () => { progress++; };
    try {
        let result;
        switch (method) {
            case 'tools/call': result = await client.callTool(params, { onprogress }); break;
            case 'prompts/get': result = await client.getPrompt(params); break;
            case 'resources/read': result = await client.readResource(params); break;
            case 'completion/complete': result = await client.complete(params); break;
            default: throw new Error(`ts-dump: cannot send ${method}`);
        }
        out.answers.push({ result });
    } catch (e) {
        out.answers.push({ error: { code: e?.code ?? null, message: String(e?.message ?? e) } });
    }
    out.progress.push(progress);
}
await client.close();
process.stdout.write(JSON.stringify(out) + '\n');
process.exit(0);
