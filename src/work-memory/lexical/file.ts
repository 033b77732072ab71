import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Bm25Index, type LexicalDoc, type LexicalScorer } from './bm25.js';
import { detectTemplates, stripTemplates, type TemplateSet } from './templates.js';
import { termCounts, tokenize } from './tokenize.js';
import { indexPaths } from '../index/layout.js';
import { readCurrent, readManifest } from '../index/hnsw-index.js';
import { readChecked, readDelta } from '../index/delta.js';
import type { Manifest } from '../index/types.js';
import path from 'node:path';

/** Stored beside vectors.hnsw in each index generation. */
export const LEXICAL_FILE = 'lexical.json';
export const LEXICAL_VERSION = 1;
/** The boilerplate alone, beside lexical.json: what an update that appends (index/append.ts) counts new work with. */
export const TEMPLATES_FILE = 'templates.json';

interface LexicalJson {
  version: number;
  terms: string[];
  /** [path, content length, flat (term index, count) pairs] */
  docs: Array<[string, number, number[]]>;
  templates: TemplatesJson;
}

/** The boilerplate as lexical.json and templates.json store it. `changed`: documents added, changed or removed since it was found (absent: 0). */
interface TemplatesJson {
  shingle: number;
  minDocs: number;
  docs: number;
  hashes: number[];
  examples: TemplateSet['examples'];
  changed?: number;
}

const templatesToJson = (t: TemplateSet, changed: number): TemplatesJson => ({
  shingle: t.shingle,
  minDocs: t.minDocs,
  docs: t.docs,
  hashes: [...t.hashes],
  examples: t.examples,
  changed,
});
const templatesFromJson = (t: TemplatesJson): TemplateSet => ({
  shingle: t.shingle,
  minDocs: t.minDocs,
  docs: t.docs,
  hashes: new Set(t.hashes),
  examples: t.examples,
});

export interface LexicalData {
  bm25: Bm25Index;
  templates: TemplateSet;
}

/** The lexical side a check scores with: one index, or this repository's beside other repositories' (the org view). */
export interface LexicalView {
  bm25: LexicalScorer;
  templates: TemplateSet;
}

/** Tokens of a text for lexical matching, its boilerplate removed. */
export function lexicalTokens(text: string, templates: TemplateSet | null): string[] {
  return tokenize(stripTemplates(text, templates).text);
}

/**
 * What an update takes from the generation before it: its boilerplate, and each document's term
 * counts keyed by path with the content hash they were counted from (lexical reuse, for-build.ts).
 */
export interface LexicalReuse {
  templates: TemplateSet;
  /** Documents added, changed or removed since the boilerplate was found, over every update since. */
  changed: number;
  docs: Map<string, { hash: string; len: number; tf: Map<string, number> }>;
}

/**
 * The boilerplate is found again only when the corpus has moved this far from where it was found (a
 * share of its documents then, at least a few): below it, an update adds or changes a handful of
 * documents and the lines shared by many stay what they were.
 */
const TEMPLATE_DRIFT = 0.05;
const TEMPLATE_DRIFT_MIN = 8;

/** Documents added, changed or removed since the boilerplate was found: the updates before this one's and this one's. */
function drift(reuse: LexicalReuse, docs: Array<{ path: string; hash?: string }>): number {
  const paths = new Set(docs.map((d) => d.path));
  const now =
    docs.filter((d) => d.hash === undefined || reuse.docs.get(d.path)?.hash !== d.hash).length +
    [...reuse.docs.keys()].filter((p) => !paths.has(p)).length;
  return reuse.changed + now;
}

/** Whether an update keeps the boilerplate found before: the documents added, changed or removed since it was found are few enough. */
export function keepsTemplates(reuse: LexicalReuse | null, docs: Array<{ path: string; hash?: string }>): boolean {
  return reuse !== null && templatesHold(reuse.templates, drift(reuse, docs));
}

/**
 * The lexical index of `docs`. With `reuse`, a document whose content hash is the one its counts were
 * made from keeps them, and the boilerplate is kept while the corpus has drifted less than
 * TEMPLATE_DRIFT from where it was found: an update then costs its new documents, not the corpus.
 * `text` may be null for a document whose counts are reused (then it is never needed).
 */
export function buildLexical(
  docs: Array<{ path: string; text: string | null; hash?: string }>,
  reuse: LexicalReuse | null = null,
): { data: LexicalData; buffer: Buffer; changed: number } {
  const keep = keepsTemplates(reuse, docs);
  const textOf = (d: (typeof docs)[number]) => {
    if (d.text === null) throw new Error(`lexical index: no text for ${d.path}`);
    return d.text;
  };
  const templates = keep ? reuse!.templates : detectTemplates(docs.map(textOf));
  const lexDocs: LexicalDoc[] = docs.map((d) => {
    const had = keep && d.hash !== undefined ? reuse!.docs.get(d.path) : undefined;
    if (had && had.hash === d.hash) return { path: d.path, len: had.len, tf: had.tf };
    const tokens = lexicalTokens(textOf(d), templates);
    return { path: d.path, len: tokens.length, tf: termCounts(tokens) };
  });
  const termIndex = new Map<string, number>();
  const terms: string[] = [];
  const json: LexicalJson = {
    version: LEXICAL_VERSION,
    terms,
    docs: lexDocs.map((d) => {
      const flat: number[] = [];
      for (const [t, c] of d.tf) {
        let i = termIndex.get(t);
        if (i === undefined) {
          i = terms.length;
          termIndex.set(t, i);
          terms.push(t);
        }
        flat.push(i, c);
      }
      return [d.path, d.len, flat];
    }),
    templates: templatesToJson(templates, keep ? drift(reuse!, docs) : 0),
  };
  return {
    data: { bm25: new Bm25Index(lexDocs), templates },
    buffer: Buffer.from(JSON.stringify(json)),
    changed: json.templates.changed ?? 0,
  };
}

/** templates.json's bytes for a lexical build's boilerplate, with the documents that have changed since it was found. */
export function templatesBuffer(t: TemplateSet, changed: number): Buffer {
  return Buffer.from(JSON.stringify({ version: LEXICAL_VERSION, ...templatesToJson(t, changed) }));
}

/**
 * A generation's boilerplate from templates.json (checked against the manifest) and its drift (documents
 * added, changed or removed since it was found); null when it has none or it cannot be used.
 */
export function readTemplates(dir: string, manifest: Manifest): { templates: TemplateSet; changed: number } | null {
  try {
    const t = JSON.parse(readChecked(dir, TEMPLATES_FILE, manifest).toString('utf8')) as TemplatesJson & {
      version: number;
    };
    if (t.version !== LEXICAL_VERSION || !Array.isArray(t.hashes) || typeof t.changed !== 'number') return null;
    return { templates: templatesFromJson(t), changed: t.changed };
  } catch {
    return null;
  }
}

/** Whether the boilerplate found before still holds after `changed` documents were added, changed or removed since (keepsTemplates' bound). */
export function templatesHold(t: TemplateSet, changed: number): boolean {
  return changed <= Math.max(TEMPLATE_DRIFT_MIN, TEMPLATE_DRIFT * t.docs);
}

function parse(buf: Buffer, file: string): LexicalJson {
  const json = JSON.parse(buf.toString('utf8')) as LexicalJson;
  if (json.version !== LEXICAL_VERSION || !Array.isArray(json.terms) || !Array.isArray(json.docs)) {
    throw new Error(
      `${file}: lexical index format ${String(json.version)} is not ${LEXICAL_VERSION}; run \`agentos index --full\``,
    );
  }
  return json;
}

/**
 * A generation's lexical index as an update reuses it: its boilerplate, and the counts of each
 * document with the hash given for it. Work appended since its base (delta.ts) is counted as
 * drift: the boilerplate was found before it came.
 */
export function readLexicalReuse(dir: string, manifest: Manifest, hashes: Map<string, string>): LexicalReuse | null {
  try {
    const { docs, templates, changed } = decodeGeneration(dir, manifest);
    const reuse: LexicalReuse['docs'] = new Map();
    for (const d of docs) {
      const hash = hashes.get(d.path);
      if (hash !== undefined) reuse.set(d.path, { hash, len: d.len, tf: d.tf });
    }
    return { docs: reuse, changed: changed + (manifest.delta?.docs ?? 0), templates };
  } catch {
    // Unreadable, corrupt or of another version: counted again from the texts.
    return null;
  }
}

/** A generation's lexical side: its base file's documents, then those appended since (delta.ts). */
export function decodeGeneration(
  dir: string,
  manifest: Manifest,
): { docs: LexicalDoc[]; templates: TemplateSet; changed: number } {
  const sha = manifest.integrity.extra?.[LEXICAL_FILE]?.sha256;
  if (!sha) throw new Error(`index generation ${dir} has no lexical index; run \`agentos index\``);
  const base = decode(path.join(dir, LEXICAL_FILE), sha);
  const delta = readDelta(dir, manifest);
  if (!delta) return base;
  return {
    ...base,
    docs: [...base.docs, ...delta.lexical.map(([p, len, pairs]): LexicalDoc => ({ path: p, len, tf: new Map(pairs) }))],
  };
}

/** Load a generation's lexical index, appended work included. */
export function readGenerationLexical(root: string, generation: string): LexicalData {
  const dir = indexPaths(root).generation(generation).dir;
  const { docs, templates } = decodeGeneration(dir, readManifest(path.join(dir, 'manifest.json')));
  return { bm25: new Bm25Index(docs), templates };
}

/** Load a generation's lexical index; `sha256` (from the manifest) is checked when given. */
export function readLexical(file: string, sha256?: string): LexicalData {
  const { docs, templates } = decode(file, sha256);
  return { bm25: new Bm25Index(docs), templates };
}

/** A lexical file as its documents' counts and its boilerplate, checked against `sha256` when given. */
function decode(file: string, sha256?: string): { docs: LexicalDoc[]; templates: TemplateSet; changed: number } {
  const buf = readFileSync(file);
  if (sha256 && createHash('sha256').update(buf).digest('hex') !== sha256) {
    throw new Error(`lexical index ${file} is truncated or corrupt; run \`agentos index --full\``);
  }
  const json = parse(buf, file);
  const docs: LexicalDoc[] = json.docs.map(([p, len, flat]) => {
    const tf = new Map<string, number>();
    for (let i = 0; i < flat.length; i += 2) tf.set(json.terms[flat[i]], flat[i + 1]);
    return { path: p, len, tf };
  });
  const t = json.templates;
  return { docs, templates: templatesFromJson(t), changed: t.changed ?? 0 };
}

/** Load the live generation's lexical index (throws when there is none). */
export function openLexical(root: string): LexicalData {
  const name = readCurrent(root);
  if (!name) throw new Error(`no index in ${indexPaths(root).dir}; run \`agentos index --include-history\``);
  return readGenerationLexical(root, name);
}

/** For `agentos status`: what the live index treats as boilerplate (null when no index or no lexical file). */
export function readTemplateSummary(
  root: string,
): { minDocs: number; docs: number; shingles: number; examples: Array<{ text: string; docs: number }> } | null {
  try {
    const name = readCurrent(root);
    if (!name) return null;
    const json = parse(readFileSync(path.join(indexPaths(root).generation(name).dir, LEXICAL_FILE)), LEXICAL_FILE);
    return {
      minDocs: json.templates.minDocs,
      docs: json.templates.docs,
      shingles: json.templates.hashes.length,
      examples: json.templates.examples,
    };
  } catch {
    return null;
  }
}
