import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | null = null;

/**
 * This installation's root folder (package.json, bin/, dist/), found by walking
 * up from this module to the package.json named "agentos-cli" (the npm package; its
 * command is `agentos`; "agentos" before the npm name was taken). The same answer from
 * dist/shared/package-root.js, from the bundles one level below dist/ (dist/main/,
 * dist/fast/) and from src/ (tests), which a fixed number of `..` cannot give.
 * bundle-safe: walks up from wherever it runs.
 */
export function packageRoot(): string {
  if (cached) return cached;
  const start = path.dirname(fileURLToPath(import.meta.url));
  let withBin: string | null = null;
  for (let dir = start; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && isAgentos(manifest)) return (cached = dir);
    // A renamed or vendored copy: the folder holding our bin is the root.
    withBin ??= existsSync(path.join(dir, 'bin', 'agentos.js')) ? dir : null;
    if (path.dirname(dir) === dir) return (cached = withBin ?? path.resolve(start, '..'));
  }
}

function isAgentos(manifest: string): boolean {
  try {
    const name = (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name;
    return name === 'agentos-cli' || name === 'agentos';
  } catch {
    return false;
  }
}

/**
 * A package the build bundled into one file (dist/vendor/<name>.cjs, scripts/bundle-fast.mjs), required from
 * the package root whether the caller runs from its own file or a bundle; null when there is no build (tests
 * run the sources) and the caller loads the package itself.
 */
export function requireVendored<T>(name: string): T | null {
  const file = path.join(packageRoot(), 'dist', 'vendor', `${name}.cjs`);
  return existsSync(file) ? (createRequire(import.meta.url)(file) as T) : null;
}
