// ts-server.mjs: an MCP server on the TypeScript SDK v2 (@modelcontextprotocol/server,
// pinned in .ci/npm), for mcpdeck's interop tests.
//
//   node ts-server.mjs [--transport stdio|http] [--era dual|modern] [--port N] [--delay-ms N]
//
// --era dual (the default) serves 2026-07-28 and, on an `initialize` opening,
// the legacy revisions; --era modern rejects `initialize` (modern-only). Over
// HTTP it listens on 127.0.0.1 (port 0 picks a free one) at /mcp and prints
// one line to stdout: `listening http://127.0.0.1:PORT/mcp`. --delay-ms N
// (stdio) waits N ms before it reads stdin, as an `npx` start or a cold
// runtime does: what the client wrote meanwhile waits in the pipe. With
// --read-early it reads stdin at once but handles nothing for N ms, as a
// server that reads its input on one thread while it starts on another.
//
// Tools:
//   echo {text}                     one text block: text; its description is
//                                   $TS_PEER_ECHO_DESCRIPTION when set (a definition
//                                   that changes between runs)
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
//   sample {prompt}                 sampling: asks the client's model to answer prompt (system
//                                   prompt "Answer in one word.", maxTokens 50), then "model
//                                   said: TEXT (MODEL)"; MRTR (inputRequired.createMessage) in
//                                   the 2026-07-28 era, a sampling/createMessage request in the
//                                   legacy era; a declined request fails the call
//   served_era {}                   the era of the instance that answers: "modern" or
//                                   "legacy" (stdio: the era the connection was pinned to)
//   app {}                          an MCP App: _meta.ui {resourceUri ui://peer/app.html,
//                                   visibility}; answers one text block with annotations and
//                                   _meta, whose text is the JSON of the com.example/ keys of
//                                   the request's _meta, and a result _meta with viewUUID
//
// Resources: ui://peer/app.html (the app's view; _meta.ui.prefersBorder).
// Prompts: review {code} (_meta com.example/owner).
import http from 'node:http';
import { args, sdk, serveFetch } from './sdk.mjs';

const opts = args();
const transport = opts.transport ?? 'stdio';
const era = opts.era ?? 'dual';
const { McpServer, createMcpHandler, createRequestStateCodec, fromJsonSchema, inputRequired, inputResponse, acceptedContent } =
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

function factory({ era: served } = {}) {
    const server = new McpServer(
        { name: `ts2-peer-${era}`, version: '0.1.0' },
        {
            capabilities: { tools: { listChanged: true }, logging: {} },
            instructions: `A TypeScript SDK v2 test peer (${era}-era) for mcpdeck's interop tests.`,
            requestState: { verify: codec.verify }
        }
    );
    server.registerTool('echo', { description: process.env.TS_PEER_ECHO_DESCRIPTION || 'Echoes text.', inputSchema: schema({ text: { type: 'string' } }, ['text']) },
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
    server.registerTool('sample', { description: "Asks the client's model to answer a prompt (sampling).", inputSchema: schema({ prompt: { type: 'string' } }, ['prompt']) },
        async ({ prompt }, ctx) => {
            const request = {
                messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
                systemPrompt: 'Answer in one word.',
                maxTokens: 50,
                modelPreferences: { hints: [{ name: 'claude' }], intelligencePriority: 0.8 }
            };
            const said = result => {
                const blocks = Array.isArray(result.content) ? result.content : [result.content];
                return text(`model said: ${blocks.filter(b => b.type === 'text').map(b => b.text).join(' ')} (${result.model})`);
            };
            if (served === 'legacy') return said(await ctx.mcpReq.requestSampling(request));
            const answer = inputResponse(ctx.mcpReq.inputResponses, 'reply');
            if (answer.kind === 'sampling' && ctx.mcpReq.requestState() !== undefined) return said(answer.result);
            return inputRequired({
                inputRequests: { reply: inputRequired.createMessage(request) },
                requestState: await codec.mint({ step: 'sample-v1', at: Date.now() })
            });
        });
    server.registerTool('served_era', { description: 'Names the era of the instance that answers.', inputSchema: schema({}) },
        async () => text(served ?? 'unknown'));
    server.registerTool('app', {
        title: 'Peer app',
        description: 'An MCP App: its view is ui://peer/app.html.',
        inputSchema: schema({}),
        annotations: { readOnlyHint: true },
        _meta: { ui: { resourceUri: 'ui://peer/app.html', visibility: ['model', 'app'] }, 'com.example/owner': 'peer' }
    }, async (_args, ctx) => {
        const meta = ctx.mcpReq._meta ?? {};
        const mine = Object.fromEntries(Object.entries(meta).filter(([k]) => k.startsWith('com.example/')));
        return {
            content: [{ type: 'text', text: JSON.stringify(mine), annotations: { audience: ['user'], priority: 0.5 }, _meta: { 'com.example/block': 1 } }],
            _meta: { viewUUID: 'view-0001', 'com.example/trace': 'peer-trace' }
        };
    });
    server.registerResource('app-view', 'ui://peer/app.html', {
        mimeType: 'text/html;profile=mcp-app',
        description: 'The view of the app tool.',
        _meta: { ui: { prefersBorder: true } }
    }, async uri => ({ contents: [{ uri: uri.href, mimeType: 'text/html;profile=mcp-app', text: '<p>peer app</p>', _meta: { ui: { prefersBorder: true } } }] }));
    server.registerPrompt('review', {
        description: 'Review code.',
        argsSchema: schema({ code: { type: 'string' } }, ['code']),
        _meta: { 'com.example/owner': 'peer' }
    }, async ({ code }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Review: ${code}`, annotations: { audience: ['assistant'] } } }] }));
    for (const name of extraTools) registerExtra(server, name);
    return server;
}

if (transport === 'stdio') {
    const delay = Number(opts['delay-ms'] ?? 0);
    let input; // --read-early: stdin, read now, handed to the SDK after the delay
    if (opts['read-early']) {
        const { PassThrough } = await import('node:stream');
        input = new PassThrough();
        process.stdin.pipe(input);
    }
    if (delay > 0) await new Promise(resolve => setTimeout(resolve, delay));
    const { serveStdio, StdioServerTransport } = await sdk('@modelcontextprotocol/server', './stdio');
    serveStdio(factory, {
        legacy: era === 'modern' ? 'reject' : 'serve',
        onerror: e => process.stderr.write(`peer error: ${e.message}\n`),
        ...(input && { transport: new StdioServerTransport(input, process.stdout) })
    });
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
