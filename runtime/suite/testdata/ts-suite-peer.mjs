// ts-suite-peer.mjs: the suite peer on the TypeScript SDK v2
// (@modelcontextprotocol/server, pinned in .ci/npm), the same server as the
// Go SDK one in gosdk_peer_test.go, for mcpdeck test's interop tests:
//
//   node ts-suite-peer.mjs [--transport stdio|http] [--port N]
//
// It serves both eras (2026-07-28 and, on an initialize opening, the legacy
// revisions). Over HTTP it listens on 127.0.0.1 at /mcp and prints
// `listening http://127.0.0.1:PORT/mcp`; legacy clients are served
// statelessly there, so they get no resource updates (no GET stream).
import http from 'node:http';
import { args, sdk, serveFetch } from '../../../jsonrpc/jsonrpctest/peers/sdk.mjs';

const opts = args();
const transport = opts.transport ?? 'stdio';
const { McpServer, ResourceTemplate, createMcpHandler, fromJsonSchema, completable } = await sdk('@modelcontextprotocol/server');

const names = ['Ada', 'Alan', 'Grace'];
const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'];
const prefixed = (values, prefix) => values.filter(v => v.startsWith(prefix ?? ''));
const text = t => ({ content: [{ type: 'text', text: t }] });
const schema = (properties, required = []) => fromJsonSchema({ type: 'object', properties, required });
let resourceUpdated = async () => {}; // HTTP: publishes on the listen bus

function factory() {
    const server = new McpServer(
        { name: 'suite-peer-ts2', version: '0.1.0' },
        { capabilities: { tools: {}, logging: {}, resources: { subscribe: true }, prompts: {}, completions: {} } }
    );
    server.registerTool('echo', { description: 'Echoes text.', inputSchema: schema({ text: { type: 'string' } }, ['text']) },
        async ({ text: t }) => text(t));
    server.registerTool('add', {
        description: 'Adds a and b.',
        inputSchema: schema({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']),
        outputSchema: schema({ sum: { type: 'number' } }, ['sum'])
    }, async ({ a, b }) => ({ ...text(`sum=${a + b}`), structuredContent: { sum: a + b } }));
    server.registerTool('slow', { description: 'Takes steps, with progress.', inputSchema: schema({ steps: { type: 'integer' } }, ['steps']) },
        async ({ steps }, ctx) => {
            const token = ctx.mcpReq._meta?.progressToken;
            for (let i = 1; i <= steps; i++) {
                await new Promise(r => setTimeout(r, 10));
                if (token !== undefined) {
                    await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } });
                }
            }
            return text(`done after ${steps} steps`);
        });
    server.registerTool('log', { description: 'Logs the message at info.', inputSchema: schema({ message: { type: 'string' } }, ['message']) },
        async ({ message }, ctx) => {
            await ctx.mcpReq.log('info', `logged: ${message}`, 'peer');
            return text('logged');
        });
    server.registerTool('touch', { description: 'Announces that a resource changed.', inputSchema: schema({ uri: { type: 'string' } }, ['uri']) },
        async ({ uri }) => {
            if (transport === 'stdio') await server.server.sendResourceUpdated({ uri });
            else await resourceUpdated(uri);
            return text('touched');
        });
    server.registerTool('fail', { description: 'Fails on purpose.', inputSchema: schema({}) },
        async () => ({ ...text('failed on purpose'), isError: true }));
    server.registerResource('today', 'suite://notes/today', { mimeType: 'text/plain' },
        async uri => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'buy milk' }] }));
    server.registerResource('day', new ResourceTemplate('suite://notes/{day}', {
        list: undefined,
        complete: { day: value => prefixed(days, value) }
    }), { mimeType: 'text/plain' },
        async (uri, { day }) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: `notes for ${day}` }] }));
    server.registerPrompt('greet', {
        description: 'Greets someone.',
        argsSchema: fromJsonSchema({ type: 'object', properties: { name: { type: 'string' } }, required: ['name'] })
    }, async ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }] }));
    server.server.setRequestHandler('resources/subscribe', async () => ({}));
    server.server.setRequestHandler('resources/unsubscribe', async () => ({}));
    server.server.setRequestHandler('completion/complete', async req => {
        const { ref, argument } = req.params;
        let values = [];
        if (ref.type === 'ref/prompt' && ref.name === 'greet' && argument.name === 'name') values = prefixed(names, argument.value);
        if (ref.type === 'ref/resource' && argument.name === 'day') values = prefixed(days, argument.value);
        return { completion: { values, total: values.length } };
    });
    return server;
}

if (transport === 'stdio') {
    const { serveStdio } = await sdk('@modelcontextprotocol/server', './stdio');
    serveStdio(factory, { legacy: 'serve', onerror: e => process.stderr.write(`peer error: ${e.message}\n`) });
} else {
    const handler = createMcpHandler(factory, { legacy: 'stateless' });
    resourceUpdated = async uri => handler.notify.resourceUpdated(uri);
    const server = http.createServer((req, res) => serveFetch(handler, req, res).catch(err => {
        process.stderr.write(`peer http error: ${err.stack ?? err}\n`);
        if (!res.headersSent) res.writeHead(500);
        res.end();
    }));
    server.listen(Number(opts.port ?? 0), '127.0.0.1', () => {
        process.stdout.write(`listening http://127.0.0.1:${server.address().port}/mcp\n`);
    });
}
