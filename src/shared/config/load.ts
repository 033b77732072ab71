import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeCache } from '../fsutil/cache-file.js';
import { DEFAULT_CONFIG } from './schema.js';
import { yaml, yamlTooDeep } from './yaml.js';
import { UsageError } from '../errors.js';
import { BoundedReadError, readRegularFile } from '../fsutil/bounded-read.js';
import { parseConfig, type ParsedConfig } from './parse.js';

export const CONFIG_PATH = '.agentos/config.yaml';
/** A config is a few dozen lines; a 20 MB one took half a minute and most of a GB to parse. */
export const MAX_CONFIG_BYTES = 64 * 1024;
/** Aliases expanded while turning the YAML into values: a config needs few, a "billion laughs" needs many. */
const MAX_CONFIG_ALIASES = 50;

/**
 * The last valid config, parsed: `{ key, text, parsed }`. Loading yaml and validating
 * cost 20-35 ms of a hook's or a check's start; reading this ~1 ms. Used only when
 * the file's text is exactly the cached text and the key (this format, and the
 * defaults a parse fills in) is unchanged. Under .agentos/cache/ (gitignored by init).
 */
export const CONFIG_CACHE = path.join('.agentos', 'cache', 'config.json');
const CONFIG_CACHE_VERSION = 1;
let cacheKey: string | null = null;
const currentKey = () => (cacheKey ??= `${CONFIG_CACHE_VERSION}:${JSON.stringify(DEFAULT_CONFIG)}`);

function cachedParse(root: string, text: string): ParsedConfig | null {
  try {
    const c = JSON.parse(readFileSync(path.join(root, CONFIG_CACHE), 'utf8')) as {
      key?: string;
      text?: string;
      parsed?: ParsedConfig;
    };
    if (c.key === currentKey() && c.text === text && c.parsed) return c.parsed;
  } catch {
    /* no cache, or unreadable: parse */
  }
  return null;
}

/** Read and validate the project's config. Missing file -> defaults. Invalid -> UsageError. */
export async function loadConfig(root: string): Promise<ParsedConfig> {
  const file = path.join(root, CONFIG_PATH);
  let text: string;
  try {
    text = (await readRegularFile(file, MAX_CONFIG_BYTES)).toString('utf8');
  } catch (e) {
    if (e instanceof BoundedReadError && e.problem === 'missing') return parseConfig(undefined);
    throw new UsageError(
      `${CONFIG_PATH}: cannot read (${e instanceof BoundedReadError ? e.reason : (e as Error).message})`,
    );
  }
  const cached = cachedParse(root, text);
  if (cached) return cached;
  const parsed = parseConfigText(text);
  if (survivesJson(parsed)) writeCache(path.join(root, CONFIG_CACHE), { key: currentKey(), text, parsed });
  return parsed;
}

/**
 * A config's text read and validated as the project's config file is (depth and alias bounds
 * included): a text that is not one throws UsageError naming the file. For another copy of it
 * too (the one committed at HEAD, cli/publish.ts).
 */
export function parseConfigText(text: string): ParsedConfig {
  const deep = yamlTooDeep(text);
  if (deep) throw new UsageError(`${CONFIG_PATH}: invalid YAML: ${deep}`);
  // linePos is only filled in with prettyErrors; a LineCounter gives the line without the noise.
  const { LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, lineCounter });
  if (doc.errors.length > 0) {
    const first = doc.errors[0];
    const line = first.linePos?.[0]?.line ?? lineCounter.linePos(first.pos[0]).line;
    throw new UsageError(`${CONFIG_PATH}${line ? `:${line}` : ''}: invalid YAML: ${first.message.split('\n')[0]}`);
  }
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: MAX_CONFIG_ALIASES });
  } catch (e) {
    // yaml throws a ReferenceError for an alias bomb: still the user's file, so exit 2 naming it.
    throw new UsageError(`${CONFIG_PATH}: invalid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const parsed = parseConfig(raw, CONFIG_PATH);
  if (parsed.errors.length > 0) {
    // One line per problem, each naming the file and the key.
    throw new UsageError(parsed.errors.join('\n'));
  }
  return parsed;
}

/** Only what JSON gives back unchanged is cached: no undefined, NaN, Infinity, Set, Map or function inside. */
function survivesJson(value: unknown): boolean {
  let ok = true;
  JSON.stringify(value, (_key, v: unknown) => {
    const tag = Object.prototype.toString.call(v);
    if (
      v === undefined ||
      typeof v === 'function' ||
      typeof v === 'bigint' ||
      (typeof v === 'number' && !Number.isFinite(v)) ||
      tag === '[object Set]' ||
      tag === '[object Map]'
    )
      ok = false;
    return v;
  });
  return ok;
}
