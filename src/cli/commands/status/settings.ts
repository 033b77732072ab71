import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_PATH } from '../../../shared/config/load.js';
import type { Config } from '../../../shared/config/schema.js';
import { yaml, yamlTooDeep } from '../../../shared/config/yaml.js';
import { maskUrl } from '../../../shared/team-store/url.js';

export interface Setting {
  /** The key as written in .agentos/config.yaml (snake_case). */
  key: string;
  value: unknown;
  source: 'default' | typeof CONFIG_PATH | 'AGENTOS_MODEL_DIR' | 'AGENTOS_DATABASE_URL';
}

/** Config fields whose YAML key is not the plain snake_case of the field. */
const YAML_KEY: Record<string, string> = { 'corpus.maxFileBytes': 'corpus.max_file_kb' };

const snake = (key: string) => YAML_KEY[key] ?? key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * Every effective setting and where it came from. Generic over the Config
 * shape, so keys other modules add show up without a list to keep in step.
 * `config` must be the already-validated config (loadConfig threw otherwise).
 */
export function effectiveSettings(root: string, config: Config, env: NodeJS.ProcessEnv): Setting[] {
  const raw = readRawConfig(root);
  const out: Setting[] = [];
  const walk = (value: unknown, prefix: string) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) walk(v, prefix ? `${prefix}.${k}` : k);
      return;
    }
    const key = snake(prefix);
    const shown = prefix === 'corpus.maxFileBytes' ? (value as number) / 1024 : value;
    out.push({ key, value: shown, source: fromFile(raw, prefix, key) ? CONFIG_PATH : 'default' });
  };
  walk(config, '');
  const dir = out.find((s) => s.key === 'model.dir');
  if (dir && env.AGENTOS_MODEL_DIR) Object.assign(dir, { value: env.AGENTOS_MODEL_DIR, source: 'AGENTOS_MODEL_DIR' });
  // The store URL as the check uses it (the environment wins), and never with its password.
  const url = out.find((s) => s.key === 'store.url');
  const fromEnv = env.AGENTOS_DATABASE_URL?.trim();
  if (url && fromEnv) Object.assign(url, { value: fromEnv, source: 'AGENTOS_DATABASE_URL' });
  if (url && typeof url.value === 'string') url.value = maskUrl(url.value);
  return out;
}

function readRawConfig(root: string): unknown {
  try {
    const text = readFileSync(path.join(root, CONFIG_PATH), 'utf8');
    return yamlTooDeep(text) ? null : yaml().parse(text);
  } catch {
    return null; // missing (all defaults); an invalid file never gets here
  }
}

/**
 * Whether the file sets this key: as snake_case or as the field's camelCase (both are
 * read), and for the attempt memory also under its old section name `retrieval:`.
 */
function fromFile(raw: unknown, field: string, key: string): boolean {
  const spellings = [key, field];
  for (const k of [key, field])
    if (k.startsWith('attempts.')) spellings.push(`retrieval.${k.slice('attempts.'.length)}`);
  // `sources.git: true` is the short spelling of `sources.git.enabled: true`.
  if (key === 'sources.git.enabled') spellings.push('sources.git');
  return spellings.some((k) => hasPath(raw, k));
}

function hasPath(raw: unknown, dotted: string): boolean {
  let cur: unknown = raw;
  for (const part of dotted.split('.')) {
    if (!cur || typeof cur !== 'object' || !(part in (cur as object))) return false;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur !== undefined && cur !== null;
}
