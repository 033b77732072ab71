// SLOW: real model
// Issue 11 end to end: the lexical index is written beside the HNSW vectors in
// the same generation, the hybrid score reports its parts, the keyword
// fallback answers when the model folder is gone, and `eval --pairs` runs on a
// small smoke file.
import { cliEnv, indexedDemo } from '../helpers/cli.js';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { jest } from '@jest/globals';
import { readCurrent } from '../../src/work-memory/index/hnsw-index.js';
import { indexPaths } from '../../src/work-memory/index/layout.js';
import { readTemplateSummary } from '../../src/work-memory/lexical/file.js';
import { BIN, REPO } from '../helpers/paths.js';
import { spawnCollect } from '../helpers/spawn-collect.js';

jest.setTimeout(300_000);

let tmp: string;
let root: string;

function run(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwdRoot = root,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return spawnCollect(process.execPath, [BIN, '-C', cwdRoot, ...args], { cwd: REPO, env: cliEnv(env) });
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-scoring-'));
  root = path.join(tmp, 'repo');
  await indexedDemo(root);
});
afterAll(async () => rm(tmp, { recursive: true, force: true }));

describe('lexical index beside HNSW', () => {
  it('lives in the live generation, recorded with its checksum in the manifest', () => {
    const gen = indexPaths(root).generation(readCurrent(root)!);
    const manifest = JSON.parse(readFileSync(gen.manifest, 'utf8'));
    expect(existsSync(path.join(gen.dir, 'lexical.json'))).toBe(true);
    expect(manifest.integrity.extra['lexical.json'].bytes).toBe(
      readFileSync(path.join(gen.dir, 'lexical.json')).length,
    );
    const t = readTemplateSummary(root)!;
    expect(t.docs).toBeGreaterThan(10);
    expect(t.minDocs).toBeGreaterThanOrEqual(4);
  });

  it('a changed document updates the lexical index in the next generation', async () => {
    const file = path.join(root, 'docs/standards/testing-standard.md');
    await writeFile(file, readFileSync(file, 'utf8') + '\n\nZanzibarquux flakiness budget applies.\n');
    expect((await run(['index', '--include-history'])).code).toBe(0);
    const r = await run(['search', 'zanzibarquux', '--json']);
    // The word is unknown to MiniLM but the hybrid path still ranks the standard; check the lexical file directly too.
    const gen = indexPaths(root).generation(readCurrent(root)!);
    expect(readFileSync(path.join(gen.dir, 'lexical.json'), 'utf8')).toMatch(/zanzibarquux/);
    expect(r.code).toBe(0);
  });

  it('issue start reports the score parts and one match per work', async () => {
    const r = await run([
      'issue',
      'start',
      path.join(root, 'briefs/optimize-docker-build-times.md'),
      '--non-interactive',
      '--json',
      '-o',
      path.join(tmp, 'o1.md'),
    ]);
    const json = JSON.parse(r.stdout);
    expect(json.method).toMatch(/^embedding:/);
    expect(json.status).toBe('duplicate_alert');
    const top = json.matches[0];
    expect(top.id).toBe('27');
    expect(top.components.cosine).toBeGreaterThan(0.8);
    expect(top.components.lexical).toBeGreaterThan(0);
    expect(top.paths.length).toBe(2); // the issue and its design
    expect(typeof top.briefExcerpt).toBe('string');
    const ids = json.nearest.map((m: { id: string }) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('keyword fallback with the model folder removed', () => {
  // The model folder exists but its files are gone (a missing explicit folder is a usage error).
  const noModel = () => ({ AGENTOS_MODEL_DIR: path.join(tmp, 'empty-model-dir') });
  beforeAll(async () => mkdir(path.join(tmp, 'empty-model-dir'), { recursive: true }));

  it('issue start answers from the lexical index, says method lexical, and does not alert on a paraphrase', async () => {
    const r = await run(
      [
        'issue',
        'start',
        path.join(root, 'briefs/optimize-docker-build-times.md'),
        '--non-interactive',
        '--json',
        '-o',
        path.join(tmp, 'o2.md'),
      ],
      noModel(),
    );
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.method).toBe('lexical');
    expect(json.error).toBeNull();
    expect(json.nearest[0].id).toBe('27');
    expect(json.status).toBe('related_context');
    expect(json.warnings.join(' ')).toMatch(/method: lexical/);
    expect(r.stderr).toMatch(/method: lexical/);
  });

  it('a near-verbatim copy of past work still alerts without the model', async () => {
    const copy = path.join(tmp, 'copy.md');
    await writeFile(copy, readFileSync(path.join(root, 'docs/audit/done/27-docker-build-optimization/001-issue.md')));
    const json = JSON.parse(
      (await run(['issue', 'start', copy, '--non-interactive', '--json', '-o', path.join(tmp, 'o3.md')], noModel()))
        .stdout,
    );
    expect(json.method).toBe('lexical');
    expect(json.status).toBe('duplicate_alert');
  });

  it('search and context say method lexical', async () => {
    const s = await run(['search', 'docker', 'build', 'cache', '--json'], noModel());
    expect(JSON.parse(s.stdout).method).toBe('lexical');
    expect(JSON.parse(s.stdout).results.length).toBeGreaterThan(0);
    const c = await run(['context', path.join(root, 'briefs/optimize-docker-build-times.md'), '--json'], noModel());
    expect(JSON.parse(c.stdout).method).toBe('lexical');
  });
});

describe('agentos eval --pairs (smoke)', () => {
  it('builds a scratch project and reports the measures', async () => {
    const reports = [
      {
        id: 's/1',
        title: 'Login page crashes on Safari',
        body: 'Opening the login page in Safari 17 crashes the tab with a white screen.',
        duplicate_of: null,
      },
      {
        id: 's/2',
        title: 'Safari tab crash at login',
        body: 'The login screen kills the Safari tab; white page.',
        duplicate_of: 's/1',
      },
      {
        id: 's/3',
        title: 'Export to CSV drops the header row',
        body: 'CSV export is missing the header line.',
        duplicate_of: null,
      },
      {
        id: 's/4',
        title: 'Dark mode colours wrong in settings',
        body: 'The settings page ignores dark mode.',
        duplicate_of: null,
      },
      { id: 's/5', title: 'Upgrade netty to 4.1.46 for CVE-2019-20444', body: 'Bump netty.', duplicate_of: null },
      { id: 's/6', title: 'Netty CVE-2019-20444', body: 'We must upgrade netty to 4.1.46.', duplicate_of: 's/5' },
    ];
    const file = path.join(tmp, 'smoke.jsonl');
    await writeFile(file, reports.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const r = await run(['eval', '--pairs', file, '--json', '--work', path.join(tmp, 'evalwork')]);
    expect(r.code).toBe(0);
    const rep = JSON.parse(r.stdout);
    expect(rep.scoring).toBe('calibrated');
    expect(rep.metrics.queries.duplicates + rep.metrics.queries.nonDuplicates).toBeGreaterThan(0);
    for (const k of ['top1', 'top3']) expect(rep.metrics[k]).toBeGreaterThanOrEqual(0);
    expect(rep.metrics.alert.threshold).toBe(0.85);
    expect(existsSync(path.join(tmp, 'evalwork'))).toBe(true);
  });
});
