import path from 'node:path';
import { yaml, yamlTooDeep } from './yaml.js';
import { UsageError } from '../errors.js';
import { BoundedReadError, readRegularFile } from '../fsutil/bounded-read.js';
import { parseConfig, type ParsedConfig } from './parse.js';

export const CONFIG_PATH = '.agentos/config.yaml';
/** A config is a few dozen lines; a 20 MB one took half a minute and most of a GB to parse. */
export const MAX_CONFIG_BYTES = 64 * 1024;
/** Aliases expanded while turning the YAML into values: a config needs few, a "billion laughs" needs many. */
const MAX_CONFIG_ALIASES = 50;

/** Read and validate the project's config. Missing file -> defaults. Invalid -> UsageError. */
export async function loadConfig(root: string): Promise<ParsedConfig> {
  const file = path.join(root, CONFIG_PATH);
  let text: string;
  try {
    text = (await readRegularFile(file, MAX_CONFIG_BYTES)).toString('utf8');
  } catch (e) {
    if (e instanceof BoundedReadError && e.problem === 'missing') return parseConfig(undefined);
    throw new UsageError(`${CONFIG_PATH}: cannot read (${e instanceof BoundedReadError ? e.reason : (e as Error).message})`);
  }
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
