// ts-server.mjs: an MCP server on the TypeScript SDK v2 (@modelcontextprotocol/server,
// pinned in .ci/npm), for mcpdeck's interop tests.
//
//   node ts-server.mjs [--transport stdio|http] [--era dual|modern] [--port N]
//
// --era dual (the default) serves 2026-07-28 and, on an `initialize` opening,
// the legacy revisions; --era modern rejects `initialize` (modern-only). Over
// HTTP it listens on 127.0.0.1 (port 0 picks a free one) at /mcp and prints
// one line to stdout: `listening http://127.0.0.1:PORT/mcp`.
//
// Tools:
//   echo {text}                     one text block: text
//   region_echo {region, text}      "region=R text=T"; region is x-mcp-header "Region"
//   ask {}                          MRTR: asks (elicitation "who") for a name, then
//                                   "Hello, NAME!"; requestState is HMAC-sealed, so a
//                                   changed one is refused with -32602
//   add_tool {name}                 registers tool NAME (an echo) and announces
//                                   notifications/tools/list_changed
//   slow {seconds}                  answers "slept Ns"; progress every 100 ms when asked;
//                                   writes "cancelled <id>" to stderr when cancelled
//   log {message}                   logs message at debug, info, warning and error
//                                   (the request's logLevel filters), answers "logged"
import http from 'node:http';
import { args, sdk, serveFetch } from './sdk.mjs';

const opts = args();
const transport = opts.transport ?? 'stdio';
const era = opts.era ?? 'dual';
const { McpServer, createMcpHandler, createRequestStateCodec, fromJsonSchema, inputRequired, acceptedContent } =
    await sdk('@modelcontextprotocol/server');

const codec = createRequestStateCodec({ key: 'mcpdeck-interop-peer-key-of-32-bytes-at-least!' });
const extraTools = new Set(); // tools add_tool registered, shared by every instance
let notifyToolsChanged = () => {}; // HTTP: publishes on the listen bus

const text = t => ({ content: [{ type: 'text', text: t }] });
const schema = (properties, required = []) => fromJsonSchema({ type: 'object', properties, required });

function registerExtra(server, name) {
    server.registerTool(name, { description: `Added at run time by add_tool.`, inputSchema: schema({ text: { type: 'string' } }) },
        async ({ text: t }) => text(t ?? name));
}

function factory() {
    const server = new McpServer(
        { name: `ts2-peer-${era}`, version: '0.1.0' },
        {
            capabilities: { tools: { listChanged: true }, logging: {} },
            instructions: `A TypeScript SDK v2 test peer (${era}-era) for mcpdeck's interop tests.`,
            requestState: { verify: codec.verify }
        }
    );
    server.registerTool('echo', { description: 'Echoes text.', inputSchema: schema({ text: { type: 'string' } }, ['text']) },
        async ({ text: t }) => text(t));
    server.registerTool('region_echo', {
        description: 'Echoes text and the region, which is mirrored into the Mcp-Param-Region header.',
        inputSchema: schema({ region: { type: 'string', 'x-mcp-header': 'Region' }, text: { type: 'string' } }, ['region', 'text'])
    }, async ({ region, text: t }) => text(`region=${region} text=${t}`));
    server.registerTool('ask', { description: 'Asks for a name through an elicitation, then greets.', inputSchema: schema({}) },
        async (_args, ctx) => {
            const answer = acceptedContent(ctx.mcpReq.inputResponses, 'who');
            if (typeof answer?.name === 'string' && ctx.mcpReq.requestState() !== undefined) {
                return text(`Hello, ${answer.name}!`);
            }
            return inputRequired({
                inputRequests: {
                    who: inputRequired.elicit({
                        message: 'What is your name?',
                        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
                    })
                },
                requestState: await codec.mint({ step: 'ask-v1', at: Date.now() })
            });
        });
    server.registerTool('add_tool', { description: 'Registers a new tool and announces the list change.', inputSchema: schema({ name: { type: 'string' } }, ['name']) },
        async ({ name }) => {
            extraTools.add(name);
            registerExtra(server, name); // stdio: the connected instance announces the change itself
            notifyToolsChanged();
            return text(`added ${name}`);
        });
    server.registerTool('slow', { description: 'Takes its time, with progress.', inputSchema: schema({ seconds: { type: 'number' } }) },
        async ({ seconds = 5 }, ctx) => {
            const token = ctx.mcpReq._meta?.progressToken;
            const steps = Math.max(1, Math.round(seconds * 10));
            for (let i = 1; i <= steps; i++) {
                const aborted = await new Promise(resolve => {
                    const timer = setTimeout(() => resolve(false), 100);
                    ctx.mcpReq.signal.addEventListener('abort', () => { clearTimeout(timer); resolve(true); }, { once: true });
                    if (ctx.mcpReq.signal.aborted) { clearTimeout(timer); resolve(true); }
                });
                if (aborted) {
                    process.stderr.write(`cancelled ${JSON.stringify(ctx.mcpReq.id)}\n`);
                    throw new Error('cancelled');
                }
                if (token !== undefined) {
                    await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps, message: `step ${i} of ${steps}` } });
                }
            }
            return text(`slept ${seconds}s`);
        });
    server.registerTool('log', { description: 'Logs the message at four levels.', inputSchema: schema({ message: { type: 'string' } }, ['message']) },
        async ({ message }, ctx) => {
            for (const level of ['debug', 'info', 'warning', 'error']) await ctx.mcpReq.log(level, `${level}: ${message}`, 'peer');
            return text('logged');
        });
    for (const name of extraTools) registerExtra(server, name);
    return server;
}

if (transport === 'stdio') {
    const { serveStdio } = await sdk('@modelcontextprotocol/server', './stdio');
    serveStdio(factory, { legacy: era === 'modern' ? 'reject' : 'serve', onerror: e => process.stderr.write(`peer error: ${e.message}\n`) });
} else {
    const handler = createMcpHandler(factory, { legacy: era === 'modern' ? 'reject' : 'stateless' });
    notifyToolsChanged = () => handler.notify.toolsChanged();
    const server = http.createServer((req, res) => serveFetch(handler, req, res).catch(err => {
        process.stderr.write(`peer http error: ${err.stack ?? err}\n`);
        if (!res.headersSent) res.writeHead(500);
        res.end();
    }));
    server.listen(Number(opts.port ?? process.env.PORT ?? 0), '127.0.0.1', () => {
        process.stdout.write(`listening http://127.0.0.1:${server.address().port}/mcp\n`);
    });
}
