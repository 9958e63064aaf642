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
