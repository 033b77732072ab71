import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { yaml } from './yaml.js';
import { UsageError } from '../errors.js';
import { parseConfig, type ParsedConfig } from './parse.js';

export const CONFIG_PATH = '.agentos/config.yaml';

/** Read and validate the project's config. Missing file -> defaults. Invalid -> UsageError. */
export async function loadConfig(root: string): Promise<ParsedConfig> {
  const file = path.join(root, CONFIG_PATH);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return parseConfig(undefined);
    throw new UsageError(`${CONFIG_PATH}: cannot read (${(e as Error).message})`);
  }
  // linePos is only filled in with prettyErrors; a LineCounter gives the line without the noise.
  const { LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, lineCounter });
  if (doc.errors.length > 0) {
    const first = doc.errors[0];
    const line = first.linePos?.[0]?.line ?? lineCounter.linePos(first.pos[0]).line;
    throw new UsageError(`${CONFIG_PATH}${line ? `:${line}` : ''}: invalid YAML: ${first.message.split('\n')[0]}`);
  }
  const parsed = parseConfig(doc.toJS(), CONFIG_PATH);
  if (parsed.errors.length > 0) {
    // One line per problem, each naming the file and the key.
    throw new UsageError(parsed.errors.join('\n'));
  }
  return parsed;
}
