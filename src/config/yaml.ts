import { createRequire } from 'node:module';

type YamlModule = typeof import('yaml');
let cached: YamlModule | null = null;

/**
 * The yaml library, loaded on first use: importing it costs ~30 ms, and most
 * `issue start` runs meet no YAML at all (no config file, a brief without
 * frontmatter). Synchronous (its CommonJS build), so callers stay synchronous.
 */
export function yaml(): YamlModule {
  cached ??= createRequire(import.meta.url)('yaml') as YamlModule;
  return cached;
}
