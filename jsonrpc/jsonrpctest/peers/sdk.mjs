// sdk.mjs loads the pinned TypeScript SDK v2 packages from the node_modules
// folder named by MCPDECK_NODE_MODULES (the git-ignored .deps/node_modules
// that .ci/run installs from .ci/npm). The peer scripts live in the source
// tree, outside that folder, so bare imports would not find the packages;
// this resolves each package's "import" export by hand instead.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = process.env.MCPDECK_NODE_MODULES;
if (!root) {
    process.stderr.write('peer: MCPDECK_NODE_MODULES is not set; point it at .deps/node_modules\n');
    process.exit(2);
}

function entry(pkg, subpath) {
    const dir = join(root, pkg);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const exp = manifest.exports?.[subpath];
    const target = typeof exp === 'string' ? exp : (exp?.import?.default ?? exp?.import ?? exp?.default);
    if (typeof target !== 'string') throw new Error(`${pkg}: no ESM export for ${subpath}`);
    return pathToFileURL(join(dir, target)).href;
}

/** Imports `pkg` (optionally its `subpath` export, e.g. './stdio'). */
export function sdk(pkg, subpath = '.') {
    return import(entry(pkg, subpath));
}

/** Parses --key value and --flag arguments. */
export function args(argv = process.argv.slice(2)) {
    const out = {};
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        if (!a.startsWith('--')) continue;
        const key = a.slice(2);
        const next = argv[i + 1];
        if (next === undefined || next.startsWith('--')) out[key] = true;
        else { out[key] = next; i++; }
    }
    return out;
}

// serveFetch bridges node:http to the SDK's fetch-shaped handler; a client that
// goes away aborts the request, which is how the SDK sees a cancellation.
export async function serveFetch(handler, req, res) {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname !== '/mcp') { res.writeHead(404).end('not found'); return; }
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const abort = new AbortController();
    res.on('close', () => { if (!res.writableFinished) abort.abort(); });
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const response = await handler.fetch(new Request(url, { method: req.method, headers, body, signal: abort.signal }));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) { res.end(); return; }
    const reader = response.body.getReader();
    try {
        for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            if (!res.write(value)) await new Promise(r => res.once('drain', r));
        }
    } catch {
        // the client went away mid-stream
    } finally {
        res.end();
    }
}
