// Import-only timing of one module in a fresh process:
//   node bench/lib/import-probe.mjs <specifier or path>
// Prints {bootMs, importMs}: bootMs is node's own start-up before this script ran.
import path from 'node:path';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const t0 = performance.now();
const spec = process.argv[2];
const target = existsSync(spec) ? pathToFileURL(path.resolve(spec)).href : spec;
await import(target);
const importMs = performance.now() - t0;
process.stdout.write(JSON.stringify({ bootMs: t0, importMs }) + '\n');
