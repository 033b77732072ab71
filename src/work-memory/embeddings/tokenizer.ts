import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { writeFileAtomic } from '../../shared/fsutil/atomic-write.js';
import path from 'node:path';
import { MODEL_FILES } from './model-files.js';

/** What the embedder uses of @huggingface/tokenizers' Tokenizer. */
export interface Tokenizer {
  encode(text: string, opts?: { add_special_tokens?: boolean }): { ids: number[] };
}

export interface LoadedTokenizer {
  tokenizer: Tokenizer;
  /** Which file the vocabulary was built from (the fast way, or the library's own). */
  vocabFrom: 'vocab.txt' | 'tokenizer.json';
}

/** The fields of its WordPiece model that building the vocabulary fills (0.2.x). */
interface WordPieceModel {
  tokens_to_ids: Map<string, number>;
  vocab: string[];
  unk_token: string;
  unk_token_id: number | undefined;
}

interface TokenizerJson {
  model?: { type?: string; vocab?: Record<string, number>; unk_token?: string };
  added_tokens?: { id: number; content: string }[];
}

/**
 * The model folder's tokenizer. @huggingface/tokenizers builds WordPiece's
 * 30,522-entry vocabulary with `new Map(Object.entries(vocab))` and then an
 * array from the map: ~35 ms of a cold `issue start` (~60 ms on a busy
 * machine), on the main thread, which is the critical path there (ADR-0013).
 * When the folder holds the pinned vocab.txt and tokenizer.json (model-files.ts),
 * the tokenizer is built over a stub vocabulary and then given the map and array
 * read from vocab.txt, a token per line, the line number being its id (~5 ms).
 * Any other pair of files, or another version's internals, get the library's own
 * way. A slow test checks the pinned pair line by line, and that both ways give
 * the same ids on the reference texts, the demo corpus and the docs.
 */
export async function loadTokenizer(
  folder: string,
  opts: { fastVocab?: boolean; cacheDir?: string | null } = {},
): Promise<LoadedTokenizer> {
  const vocabFile = path.join(folder, 'vocab.txt');
  // The pinned pair read before: its tokenizer.json without the 30,522-entry vocabulary (issue 50: parsing
  // and hashing the 700 KB file was ~12 ms of a cold check, and most of the garbage collected before the query).
  // The files' identity before anything is read: the cache is looked up by it, and written under it only when it is unchanged after the hashes.
  const before = opts.fastVocab !== false && opts.cacheDir ? await filesKey(folder).catch(() => null) : null;
  const cached = before && opts.cacheDir ? await readSlim(opts.cacheDir, folder, before) : null;
  if (cached) {
    const [{ Tokenizer }, config, vocabText] = await Promise.all([
      import('@huggingface/tokenizers'),
      readFile(path.join(folder, 'tokenizer_config.json'), 'utf8').then(
        (t) => JSON.parse(t) as Record<string, unknown>,
      ),
      readFile(vocabFile, 'utf8'),
    ]);
    const built = withVocab(
      new Tokenizer(cached, config) as unknown as Tokenizer & { model?: Partial<WordPieceModel> },
      vocabFromLines(vocabText),
    );
    if (built) return built;
  }
  const [{ Tokenizer }, jsonText, config, vocabText] = await Promise.all([
    import('@huggingface/tokenizers'),
    readFile(path.join(folder, 'tokenizer.json'), 'utf8'),
    readFile(path.join(folder, 'tokenizer_config.json'), 'utf8').then((t) => JSON.parse(t) as Record<string, unknown>),
    opts.fastVocab !== false && existsSync(vocabFile) ? readFile(vocabFile, 'utf8') : Promise.resolve(null),
  ]);
  const json = JSON.parse(jsonText) as TokenizerJson;
  const full = json.model?.vocab;
  // Only for the pinned pair of files (model-files.ts), which the slow tests compare line by line.
  const pinned = vocabText !== null && isPinned('vocab.txt', vocabText) && isPinned('tokenizer.json', jsonText);
  const vocab = pinned && json.model?.type === 'WordPiece' && full ? vocabFromLines(vocabText) : null;
  const libraryWay = (): LoadedTokenizer => ({
    tokenizer: new Tokenizer(json, config) as unknown as Tokenizer,
    vocabFrom: 'tokenizer.json',
  });
  if (!vocab || !full) return libraryWay();
  const model = json.model!;
  // Only the tokens the constructor looks up itself: the unknown token and the added ones.
  const stub: Record<string, number> = {};
  for (const t of [model.unk_token ?? '[UNK]', ...(json.added_tokens ?? []).map((a) => a.content)])
    if (t in full) stub[t] = full[t];
  const slim = { ...json, model: { ...model, vocab: stub } };
  // Kept as it is before the library sees it (its constructor may keep or change what it is given).
  const slimText = JSON.stringify(slim);
  const built = withVocab(
    new Tokenizer(slim, config) as unknown as Tokenizer & { model?: Partial<WordPieceModel> },
    vocab,
  );
  if (!built) return libraryWay(); // another version's internals
  // A cache: never a reason to fail. Written only for the very files that were hashed (none replaced meanwhile).
  if (opts.cacheDir && before) await writeSlim(opts.cacheDir, folder, slimText, before).catch(() => undefined);
  return built;
}

/** The tokenizer given the vocabulary read from vocab.txt, or null when its internals are another version's. */
function withVocab(
  tokenizer: Tokenizer & { model?: Partial<WordPieceModel> },
  vocab: { map: Map<string, number>; list: string[] },
): LoadedTokenizer | null {
  const wp = tokenizer.model;
  if (!wp || !(wp.tokens_to_ids instanceof Map) || !Array.isArray(wp.vocab) || typeof wp.unk_token !== 'string')
    return null;
  wp.tokens_to_ids = vocab.map;
  wp.vocab = vocab.list;
  wp.unk_token_id = vocab.map.get(wp.unk_token);
  return { tokenizer, vocabFrom: 'vocab.txt' };
}

/**
 * The slim tokenizer.json kept for a model folder, valid while both files are the ones that were
 * hashed (same size, modification time and inode): written only after they were found pinned.
 */
const SLIM_VERSION = 1;
function slimFile(cacheDir: string, folder: string): string {
  return path.join(
    cacheDir,
    `tokenizer-slim-${createHash('sha256').update(path.resolve(folder)).digest('hex').slice(0, 16)}.json`,
  );
}

async function filesKey(folder: string): Promise<string> {
  const parts = await Promise.all(
    ['tokenizer.json', 'vocab.txt'].map((f) =>
      stat(path.join(folder, f)).then((st) => `${f}:${st.size}:${st.mtimeMs}:${st.ino}`),
    ),
  );
  return `${SLIM_VERSION}|${parts.join('|')}`;
}

async function readSlim(cacheDir: string, folder: string, key: string): Promise<TokenizerJson | null> {
  try {
    const kept = JSON.parse(await readFile(slimFile(cacheDir, folder), 'utf8')) as {
      key?: string;
      json?: TokenizerJson;
    };
    return kept.key === key && kept.json?.model?.type === 'WordPiece' ? kept.json : null;
  } catch {
    return null; // none yet, or unreadable: the files are read whole
  }
}

async function writeSlim(cacheDir: string, folder: string, jsonText: string, before: string): Promise<void> {
  if ((await filesKey(folder)) !== before) return;
  await mkdir(cacheDir, { recursive: true });
  await writeFileAtomic(slimFile(cacheDir, folder), `{"key":${JSON.stringify(before)},"json":${jsonText}}`);
}

/**
 * vocab.txt's tokens, a line each, the line number being the id. Called only for
 * the pinned file, which the slow tests check line by line against tokenizer.json.
 */
function vocabFromLines(text: string): { map: Map<string, number>; list: string[] } {
  const list = text.split('\n');
  if (list[list.length - 1] === '') list.pop();
  return { map: new Map(list.map((t, i) => [t, i])), list };
}

function isPinned(name: string, text: string): boolean {
  const pin = MODEL_FILES.find((f) => f.path === name);
  return pin !== undefined && createHash('sha256').update(text, 'utf8').digest('hex') === pin.sha256;
}
