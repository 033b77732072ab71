/**
 * `agentos model fetch`: the hub download against a local HTTP server standing
 * in for the hub (started here on 127.0.0.1), `--from DIR`, the SHA-256 pins,
 * and the one line a missing model gives. Small synthetic files with their own
 * pins keep this fast; test/integration/install.test.ts fetches the real model.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { copyFromDir, fetchFromHub, hubBaseUrl } from '../../src/work-memory/embeddings/fetch-model.js';
import { filesFor, MODEL_FILES, type ModelFile } from '../../src/work-memory/embeddings/model-files.js';
import {
  assertModelFiles,
  MODEL_FETCH_HINT,
  resolveModelLocation,
  userModelDir,
} from '../../src/work-memory/embeddings/model-location.js';
import { RUNTIME_MISSING } from '../../src/work-memory/embeddings/minilm.js';
import { ExitCode, ModelUnavailableError } from '../../src/shared/errors.js';
import { main } from '../../src/cli/cli.js';
import { startHub } from '../helpers/hub-server.js';
import { makeIO, makeProject } from '../helpers/fakes.js';
import { REPO } from '../helpers/paths.js';

const ID = 'Xenova/all-MiniLM-L6-v2';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const CONTENT: Record<string, Buffer> = {
  'tokenizer.json': Buffer.from('{"tokenizer": true}'),
  'config.json': Buffer.from('{"hidden_size": 384}'),
  'onnx/model_quantized.onnx': Buffer.alloc(300_000, 7),
};
const FILES: ModelFile[] = Object.entries(CONTENT).map(([p, b]) => ({
  path: p,
  sha256: sha(b),
  bytes: b.length,
  ...(p.endsWith('.onnx') ? { dtype: 'q8' as const } : {}),
}));

let tmp: string;
let hubRoot: string;
beforeEach(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-fetch-'));
  hubRoot = path.join(tmp, 'hub');
  for (const [p, b] of Object.entries(CONTENT)) {
    await mkdir(path.dirname(path.join(hubRoot, ID, p)), { recursive: true });
    await writeFile(path.join(hubRoot, ID, p), b);
  }
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function listAll(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

describe('fetchFromHub against a local hub', () => {
  test('downloads every pinned file, reports progress to the total, and a second run downloads nothing', async () => {
    const hub = await startHub(hubRoot);
    try {
      const dest = path.join(tmp, 'cache');
      const seen: number[] = [];
      const r = await fetchFromHub(
        { AGENTOS_HUB_URL: hub.url },
        { modelId: ID, dtype: 'q8', dest, files: FILES, onProgress: (p) => seen.push(p.doneBytes / p.totalBytes) },
      );
      expect(r.fetched.sort()).toEqual(Object.keys(CONTENT).sort());
      for (const [p, b] of Object.entries(CONTENT)) expect(readFileSync(path.join(dest, ID, p)).equals(b)).toBe(true);
      expect(seen.at(-1)).toBe(1);
      expect(hub.requests.every((u) => u.startsWith(`/${ID}/resolve/`))).toBe(true);

      hub.requests.length = 0;
      const again = await fetchFromHub({ AGENTOS_HUB_URL: hub.url }, { modelId: ID, dtype: 'q8', dest, files: FILES });
      expect(again.fetched).toEqual([]);
      expect(again.kept.sort()).toEqual(Object.keys(CONTENT).sort());
      expect(hub.requests).toEqual([]);
    } finally {
      await hub.close();
    }
  });

  test('a file that does not match its pin is refused and leaves nothing behind (not even a temp file)', async () => {
    const hub = await startHub(hubRoot, (f) => (f.endsWith('.onnx') ? Buffer.alloc(300_000, 8) : null));
    try {
      const dest = path.join(tmp, 'cache');
      const err = await fetchFromHub(
        { AGENTOS_HUB_URL: hub.url },
        { modelId: ID, dtype: 'q8', dest, files: FILES },
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ModelUnavailableError);
      expect((err as Error).message).toMatch(
        /onnx\/model_quantized\.onnx from http:\/\/127\.0\.0\.1:\d+\/.* does not match its pin/,
      );
      expect((await listAll(path.join(dest, ID))).filter((f) => f.includes('.onnx'))).toEqual([]);
    } finally {
      await hub.close();
    }
  });

  test('HTTP 404 names the URL and the status', async () => {
    const hub = await startHub(hubRoot, (f) => (f === 'config.json' ? 404 : null));
    try {
      const err = await fetchFromHub(
        { AGENTOS_HUB_URL: hub.url },
        { modelId: ID, dtype: 'q8', dest: path.join(tmp, 'c'), files: FILES },
      ).catch((e: unknown) => e);
      expect((err as Error).message).toContain(`${hub.url}/${ID}/resolve/`);
      expect((err as Error).message).toContain('HTTP 404');
      expect((err as ModelUnavailableError).code).toBe(ExitCode.ModelUnavailable);
    } finally {
      await hub.close();
    }
  });

  test('offline (nothing listens): one line naming the host and what to do, never "fetch failed"', async () => {
    const hub = await startHub(hubRoot);
    await hub.close(); // the port is now closed
    const err = await fetchFromHub(
      { AGENTOS_HUB_URL: hub.url },
      { modelId: ID, dtype: 'q8', dest: path.join(tmp, 'c'), files: FILES },
    ).catch((e: unknown) => e);
    const msg = (err as Error).message;
    expect(msg).toContain(`cannot reach ${hub.url}`);
    expect(msg).toContain('agentos model fetch --from DIR');
    expect(msg).not.toMatch(/fetch failed/);
    expect(msg.split('\n')).toHaveLength(1);
  });

  test('the hub base URL: AGENTOS_HUB_URL, then HF_ENDPOINT, then the hub; no trailing slash', () => {
    expect(hubBaseUrl({ AGENTOS_HUB_URL: 'http://127.0.0.1:9/', HF_ENDPOINT: 'http://x' })).toBe('http://127.0.0.1:9');
    expect(hubBaseUrl({ HF_ENDPOINT: 'http://mirror.local' })).toBe('http://mirror.local');
    expect(hubBaseUrl({})).toBe('https://huggingface.co');
  });
});

describe('copyFromDir (--from DIR)', () => {
  test('accepts the folder holding <owner>/<name>/ or the model folder itself', async () => {
    const a = await copyFromDir(hubRoot, { modelId: ID, dtype: 'q8', dest: path.join(tmp, 'a'), files: FILES });
    const b = await copyFromDir(path.join(hubRoot, ID), {
      modelId: ID,
      dtype: 'q8',
      dest: path.join(tmp, 'b'),
      files: FILES,
    });
    expect(a.fetched.length).toBe(3);
    expect(b.fetched.length).toBe(3);
  });

  test('a missing file or a folder without a model: a one-line error naming it', async () => {
    await rm(path.join(hubRoot, ID, 'config.json'));
    const e1 = await copyFromDir(hubRoot, { modelId: ID, dtype: 'q8', dest: path.join(tmp, 'a'), files: FILES }).catch(
      (e: unknown) => e,
    );
    expect((e1 as Error).message).toContain(path.join(hubRoot, ID, 'config.json'));
    const e2 = await copyFromDir(tmp, { modelId: ID, dtype: 'q8', dest: path.join(tmp, 'b'), files: FILES }).catch(
      (e: unknown) => e,
    );
    expect((e2 as Error).message).toMatch(/holds neither/);
  });
});

describe('the pins and the lookup', () => {
  test('q8 needs the tokenizer, config and the int8 weights; every pin is a SHA-256', () => {
    const q8 = filesFor('q8').map((f) => f.path);
    expect(q8).toEqual(
      expect.arrayContaining(['tokenizer.json', 'tokenizer_config.json', 'config.json', 'onnx/model_quantized.onnx']),
    );
    for (const f of MODEL_FILES) expect(f.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  test('the pins agree with scripts/provision-model.sh (one truth, two languages)', () => {
    const script = readFileSync(path.join(REPO, 'scripts', 'provision-model.sh'), 'utf8');
    for (const f of MODEL_FILES) expect(script).toContain(f.sha256);
  });

  test('without a provisioned folder the lookup ends at the user cache, and a missing model says to run `agentos model fetch`', async () => {
    const root = await makeProject();
    const env = { AGENTOS_CACHE_DIR: path.join(tmp, 'cache') };
    const loc = resolveModelLocation(env, null, root, 'Nobody/no-such-model', 'q8');
    expect(loc).toEqual({ dir: userModelDir(env), source: 'user cache' });
    expect(() => assertModelFiles(loc, 'Nobody/no-such-model', 'q8')).toThrow(MODEL_FETCH_HINT);
  });

  test('the runtime hint installs the onnxruntime-node version package.json pins', () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8'));
    expect(RUNTIME_MISSING).toContain(
      `onnxruntime-node@${pkg.optionalDependencies['onnxruntime-node']} --onnxruntime-node-install=skip`,
    );
  });
});

describe('agentos model fetch (the command)', () => {
  test('--from a folder whose files do not match the pins: exit 5, one line on stderr, JSON error on stdout with --json', async () => {
    const root = await makeProject();
    for (const f of MODEL_FILES)
      if (!existsSync(path.join(hubRoot, ID, f.path)))
        await writeFile(path.join(hubRoot, ID, f.path), 'not the pinned bytes');
    const t = makeIO(root, { env: { AGENTOS_CACHE_DIR: path.join(tmp, 'cache') } });
    const code = await main(['node', 'agentos', 'model', 'fetch', '--from', hubRoot, '--json'], t.io);
    expect(code).toBe(ExitCode.ModelUnavailable);
    const lines = t.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^agentos: .* does not match its pin/);
    expect(JSON.parse(t.stdout())).toMatchObject({ error: { code: 5, kind: 'ModelUnavailableError' } });
  });

  test('offline: exit 5 and the one line, nothing half-written in the cache', async () => {
    const root = await makeProject();
    const hub = await startHub(hubRoot);
    await hub.close();
    const cache = path.join(tmp, 'cache');
    const t = makeIO(root, { env: { AGENTOS_CACHE_DIR: cache, AGENTOS_HUB_URL: hub.url } });
    const code = await main(['node', 'agentos', 'model', 'fetch'], t.io);
    expect(code).toBe(ExitCode.ModelUnavailable);
    expect(t.stderr()).toMatch(
      new RegExp(`^agentos: cannot reach ${hub.url.replace(/[.]/g, '\\.')} .*agentos model fetch --from DIR.*\\n$`),
    );
    expect(t.stdout()).toBe('');
    expect(await listAll(cache)).toEqual([]);
  });
});
