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
  if (m[1].length > MAX_FRONTMATTER_CHARS)
    return { data: {}, body, error: `frontmatter larger than ${MAX_FRONTMATTER_CHARS / 1024} KB, ignored` };
  const deep = yamlTooDeep(m[1]);
  if (deep) return { data: {}, body, error: `frontmatter ${deep}, ignored` };
  try {
    const data = yaml().parse(m[1], { maxAliasCount: 50, logLevel: 'error' });
    if (data === null || data === undefined) return { data: {}, body, error: null };
    if (typeof data !== 'object' || Array.isArray(data))
      return { data: {}, body, error: 'frontmatter is not a mapping' };
    return { data: data as Record<string, unknown>, body, error: null };
  } catch (e) {
    // `title: ADR009: Entity References` is not YAML (a second `: `), and real projects are full of it: read
    // the plain `key: value` lines, and say so.
    const plain = plainLines(m[1]);
    const how = Object.keys(plain).length
      ? `read its plain key: value lines (${Object.keys(plain).slice(0, 4).join(', ')})`
      : 'using the file name and headings instead';
    return { data: plain, body, error: `malformed YAML frontmatter (${(e as Error).message.split('\n')[0]}); ${how}` };
  }
}

/**
 * Top-level `key: value` lines of frontmatter that is not YAML: the value as written, outer quotes removed.
 * A value that opens YAML's own syntax (`[`, `{`, an anchor, an alias, a block) is what failed: left out.
 */
function plainLines(text: string): Record<string, string> {
  const data: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z_][\w-]{0,63}):[ \t]+([^\s[{&*!|>%@`].{0,999})$/.exec(line.trimEnd());
    if (!m || m[1] in data) continue;
    // A comment is not the value, and YAML's empty values are no value.
    const v = m[2].replace(/\s+#.*$/, '').trim();
    if (v === '' || v === '~' || v === 'null') continue;
    // A quote opened and not closed (`title: "Quarantine flaky tests`) is YAML that failed: no value.
    const quoted = /^(["']).*\1$/.test(v);
    if (/^["']/.test(v) && !quoted) continue;
    data[m[1]] = quoted ? v.slice(1, -1) : v;
  }
  return data;
}
