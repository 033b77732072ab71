import { yaml, yamlTooDeep } from '../../shared/config/yaml.js';

export interface Frontmatter {
  data: Record<string, unknown>;
  body: string;
  /** Set when a frontmatter block exists but is not valid YAML (or not a mapping). */
  error: string | null;
}

/** Frontmatter is a few fields; a bigger block (deep nesting, alias bombs) is not parsed at all. */
export const MAX_FRONTMATTER_CHARS = 16 * 1024;

const FENCE = /^---[ \t]*\n([\s\S]*?)\n(?:---|\.\.\.)[ \t]*(?:\n|$)/;

/** Split `---` YAML frontmatter from the body. Never throws: bad YAML is reported, not fatal. */
export function splitFrontmatter(text: string): Frontmatter {
  const m = FENCE.exec(text);
  if (!m) return { data: {}, body: text, error: null };
  const body = text.slice(m[0].length);
  if (m[1].length > MAX_FRONTMATTER_CHARS) return { data: {}, body, error: `frontmatter larger than ${MAX_FRONTMATTER_CHARS / 1024} KB, ignored` };
  const deep = yamlTooDeep(m[1]);
  if (deep) return { data: {}, body, error: `frontmatter ${deep}, ignored` };
  try {
    const data = yaml().parse(m[1], { maxAliasCount: 50, logLevel: 'error' });
    if (data === null || data === undefined) return { data: {}, body, error: null };
    if (typeof data !== 'object' || Array.isArray(data)) return { data: {}, body, error: 'frontmatter is not a mapping' };
    return { data: data as Record<string, unknown>, body, error: null };
  } catch (e) {
    return { data: {}, body, error: `malformed YAML frontmatter (${(e as Error).message.split('\n')[0]})` };
  }
}
