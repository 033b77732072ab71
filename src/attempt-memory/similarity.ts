/**
 * How much a new attempt resembles a past failure, as the PRD scores it:
 * same tool +0.3, similar command/path +0.4, similar context/tags +0.3.
 *
 * Command similarity is a weighted Dice coefficient over normalised tokens.
 * The program and its sub-command weigh little and the arguments much, so
 * `npm install ioredis` is not "the same" as `npm install redis-node` (the
 * package is what failed), while `npm i redis-node@1.2.4` is the same as
 * `npm install redis-node@1.2.3`. Two tokens that differ only slightly
 * (edit-distance ratio >= 0.85, e.g. a typo) count by that ratio.
 */
import { commandTokens, textWords, toolFamily } from './normalise.js';

export const WEIGHTS = { tool: 0.3, command: 0.4, context: 0.3 } as const;
const FUZZY_MIN = 0.85;
const MAX_TOKENS = 64;
const MAX_TOKEN_CHARS = 64;

export interface Comparable {
  tool: string;
  command: string;
  context?: string | null;
  tags?: string[];
}

/** Pre-computed features of one side, so the attempt memory can compare one query to many failures cheaply. */
export interface Features {
  tool: string;
  tokens: string[];
  weights: number[];
  contextWords: Set<string>;
  tags: Set<string>;
}

export function features(a: Comparable): Features {
  return featuresFromTokens(a, commandTokens(a.command));
}

/** Features from command tokens already normalised (the attempt memory keeps them, so a check does not redo it per row). */
export function featuresFromTokens(a: Omit<Comparable, 'command'>, commandTokens: string[]): Features {
  const tokens = commandTokens.slice(0, MAX_TOKENS).map((t) => t.slice(0, MAX_TOKEN_CHARS));
  return {
    tool: toolFamily(a.tool),
    tokens,
    weights: tokens.map((t, i) => tokenWeight(t, i, tokens)),
    contextWords: new Set(a.context ? textWords(a.context) : []),
    tags: new Set((a.tags ?? []).map((t) => t.toLowerCase())),
  };
}

/** Program and sub-command 1, flags 0.5, arguments (packages, paths, targets) 2. */
function tokenWeight(t: string, i: number, all: string[]): number {
  if (i === 0) return 1;
  if (t.startsWith('-')) return 0.5;
  if (i === 1 && /^[a-z][a-z-]*$/.test(t) && all.length > 2) return 1;
  return 2;
}

export function commandSimilarity(a: Features, b: Features): number {
  const total = a.weights.reduce((s, w) => s + w, 0) + b.weights.reduce((s, w) => s + w, 0);
  if (total === 0) return 0;
  const used = new Array<boolean>(b.tokens.length).fill(false);
  let matched = 0;
  a.tokens.forEach((t, i) => {
    // Exact match first; else the closest unused token above the fuzzy bar.
    let best = -1;
    let bestScore = 0;
    for (let j = 0; j < b.tokens.length; j++) {
      if (used[j]) continue;
      if (b.tokens[j] === t) {
        best = j;
        bestScore = 1;
        break;
      }
    }
    if (best < 0) {
      for (let j = 0; j < b.tokens.length; j++) {
        if (used[j]) continue;
        const r = closeRatio(t, b.tokens[j]);
        if (r >= FUZZY_MIN && r > bestScore) {
          best = j;
          bestScore = r;
        }
      }
    }
    if (best >= 0) {
      used[best] = true;
      matched += bestScore * (a.weights[i] + b.weights[best]);
    }
  });
  return matched / total;
}

/**
 * Tags overlap (share of the smaller set found in the other); with both contexts
 * given, averaged with the contexts' word overlap.
 */
export function contextSimilarity(a: Features, b: Features): number {
  // One side says nothing about its context (no tags, no words): the context is
  // unknown, not different. The command is then the best evidence of it, so
  // an identical bare command (`make x` twice) is still a repeat.
  const silent = (f: Features) => f.tags.size === 0 && f.contextWords.size === 0;
  if (silent(a) || silent(b)) return commandSimilarity(a, b);
  const tags = overlap(a.tags, b.tags);
  if (a.contextWords.size === 0 || b.contextWords.size === 0) return tags;
  return (tags + dice(a.contextWords, b.contextWords)) / 2;
}

export function similarity(a: Features, b: Features): number {
  const score =
    (a.tool === b.tool ? WEIGHTS.tool : 0) +
    WEIGHTS.command * commandSimilarity(a, b) +
    WEIGHTS.context * contextSimilarity(a, b);
  // Rounded so that 0.3 + 0.4 + 0.15 is 0.85, not 0.8499999999999999, at the threshold.
  return Math.round(score * 1e9) / 1e9;
}

function overlap(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let n = 0;
  for (const x of a) if (b.has(x)) n++;
  return n / Math.min(a.size, b.size);
}

function dice(a: Set<string>, b: Set<string>): number {
  let n = 0;
  for (const x of a) if (b.has(x)) n++;
  return (2 * n) / (a.size + b.size);
}

/**
 * For each query token, the pieces one of which any token close enough to it must
 * contain unchanged: a token within k edits of t keeps at least one of k + 1 disjoint
 * pieces of t (each edit touches at most one). Exact matches contain the whole token.
 */
export function tokenPieces(query: Features): string[][] {
  return query.tokens.map((t) => {
    const k = Math.floor(t.length * (1 - FUZZY_MIN) + 1e-9);
    const size = t.length / (k + 1);
    return Array.from({ length: k + 1 }, (_, i) => t.slice(Math.round(i * size), Math.round((i + 1) * size)));
  });
}

/**
 * False when no token of a stored command (its normalised tokens joined by spaces)
 * can match any query token, exactly or fuzzily: commandSimilarity is then 0, and
 * most rows of a check are settled by a few substring searches.
 */
export function mayShareToken(pieces: string[][], norm: string): boolean {
  return pieces.some((ps) => ps.some((p) => norm.includes(p)));
}

/** 1 - Levenshtein distance / longer length. */
export function ratio(a: string, b: string): number {
  const longer = Math.max(a.length, b.length);
  if (longer === 0) return 1;
  return 1 - levenshtein(a, b, longer) / longer;
}

/**
 * ratio(a, b) when it reaches FUZZY_MIN, else 0: the only values commandSimilarity
 * uses. Most pairs are settled without the O(n·m) table: below 7 characters only
 * equal tokens reach the bar, and lengths far apart never do.
 */
export function closeRatio(a: string, b: string): number {
  if (a === b) return 1;
  const longer = Math.max(a.length, b.length);
  const maxDistance = Math.floor(longer * (1 - FUZZY_MIN) + 1e-9);
  if (maxDistance === 0 || Math.abs(a.length - b.length) > maxDistance) return 0;
  const r = 1 - levenshtein(a, b, maxDistance) / longer;
  return r >= FUZZY_MIN ? r : 0;
}

/** Edit distance; any value above `cap` is returned as cap + 1 (the rows stop early). */
function levenshtein(a: string, b: string, cap: number): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (cur[j] < rowMin) rowMin = cur[j];
    }
    if (rowMin > cap) return cap + 1;
    prev = cur;
  }
  return Math.min(prev[b.length], cap + 1);
}
