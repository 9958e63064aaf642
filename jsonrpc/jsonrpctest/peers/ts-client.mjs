// ts-client.mjs: an MCP client on the TypeScript SDK v2 (@modelcontextprotocol/client,
// pinned in .ci/npm), for testing MCP servers (mcpdeck's gateway among them).
//
//   node ts-client.mjs --url URL [options]                 Streamable HTTP
//   node ts-client.mjs --sse URL [options]                 the deprecated HTTP+SSE transport (legacy era)
//   node ts-client.mjs --stdio CMD [--arg A]... [options]  a server on stdio
//
// Options:
//   --era auto|legacy|modern   version negotiation (default auto; modern pins 2026-07-28)
//   --echo TOOL                tool called with {text:"hello"} (default echo; "-" skips)
//   --slow TOOL                tool called with {seconds:0.3} for progress, then {seconds:30}
//                              and cancelled after its first progress (default slow)
//   --ask TOOL                 tool that asks for a name by elicitation; answered "octocat" (default ask)
//   --add TOOL                 tool called with {name:"added_by_client"}; its list change is awaited (default add_tool)
//   --relist                   after that list change, list the tools again (a second tools event)
//   --sample TOOL              tool called with {prompt:"Capital of France?"} that asks for sampling; the
//                              client's "model" answers "Paris" (model ts-client-model) (default: none)
//
// Every line on stdout is one JSON object with an "event" field:
//   connected {era, version, server}   tools {names}        call {tool, text, isError}
//   progress {tool, progress, total}   elicitation {message} cancelled {tool, error}
//   sampling {message}  (the first message's text)
//   list_changed {subscription}        error {step, message} done {}
// The exit status is 0 when every step worked, 1 otherwise.
import { clientArgs, sdk } from './sdk.mjs';

const { opts, stdioArgs } = clientArgs();
const tool = (name, def) => (opts[name] === '-' ? undefined : (opts[name] ?? def));

const { Client, StreamableHTTPClientTransport } = await sdk('@modelcontextprotocol/client');
const out = obj => process.stdout.write(JSON.stringify(obj) + '\n');
let failed = false;
const step = async (name, fn) => {
    try {
        await fn();
    } catch (e) {
        failed = true;
        out({ event: 'error', step: name, message: String(e?.message ?? e) });
    }
};

const era = opts.era ?? 'auto';
const mode = era === 'modern' ? { pin: '2026-07-28' } : era;
// The probe is the first request a server gets, so its timeout covers the
// server's start: a Node server starting on a loaded 2-core machine took
// more than 2 s, and the client fell back to the legacy era where the
// tests expect the modern one. No test relies on the probe timing out.
const client = new Client({ name: 'mcpdeck-ts-client', version: '0.1.0' }, {
    capabilities: { elicitation: { form: {} }, sampling: {} },
    versionNegotiation: { mode, probe: { timeoutMs: 10000 } }
});
client.setRequestHandler('elicitation/create', async request => {
    out({ event: 'elicitation', message: request.params.message });
    return { action: 'accept', content: { name: 'octocat' } };
});
client.setRequestHandler('sampling/createMessage', async request => {
    const first = request.params.messages?.[0]?.content;
    const blocks = Array.isArray(first) ? first : [first];
    out({ event: 'sampling', message: blocks.filter(b => b?.type === 'text').map(b => b.text).join(' ') });
    return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'ts-client-model', stopReason: 'endTurn' };
});
let listChanged;
const changed = new Promise(resolve => { listChanged = resolve; });
client.setNotificationHandler('notifications/tools/list_changed', notification => {
    const id = notification.params?._meta?.['io.modelcontextprotocol/subscriptionId'];
    out({ event: 'list_changed', subscription: id ?? null });
    listChanged();
});

let transport;
if (opts.url) {
    transport = new StreamableHTTPClientTransport(new URL(opts.url));
} else if (opts.sse) {
    const { SSEClientTransport } = await sdk('@modelcontextprotocol/client');
    transport = new SSEClientTransport(new URL(opts.sse));
} else if (opts.stdio) {
    const { StdioClientTransport } = await sdk('@modelcontextprotocol/client', './stdio');
    transport = new StdioClientTransport({ command: opts.stdio, args: stdioArgs, env: process.env, stderr: 'inherit' });
} else {
    process.stderr.write('ts-client: give --url URL or --stdio CMD\n');
    process.exit(2);
}

await step('connect', async () => {
    await client.connect(transport);
    out({ event: 'connected', era: client.getProtocolEra(), version: client.getNegotiatedProtocolVersion() ?? null, server: client.getServerVersion()?.name ?? null });
});
if (failed) process.exit(1);

let subscription;
await step('listen', async () => {
    if (client.getProtocolEra() === 'modern') subscription = await client.listen({ toolsListChanged: true });
});
await step('tools', async () => {
    const { tools } = await client.listTools();
    out({ event: 'tools', names: tools.map(t => t.name) });
});
const callText = r => (r.content ?? []).filter(c => c.type === 'text').map(c => c.text).join('');
if (tool('echo', 'echo')) {
    await step('call', async () => {
        const r = await client.callTool({ name: tool('echo', 'echo'), arguments: { text: 'hello' } });
        out({ event: 'call', tool: tool('echo', 'echo'), text: callText(r), isError: !!r.isError });
    });
}
if (tool('slow', 'slow')) {
    const name = tool('slow', 'slow');
    await step('progress', async () => {
        const r = await client.callTool({ name, arguments: { seconds: 0.3 } }, {
            onprogress: p => out({ event: 'progress', tool: name, progress: p.progress, total: p.total ?? null })
        });
        out({ event: 'call', tool: name, text: callText(r), isError: !!r.isError });
    });
    await step('cancel', async () => {
        const abort = new AbortController();
        try {
            await client.callTool({ name, arguments: { seconds: 30 } }, { signal: abort.signal, onprogress: () => abort.abort('cancelled by ts-client') });
            throw new Error('the cancelled call completed');
        } catch (e) {
            if (!abort.signal.aborted) throw e;
            out({ event: 'cancelled', tool: name, error: String(e?.message ?? e) });
        }
    });
}
if (tool('ask', 'ask')) {
    await step('elicitation', async () => {
        const r = await client.callTool({ name: tool('ask', 'ask'), arguments: {} });
        out({ event: 'call', tool: tool('ask', 'ask'), text: callText(r), isError: !!r.isError });
    });
}
const sampleTool = tool('sample', undefined); // no default: only when asked
if (sampleTool) {
    await step('sampling', async () => {
        const r = await client.callTool({ name: sampleTool, arguments: { prompt: 'Capital of France?' } });
        out({ event: 'call', tool: sampleTool, text: callText(r), isError: !!r.isError });
    });
}
if (tool('add', 'add_tool')) {
    await step('list_changed', async () => {
        await client.callTool({ name: tool('add', 'add_tool'), arguments: { name: 'added_by_client' } });
        let timer;
        await Promise.race([changed, new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('no notifications/tools/list_changed within 10 s')), 10000); })]);
        clearTimeout(timer);
        if (opts.relist) {
            const { tools } = await client.listTools();
            out({ event: 'tools', names: tools.map(t => t.name) });
        }
    });
}
await step('close', async () => {
    await subscription?.close();
    await client.close();
});
out({ event: 'done' });
process.exit(failed ? 1 : 0);
