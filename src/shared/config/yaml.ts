import { createRequire } from 'node:module';
import { requireVendored } from '../package-root.js';

type YamlModule = typeof import('yaml');
let cached: YamlModule | null = null;

/**
 * The yaml library, loaded on first use: most `issue start` runs meet no YAML at all
 * (no config file, a brief without frontmatter). Synchronous (CommonJS), so callers
 * stay synchronous. As one file when built (the package is 74 CommonJS files, 30-60 ms
 * to require; the bundle ~5 ms), else the package itself.
 */
export function yaml(): YamlModule {
  cached ??= requireVendored<YamlModule>('yaml') ?? (createRequire(import.meta.url)('yaml') as YamlModule);
  return cached;
}

/**
 * How deep YAML may nest before agentos refuses to parse it. Real frontmatter and
 * configs nest 2-4 levels; the yaml parser recurses once per level and overflows the
 * stack at ~800 flow levels (`[[[…`) or ~1,000 compact ones (`- - - …`). A stack
 * overflow is not just a caught RangeError: V8 may then need to compile a regular
 * expression with no stack left and abort the whole process ("RegExpCompiler
 * Allocation failed - process out of memory", exit 134), which no `catch` sees.
 */
export const MAX_YAML_DEPTH = 64;

/**
 * An upper bound on the nesting depth of a YAML text, without parsing it: open
 * flow brackets, plus for each line the block lines it sits under (by indentation)
 * and the compact indicators (`- `, `? `, `: `) those lines open. It over-counts
 * brackets inside quoted strings, which only matters for hostile text.
 */
export function yamlDepth(text: string): number {
  let max = 0;
  let flow = 0;
  const block: { indent: number; depth: number }[] = [];
  for (const line of text.split('\n')) {
    let i = 0;
    while (line[i] === ' ' || line[i] === '\t') i++;
    if (i === line.length || line[i] === '#') continue;
    const indent = i;
    let indicators = 0;
    while (
      (line[i] === '-' || line[i] === '?' || line[i] === ':') &&
      (i + 1 === line.length || line[i + 1] === ' ' || line[i + 1] === '\t')
    ) {
      indicators++;
      i++;
      while (line[i] === ' ' || line[i] === '\t') i++;
    }
    while (block.length > 0 && block[block.length - 1].indent >= indent) block.pop();
    const depth = (block.length > 0 ? block[block.length - 1].depth : 0) + 1 + indicators;
    block.push({ indent, depth });
    for (; i < line.length; i++) {
      const c = line[i];
      if (c === '[' || c === '{') max = Math.max(max, depth + ++flow);
      else if ((c === ']' || c === '}') && flow > 0) flow--;
    }
    max = Math.max(max, depth + flow);
  }
  return max;
}

/** The one-line reason YAML text is refused before parsing, or null when it may be parsed. */
export function yamlTooDeep(text: string): string | null {
  const depth = yamlDepth(text);
  return depth > MAX_YAML_DEPTH ? `nested ${depth} levels deep (more than ${MAX_YAML_DEPTH})` : null;
}
