import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_CONFIG } from '../../src/shared/config/schema.js';
import { scanCorpus, type CorpusGlobs } from '../../src/work-memory/corpus/scan.js';

let root: string;
let outside: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'agentos-scan-'));
  outside = await mkdtemp(path.join(os.tmpdir(), 'agentos-outside-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

async function touch(rel: string, content = `# ${rel}\n`, base = root): Promise<string> {
  const abs = path.join(base, rel);
  await mkdir(path.dirname(abs), { recursive: true });
  await writeFile(abs, content);
  return abs;
}
async function link(target: string, rel: string): Promise<void> {
  await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
  await symlink(target, path.join(root, rel));
}
const globs = (g: Partial<CorpusGlobs>): CorpusGlobs => ({ standards: [], history: [], exclude: [], ...g });
const defaults = (): CorpusGlobs => ({ ...DEFAULT_CONFIG.corpus });
const paths = (r: { files: Array<{ relPath: string }> }) => r.files.map((f) => f.relPath);

describe('matching', () => {
  test('default globs match case-insensitively (docs/LLDs/done vs docs/llds/Done)', async () => {
    await touch('docs/llds/Done/LLD-088.md');
    await touch('docs/ADRs/0001-postgres.MD');
    await touch('docs/Standards/nested/logging.md');
    await touch('docs/llds/Done/notes.txt');
    await touch('docs/llds/active/LLD-100.md');
    const res = await scanCorpus(root, defaults(), false);
    expect(paths(res)).toEqual([
      'docs/ADRs/0001-postgres.MD',
      'docs/Standards/nested/logging.md',
      'docs/llds/Done/LLD-088.md',
    ]);
    expect(res.files.every((f) => f.types.join() === 'standard')).toBe(true);
    expect(res.skipped).toEqual([]);
  });

  test('history globs are used only with includeHistory', async () => {
    await touch('docs/audit/done/12-upgrade/001-issue.md');
    await touch('docs/audit/done/12-upgrade/002-notes.md');
    await touch('docs/Lineage/Done/91-rag/001-brief.md');
    await touch('docs/adrs/0001.md');
    expect(paths(await scanCorpus(root, defaults(), false))).toEqual(['docs/adrs/0001.md']);
    const withHistory = await scanCorpus(root, defaults(), true);
    expect(withHistory.files.map((f) => [f.relPath, f.types])).toEqual([
      // byte order: upper case sorts first, whatever the locale
      ['docs/Lineage/Done/91-rag/001-brief.md', ['history']],
      ['docs/adrs/0001.md', ['standard']],
      ['docs/audit/done/12-upgrade/001-issue.md', ['history']],
    ]);
  });

  test('a file matched by both standard and history globs gets both types, once', async () => {
    await touch('docs/LLDs/done/LLD-088.md');
    const withHistory = await scanCorpus(root, defaults(), true);
    expect(withHistory.files).toHaveLength(1);
    expect(withHistory.files[0].types).toEqual(['standard', 'history']);
    const without = await scanCorpus(root, defaults(), false);
    expect(without.files[0].types).toEqual(['standard']);
  });

  test('overlapping globs of one type give one entry with one type', async () => {
    await touch('docs/adrs/0001.md');
    const res = await scanCorpus(
      root,
      globs({ standards: ['docs/adrs/*.md', 'docs/**/*.md', 'DOCS/ADRS/0001.md'] }),
      false,
    );
    expect(res.files.map((f) => [f.relPath, f.types])).toEqual([['docs/adrs/0001.md', ['standard']]]);
  });

  test('a literal file path (no wildcard) is found, case-insensitively', async () => {
    await touch('docs/CONVENTIONS.md');
    await touch('ARCHITECTURE.md');
    const res = await scanCorpus(
      root,
      globs({ standards: ['docs/conventions.md', 'ARCHITECTURE.md', 'docs/missing.md'] }),
      false,
    );
    expect(paths(res)).toEqual(['ARCHITECTURE.md', 'docs/CONVENTIONS.md']);
  });

  test('exclude globs win over standards and history, case-insensitively', async () => {
    await touch('docs/adrs/0001.md');
    await touch('docs/adrs/draft-0002.md');
    await touch('docs/adrs/old/0000.md');
    await touch('docs/audit/done/5-x/001-issue.md');
    const g = { ...defaults(), exclude: ['**/draft-*.md', 'DOCS/ADRS/OLD/**', 'docs/audit/**'] };
    const res = await scanCorpus(root, g, true);
    expect(paths(res)).toEqual(['docs/adrs/0001.md']);
    expect(res.skipped).toEqual([]);
  });

  test('a glob whose base does not exist matches nothing without error', async () => {
    const res = await scanCorpus(root, defaults(), true);
    expect(res).toEqual({ files: [], skipped: [] });
  });

  test('files carry their real absolute path, size and mtime', async () => {
    await touch('docs/adrs/0001.md', 'hello\n');
    const [f] = (await scanCorpus(root, defaults(), false)).files;
    expect(f.absPath).toBe(path.join(await realpath(root), 'docs/adrs/0001.md'));
    expect(f.size).toBe(6);
    expect(f.mtimeMs).toBeGreaterThan(0);
  });

  test('results are sorted by path', async () => {
    for (const rel of [
      'docs/standards/zeta.md',
      'docs/adrs/b/2.md',
      'docs/standards/alpha.md',
      'docs/adrs/a.md',
      'docs/adrs/b/1.md',
    ]) {
      await touch(rel);
    }
    await touch('docs/audit/done/1-x/001-issue.md');
    const res = await scanCorpus(root, defaults(), true);
    expect(paths(res)).toEqual([
      'docs/adrs/a.md',
      'docs/adrs/b/1.md',
      'docs/adrs/b/2.md',
      'docs/audit/done/1-x/001-issue.md',
      'docs/standards/alpha.md',
      'docs/standards/zeta.md',
    ]);
  });
});

describe("the walk reads each folder once and stops at a glob's depth, with the same result", () => {
  // A brute-force reference: every file under the root, matched by picomatch as the
  // scanner matches (case-insensitive, no dotfiles), against globs that share folders
  // and have fixed depths, braces and globstars.
  test('same files as matching every path with picomatch', async () => {
    const { default: picomatch } = await import('picomatch');
    const names = ['001-issue.md', '001-brief.md', '002-draft.md', 'notes.md', 'README.MD', '.hidden.md'];
    let seed = 5;
    const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    const all: string[] = [];
    for (let i = 0; i < 120; i++) {
      const depth = rand(4);
      const dirs = ['docs', rand(2) ? 'audit' : 'Audit', 'done', ...Array.from({ length: depth }, () => `d${rand(5)}`)];
      const rel = [...dirs, names[rand(names.length)]].join('/');
      await touch(rel);
      all.push(rel);
    }
    await touch('docs/adrs/deep/er/still/0001-x.md');
    all.push('docs/adrs/deep/er/still/0001-x.md');
    const g = globs({
      standards: ['docs/adrs/**/*.md', 'docs/{audit,lld}/done/*.md'],
      history: [
        'docs/audit/done/*/001-issue.md',
        'docs/audit/done/*/001-brief.md',
        'docs/audit/done/*/[0-9][0-9][0-9]-draft.md',
        'docs/audit/done/*/*/notes.md',
      ],
    });
    const scanned = (await scanCorpus(root, g, true)).files.map((f) => f.relPath).sort();
    const matchers = [...g.standards, ...g.history].map((x) => picomatch(x, { nocase: true, dot: false }));
    const expected = [...new Set(all)].filter((rel) => matchers.some((m) => m(rel))).sort();
    // Several drafts in one issue folder are one document (layouts.ts): compare folders and standards.
    const folders = (paths: string[]) => [
      ...new Set(paths.map((p) => (/\/done\/[^/]+\/[^/]+$/.test(p) ? path.posix.dirname(p) : p))),
    ];
    expect(folders(scanned)).toEqual(folders(expected));
    expect(expected.length).toBeGreaterThan(30);
  });
});

describe('folders never walked', () => {
  test('node_modules, .git, .agentos are not walked, at the root or nested', async () => {
    await touch('README.md');
    await touch('docs/guide.md');
    await touch('node_modules/pkg/README.md');
    await touch('docs/node_modules/dep/notes.md');
    // A folder symlink pointing outside is reported when walked: none may be reported here.
    for (const dir of ['.git', 'node_modules', '.agentos', 'docs/node_modules']) await link(outside, `${dir}/escape`);
    const res = await scanCorpus(root, globs({ standards: ['**/*.md'] }), false);
    expect(paths(res).sort()).toEqual(['README.md', 'docs/guide.md']);
    expect(res.skipped).toEqual([]);
  });
});

describe('symlinks', () => {
  test('a symlink to a file outside the root is skipped with a reason', async () => {
    const secret = await touch('secret.md', '# secret\n', outside);
    await touch('docs/adrs/0001.md');
    await link(secret, 'docs/adrs/0002-leak.md');
    const res = await scanCorpus(root, defaults(), false);
    expect(paths(res)).toEqual(['docs/adrs/0001.md']);
    expect(res.skipped).toEqual([{ relPath: 'docs/adrs/0002-leak.md', reason: 'resolves outside the repository' }]);
  });

  test('a symlink to a file inside the root is indexed at its link path with the real absPath', async () => {
    const real = await touch('shared/logging.md');
    await link('../../shared/logging.md', 'docs/standards/logging.md');
    const res = await scanCorpus(root, defaults(), false);
    expect(res.files).toHaveLength(1);
    expect(res.files[0].relPath).toBe('docs/standards/logging.md');
    expect(res.files[0].absPath).toBe(await realpath(real));
  });

  test('a symlinked folder pointing outside is not followed', async () => {
    await touch('adr-9.md', '# outside\n', outside);
    await touch('deep/adr-10.md', '# outside\n', outside);
    await touch('docs/adrs/0001.md');
    await link(outside, 'docs/adrs/external');
    const res = await scanCorpus(root, defaults(), false);
    expect(paths(res)).toEqual(['docs/adrs/0001.md']);
    expect(res.skipped).toEqual([{ relPath: 'docs/adrs/external', reason: 'folder resolves outside the repository' }]);
  });

  test('a glob base reached through an outside symlink is not followed', async () => {
    await touch('done/LLD-1.md', '# outside\n', outside);
    await mkdir(path.join(root, 'docs'), { recursive: true });
    await link(outside, 'docs/LLDs');
    const res = await scanCorpus(root, defaults(), false);
    expect(res.files).toEqual([]);
    expect(res.skipped.map((s) => s.reason)).toEqual(['folder resolves outside the repository']);
  });

  test('symlink loops do not hang and do not duplicate files', async () => {
    await touch('docs/adrs/0001.md');
    await link('.', 'docs/adrs/self');
    await link('../adrs', 'docs/adrs/sub/back');
    await link('b.md', 'docs/adrs/a.md');
    await link('a.md', 'docs/adrs/b.md');
    const res = await scanCorpus(root, defaults(), false);
    expect(paths(res)).toEqual(['docs/adrs/0001.md']);
    expect(res.skipped).toEqual([
      { relPath: 'docs/adrs/a.md', reason: 'broken symlink' },
      { relPath: 'docs/adrs/b.md', reason: 'broken symlink' },
    ]);
  }, 10_000);

  test('a dangling symlink is skipped as broken', async () => {
    await link('does-not-exist.md', 'docs/adrs/gone.md');
    const res = await scanCorpus(root, defaults(), false);
    expect(res).toEqual({ files: [], skipped: [{ relPath: 'docs/adrs/gone.md', reason: 'broken symlink' }] });
  });

  test('a root given through a symlink is resolved; its files are inside', async () => {
    await touch('docs/adrs/0001.md');
    const viaLink = path.join(outside, 'repo-link');
    await symlink(root, viaLink);
    const res = await scanCorpus(viaLink, defaults(), false);
    expect(paths(res)).toEqual(['docs/adrs/0001.md']);
    expect(res.skipped).toEqual([]);
  });
});
