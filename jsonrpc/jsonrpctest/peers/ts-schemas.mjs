// ts-schemas.mjs: an MCP server on the TypeScript SDK v2 (@modelcontextprotocol/server,
// pinned in .ci/npm) whose tools take the argument schemas real servers send,
// for mcpdeck's schema-form tests. Every tool answers with one text block:
// the JSON of the arguments it received, after the SDK validated them.
//
//   node ts-schemas.mjs [SCHEMA.json]...
//
// Tools:
//   <basename of SCHEMA.json>   the file's JSON Schema as the raw inputSchema
//                               (fromJsonSchema): a Pydantic or FastMCP schema
//   zod_shapes                  a zod object the SDK converts itself: .nullable(),
//                               .optional(), .default(), formats, an enum, a nested
//                               object, a union and a discriminated union
//   zod_tree                    a recursive zod schema (z.lazy), which the SDK
//                               writes with a $ref to itself
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { sdk } from './sdk.mjs';

const files = process.argv.slice(2);
const { McpServer, fromJsonSchema } = await sdk('@modelcontextprotocol/server');
const z = await sdk('zod', './v4');

const received = args => ({ content: [{ type: 'text', text: JSON.stringify(args) }] });

const Address = z.object({
    street: z.string().describe('Street and number'),
    city: z.string(),
    zip: z.string().regex(/^[0-9]{5}$/).optional(),
});
const zodShapes = z.object({
    title: z.string().min(1).describe('What it is called'),
    note: z.string().nullable().describe('Free text, or null'),
    count: z.number().int().min(1).max(10).optional(),
    ratio: z.number().default(0.5),
    when: z.iso.datetime().optional(),
    email: z.email().optional(),
    color: z.enum(['red', 'green', 'blue']),
    address: Address.optional(),
    tags: z.array(z.string()).optional(),
    target: z.union([z.string(), z.array(z.string())]),
    shape: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('circle'), radius: z.number() }),
        z.object({ kind: z.literal('square'), side: z.number() }),
    ]),
    flag: z.boolean().optional(),
});
const Node = z.object({ name: z.string(), get children() { return z.array(Node).optional(); } });

function factory() {
    const server = new McpServer({ name: 'ts2-schemas', version: '0.1.0' }, { capabilities: { tools: {} } });
    for (const file of files) {
        const name = basename(file, '.json').replace(/[^A-Za-z0-9_-]/g, '_');
        const schema = JSON.parse(readFileSync(file, 'utf8'));
        server.registerTool(name, { description: `Takes the schema of ${basename(file)}.`, inputSchema: fromJsonSchema(schema) },
            async args => received(args));
    }
    server.registerTool('zod_shapes', { description: 'Takes a zod object of every common shape.', inputSchema: zodShapes },
        async args => received(args));
    server.registerTool('zod_tree', { description: 'Takes a recursive zod schema.', inputSchema: z.object({ root: Node }) },
        async args => received(args));
    return server;
}

const { serveStdio } = await sdk('@modelcontextprotocol/server', './stdio');
serveStdio(factory, { legacy: 'serve', onerror: e => process.stderr.write(`peer error: ${e.message}\n`) });
