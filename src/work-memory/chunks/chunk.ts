import { trimEndSet } from '../../shared/text/linear.js';

/**
 * Split a markdown body into retrieval chunks: one per H1/H2 section (H3 and
 * deeper stay inside their parent), tiny sections merged forward, long ones
 * split on paragraph boundaries so no chunk exceeds the model's window.
 * Changing anything here changes the vectors: bump CHUNKING_VERSION.
 */
export const CHUNKING_VERSION = 3;
/** A section name is shown and stored: a 1 MB heading line is cut to this. */
const MAX_SECTION_CHARS = 200;

export interface Chunk {
  /** The H1/H2 heading the chunk sits under (the document title for a preamble). */
  section: string;
  /** The chunk's markdown, heading included. */
  text: string;
  /** What the embedder sees: the document title and section as context, then the text. */
  embedText: string;
}

export interface ChunkOptions {
  /** Word pieces the body of one chunk may use (the model window minus the prefix and specials). */
  maxTokens: number;
  /** Sections shorter than this are merged into the next one (a bare title says little alone). */
  minTokens: number;
  countTokens: (text: string) => number;
}

interface Section {
  heading: string | null;
  lines: string[];
}

export function chunkMarkdown(body: string, title: string, opts: ChunkOptions): Chunk[] {
  const sections = splitSections(body);
  const merged = mergeSmall(sections, opts);
  const chunks: Chunk[] = [];
  for (const s of merged) {
    const text = s.lines.join('\n').trim();
    if (!text) continue;
    const section = s.heading ?? title;
    const prefix = section === title ? title : `${title} — ${section}`;
    const budget = Math.max(16, opts.maxTokens - opts.countTokens(prefix));
    const pieces = splitToBudget(text, budget, opts.countTokens);
    for (const piece of pieces) {
      // When the first paragraph fills the budget alone, the heading is left as a piece of
      // its own: it says nothing the prefix does not, and would match on the title alone.
      if (pieces.length > 1 && isHeadingsOnly(piece)) continue;
      chunks.push({ section, text: piece, embedText: `${prefix}\n\n${stripHeadingLine(piece, section)}` });
    }
  }
  return chunks;
}

function isHeadingsOnly(piece: string): boolean {
  return piece.split('\n').every((l) => l.trim() === '' || /^#{1,6}\s/.test(l));
}

/** The heading is already in the prefix; do not feed it twice. */
function stripHeadingLine(piece: string, section: string): string {
  const first = piece.split('\n', 1)[0];
  if (/^#{1,2}\s/.test(first) && first.replace(/^#+\s+/, '').trim() === section) {
    return piece.slice(first.length).trim() || piece;
  }
  return piece;
}

function splitSections(body: string): Section[] {
  const sections: Section[] = [];
  let current: Section = { heading: null, lines: [] };
  let inFence = false;
  for (const line of body.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    // `\s+(.+?)\s*#*\s*$` was cubic on a heading padded with spaces: match the marks, trim in one pass.
    const m = !inFence ? /^(#{1,2})\s([\s\S]+)$/.exec(line) : null;
    if (m) {
      if (current.heading !== null || current.lines.some((l) => l.trim())) sections.push(current);
      current = { heading: sectionHeading(m[2]).slice(0, MAX_SECTION_CHARS), lines: [line] };
    } else {
      current.lines.push(line);
    }
  }
  if (current.heading !== null || current.lines.some((l) => l.trim())) sections.push(current);
  return sections;
}

/**
 * What `(.+?)\s*#*\s*$` kept of a heading, in one pass: trailing whitespace, `#`s and
 * whitespace go (at least one character stays). Same names as before: no re-chunking.
 */
function sectionHeading(rest: string): string {
  const t = rest.trimStart();
  const isClosing = (c: string) => c === '#';
  let i = trimEndSet(t).length;
  while (i > 1 && isClosing(t[i - 1])) i--;
  i = Math.max(1, trimEndSet(t.slice(0, i)).length);
  return t.slice(0, i).trim();
}

function mergeSmall(sections: Section[], opts: ChunkOptions): Section[] {
  const out: Section[] = [];
  let carry: Section | null = null;
  for (const s of sections) {
    const cur: Section = carry ? { heading: carry.heading ?? s.heading, lines: [...carry.lines, ...s.lines] } : s;
    carry = null;
    if (opts.countTokens(cur.lines.join('\n')) < opts.minTokens) carry = cur;
    else out.push(cur);
  }
  if (carry) {
    const last = out[out.length - 1];
    if (last) last.lines.push(...carry.lines);
    else out.push(carry);
  }
  return out;
}

/** Greedy packing of paragraphs; a paragraph above budget is split by lines, then by words. */
export function splitToBudget(text: string, budget: number, count: (t: string) => number): string[] {
  if (count(text) <= budget) return [text];
  const units = text.split(/\n\s*\n/).flatMap((p) => (count(p) <= budget ? [p] : splitParagraph(p, budget, count)));
  const out: string[] = [];
  let cur: string[] = [];
  let curTokens = 0;
  for (const u of units) {
    const t = count(u);
    if (cur.length && curTokens + t > budget) {
      out.push(cur.join('\n\n'));
      cur = [];
      curTokens = 0;
    }
    cur.push(u);
    curTokens += t;
  }
  if (cur.length) out.push(cur.join('\n\n'));
  return out.map((s) => s.trim()).filter(Boolean);
}

function splitParagraph(p: string, budget: number, count: (t: string) => number): string[] {
  const lines = p.split('\n');
  const pieces = lines.length > 1 ? lines : p.split(/(?<=[.!?])\s+/);
  const out: string[] = [];
  let cur = '';
  for (const piece of pieces) {
    if (count(piece) > budget) {
      if (cur) out.push(cur);
      cur = '';
      out.push(...splitWords(piece, budget, count));
      continue;
    }
    const next = cur ? `${cur}\n${piece}` : piece;
    if (cur && count(next) > budget) {
      out.push(cur);
      cur = piece;
    } else cur = next;
  }
  if (cur) out.push(cur);
  return out;
}

function splitWords(s: string, budget: number, count: (t: string) => number): string[] {
  const words = s.split(/\s+/);
  const out: string[] = [];
  let cur: string[] = [];
  for (const w of words) {
    cur.push(w);
    if (count(cur.join(' ')) > budget && cur.length > 1) {
      cur.pop();
      out.push(cur.join(' '));
      cur = [w];
    }
  }
  if (cur.length) out.push(cur.join(' '));
  return out;
}

/** A tokenizer-free estimate used where the real tokenizer is not loaded (unit tests). */
export function approxTokens(text: string): number {
  const words = text.match(/[A-Za-z]+|\d+|[^\sA-Za-z\d]/g);
  return words ? Math.ceil(words.length * 1.15) : 0;
}
