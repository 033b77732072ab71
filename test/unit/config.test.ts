import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CONFIG_CACHE, CONFIG_PATH, loadConfig } from '../../src/shared/config/load.js';
import { globProblem, parseConfig } from '../../src/shared/config/parse.js';
import { DEFAULT_CONFIG } from '../../src/shared/config/schema.js';
import { ExitCode, UsageError } from '../../src/shared/errors.js';

const FILE = '.agentos/config.yaml';

/** Errors from parsing `raw`; each must name the config file. */
function errorsOf(raw: unknown): string[] {
  const { errors } = parseConfig(raw);
  for (const e of errors) expect(e.startsWith(`${FILE}: `)).toBe(true);
  return errors;
}

describe('parseConfig: defaults', () => {
  test.each([undefined, null])('%p gives the defaults with no errors or warnings', (raw) => {
    const { config, errors, warnings } = parseConfig(raw);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([]);
    expect(config).toEqual(DEFAULT_CONFIG);
  });

  test('an empty mapping gives the defaults', () => {
    expect(parseConfig({})).toEqual({ config: DEFAULT_CONFIG, errors: [], warnings: [] });
  });

  test('the returned config is a copy: mutating it does not change DEFAULT_CONFIG', () => {
    const { config } = parseConfig(undefined);
    config.corpus.standards.push('x/*.md');
    config.thresholds.duplicate = 0.1;
    expect(DEFAULT_CONFIG.corpus.standards).not.toContain('x/*.md');
    expect(DEFAULT_CONFIG.thresholds.duplicate).toBe(0.85);
  });

  test('a full valid config is applied (snake_case keys mapped)', () => {
    const { config, errors } = parseConfig({
      corpus: {
        standards: ['docs/rules/*.md'],
        history: ['done/**/*.md'],
        exclude: ['**/draft-*.md'],
        max_file_kb: 64,
      },
      thresholds: { duplicate: 0.9, related: 0.4, standards: 0.6 },
      history: { k: 5 },
      standards: { k: 2, candidates: 10 },
      model: { dir: '/opt/models', id: 'Xenova/bge-small-en-v1.5', dtype: 'fp32' },
      check: { timeout_ms: 5000 },
    });
    expect(errors).toEqual([]);
    expect(config.corpus).toEqual({
      standards: ['docs/rules/*.md'],
      history: ['done/**/*.md'],
      exclude: ['**/draft-*.md'],
      maxFileBytes: 64 * 1024,
    });
    expect(config.thresholds).toEqual({ duplicate: 0.9, related: 0.4, standards: 0.6 });
    expect(config.history.k).toBe(5);
    expect(config.standards).toEqual({ k: 2, candidates: 10 });
    expect(config.model).toEqual({ dir: '/opt/models', id: 'Xenova/bge-small-en-v1.5', dtype: 'fp32' });
    expect(config.check.timeoutMs).toBe(5000);
  });

  test('a top level that is not a mapping is an error naming the file', () => {
    expect(errorsOf(['a', 'b'])).toEqual([`${FILE}: expected a mapping at the top level`]);
    expect(errorsOf('just a string')).toHaveLength(1);
    // The source name is the one passed in.
    expect(parseConfig({ bogus: 1 }, 'other.yaml').errors[0]).toMatch(/^other\.yaml: bogus: unknown key/);
  });
});

describe('parseConfig: unknown keys', () => {
  test('unknown top-level key names the file and the key and lists what is allowed', () => {
    expect(errorsOf({ thresholdz: { duplicate: 0.9 } })).toEqual([
      `${FILE}: thresholdz: unknown key (allowed: corpus, sources, thresholds, history, standards, model, check, search, attempts, scoring, store)`,
    ]);
  });

  test.each([
    ['corpus', { max_file_size: 10 }, 'corpus.max_file_size'],
    ['thresholds', { dupliate: 0.9 }, 'thresholds.dupliate'],
    ['history', { top_k: 3 }, 'history.top_k'],
    ['standards', { n: 3 }, 'standards.n'],
    ['model', { path: 'x' }, 'model.path'],
    ['check', { timeout: 10 }, 'check.timeout'],
  ])('unknown key under %s is an error naming %s', (section, value, key) => {
    const errors = errorsOf({ [section]: value });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`${FILE}: ${key}: unknown key (allowed: `);
  });

  test('a typo in a threshold does not silently keep the default without an error', () => {
    const { config, errors } = parseConfig({ thresholds: { duplicat: 0.95 } });
    expect(errors.join('\n')).toContain('thresholds.duplicat');
    expect(config.thresholds.duplicate).toBe(0.85);
  });

  test('every problem is reported, not only the first', () => {
    expect(errorsOf({ a: 1, b: 2, corpus: { c: 3 } })).toHaveLength(3);
  });
});

describe('parseConfig: wrong types and ranges', () => {
  test.each(['corpus', 'thresholds', 'history', 'standards', 'model', 'check'])(
    '%s that is not a mapping',
    (section) => {
      expect(errorsOf({ [section]: [1, 2] })).toEqual([`${FILE}: ${section}: expected a mapping`]);
      expect(errorsOf({ [section]: 'x' })).toEqual([`${FILE}: ${section}: expected a mapping`]);
    },
  );

  test.each([
    [{ thresholds: { duplicate: 'high' } }, 'thresholds.duplicate', 'expected a number, got "high"'],
    [{ thresholds: { related: true } }, 'thresholds.related', 'expected a number, got true'],
    [{ history: { k: 2.5 } }, 'history.k', 'expected an integer, got 2.5'],
    [{ standards: { candidates: '5' } }, 'standards.candidates', 'expected an integer, got "5"'],
    [{ check: { timeout_ms: 1.5 } }, 'check.timeout_ms', 'expected an integer'],
    [{ corpus: { max_file_kb: 'big' } }, 'corpus.max_file_kb', 'expected an integer'],
    [{ corpus: { max_file_kb: 1.5 } }, 'corpus.max_file_kb', 'expected an integer'],
    [{ corpus: { standards: 'docs/*.md' } }, 'corpus.standards', 'expected a list of non-empty glob strings'],
    [{ corpus: { history: ['ok/*.md', 3] } }, 'corpus.history', 'expected a list of non-empty glob strings'],
    [{ corpus: { exclude: ['  '] } }, 'corpus.exclude', 'expected a list of non-empty glob strings'],
    [{ model: { dir: '' } }, 'model.dir', 'expected a folder path'],
    [{ model: { dir: 42 } }, 'model.dir', 'expected a folder path'],
    [{ model: { id: 'no-slash' } }, 'model.id', 'expected "owner/name"'],
    [{ model: { id: 'a/b/c' } }, 'model.id', 'expected "owner/name"'],
  ])('%j -> error on %s', (raw, key, problem) => {
    const errors = errorsOf(raw);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`${FILE}: ${key}: ${problem}`);
  });

  test.each([
    ['duplicate', 1.5],
    ['duplicate', -0.1],
    ['related', 2],
    ['standards', -1],
  ])('thresholds.%s = %p is out of range', (key, v) => {
    const { errors, config } = parseConfig({ thresholds: { [key]: v } });
    expect(errors.some((e) => e.startsWith(`${FILE}: thresholds.${key}: must be between 0 and 1, got ${v}`))).toBe(
      true,
    );
    expect(config.thresholds).toEqual(DEFAULT_CONFIG.thresholds);
  });

  test('thresholds at the edges 0 and 1 are accepted', () => {
    const { errors, config } = parseConfig({ thresholds: { duplicate: 1, related: 0, standards: 1 } });
    expect(errors).toEqual([]);
    expect(config.thresholds).toEqual({ duplicate: 1, related: 0, standards: 1 });
  });

  test.each([
    [{ related: 0.9, duplicate: 0.85 }, 'related (0.9) must be below duplicate (0.85)'],
    [{ related: 0.7, duplicate: 0.7 }, 'related (0.7) must be below duplicate (0.7)'],
    [{ related: 0.9 }, 'related (0.9) must be below duplicate (0.85)'],
    [{ duplicate: 0.3 }, 'related (0.5) must be below duplicate (0.3)'],
  ])('related >= duplicate (%j) is an error on thresholds', (th, msg) => {
    expect(errorsOf({ thresholds: th })).toEqual([`${FILE}: thresholds: ${msg}`]);
  });

  test.each([
    ['history', 'k', 0, '1 and 50'],
    ['history', 'k', 51, '1 and 50'],
    ['standards', 'k', 0, '1 and 50'],
    ['standards', 'candidates', 201, '1 and 200'],
    ['check', 'timeout_ms', 99, '100 and 600000'],
    ['check', 'timeout_ms', 600_001, '100 and 600000'],
  ])('%s.%s = %p is out of range', (section, key, v, range) => {
    expect(errorsOf({ [section]: { [key]: v } })).toEqual([
      `${FILE}: ${section}.${key}: must be between ${range}, got ${v}`,
    ]);
  });

  test('standards.candidates below standards.k is raised to k with a warning, not an error', () => {
    const { config, errors, warnings } = parseConfig({ standards: { k: 8, candidates: 4 } });
    expect(errors).toEqual([]);
    expect(config.standards).toEqual({ k: 8, candidates: 8 });
    expect(warnings).toEqual([`${FILE}: standards.candidates is below standards.k; using 8`]);
  });

  test('max_file_kb is converted to bytes and must be a positive integer', () => {
    expect(parseConfig({ corpus: { max_file_kb: 1 } }).config.corpus.maxFileBytes).toBe(1024);
    expect(parseConfig({ corpus: { max_file_kb: 2048 } }).config.corpus.maxFileBytes).toBe(2048 * 1024);
    const { errors, config } = parseConfig({ corpus: { max_file_kb: 0 } });
    expect(errors).toEqual([`${FILE}: corpus.max_file_kb: must be between 1 and 1048576, got 0`]);
    expect(config.corpus.maxFileBytes).toBe(DEFAULT_CONFIG.corpus.maxFileBytes);
  });

  test.each(['int8', 'q8', 'fp32'] as const)('model.dtype %s is accepted', (dtype) => {
    const { config, errors } = parseConfig({ model: { dtype } });
    expect(errors).toEqual([]);
    expect(config.model.dtype).toBe(dtype);
  });

  test.each(['fp16', 'Q8', 8, null])('model.dtype %p is rejected and the default kept', (dtype) => {
    const { config, errors } = parseConfig({ model: { dtype } });
    expect(errors).toEqual([`${FILE}: model.dtype: expected auto, int8, q8, fp32`]);
    expect(config.model.dtype).toBe('auto');
  });
});

describe('globs', () => {
  test.each([
    ['/docs/*.md', 'must be relative to the repository root'],
    ['C:/docs/*.md', 'must be relative to the repository root'],
    ['C:\\docs\\*.md', 'must be relative to the repository root'],
    ['../other/*.md', 'must not leave the repository (contains "..")'],
    ['docs/../../*.md', 'must not leave the repository (contains "..")'],
    ['docs\\adrs\\*.md', 'use "/" as the path separator'],
    ['docs/[ab.md', 'unbalanced brackets'],
    ['docs/ab].md', 'unbalanced brackets'],
    ['docs/{adr,adrs/*.md', 'unbalanced brackets'],
    ['docs/adr}/*.md', 'unbalanced brackets'],
  ])('globProblem(%p) -> %p', (glob, problem) => {
    expect(globProblem(glob)).toBe(problem);
  });

  test.each(['docs/adrs/**/*.md', 'docs/{adr,adrs}/*.md', 'docs/[0-9]*-issue.md', 'docs/..hidden/*.md', 'README.md'])(
    'globProblem(%p) is null',
    (glob) => {
      expect(globProblem(glob)).toBeNull();
    },
  );

  test('every default glob is valid', () => {
    const all = [...DEFAULT_CONFIG.corpus.standards, ...DEFAULT_CONFIG.corpus.history];
    expect(all.map(globProblem)).toEqual(all.map(() => null));
  });

  test('a bad glob in config names the file, the key and the glob', () => {
    const errors = errorsOf({ corpus: { standards: ['docs/*.md', '/abs/*.md'], exclude: ['../x'] } });
    expect(errors).toEqual([
      `${FILE}: corpus.standards: bad glob "/abs/*.md": must be relative to the repository root`,
      `${FILE}: corpus.exclude: bad glob "../x": must not leave the repository (contains "..")`,
    ]);
  });
});

describe('loadConfig', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'agentos-config-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });
  const write = async (text: string) => {
    await mkdir(path.join(root, '.agentos'), { recursive: true });
    await writeFile(path.join(root, CONFIG_PATH), text);
  };
  const failure = async (): Promise<UsageError> => {
    const e = await loadConfig(root).then(
      () => null,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(UsageError);
    expect((e as UsageError).code).toBe(ExitCode.Usage);
    return e as UsageError;
  };

  test('a missing .agentos/config.yaml gives the defaults', async () => {
    expect(CONFIG_PATH).toBe(FILE);
    const parsed = await loadConfig(root);
    expect(parsed).toEqual({ config: DEFAULT_CONFIG, errors: [], warnings: [] });
  });

  test('an empty or comment-only file gives the defaults', async () => {
    await write('# nothing configured yet\n');
    expect((await loadConfig(root)).config).toEqual(DEFAULT_CONFIG);
  });

  test('a valid file is applied', async () => {
    await write('thresholds:\n  duplicate: 0.9\n  related: 0.6\ncorpus:\n  max_file_kb: 16\n');
    const { config, warnings } = await loadConfig(root);
    expect(config.thresholds).toEqual({ duplicate: 0.9, related: 0.6, standards: 0.5 });
    expect(config.corpus.maxFileBytes).toBe(16 * 1024);
    expect(warnings).toEqual([]);
  });

  test('warnings are returned, not thrown', async () => {
    await write('standards:\n  k: 5\n  candidates: 2\n');
    const { config, warnings } = await loadConfig(root);
    expect(config.standards.candidates).toBe(5);
    expect(warnings).toHaveLength(1);
  });

  test.each([
    ['thresholds:\n  duplicate: 0.9\n  related: [0.5\n', 4],
    ['a: 1\na: 2\n', 2],
    ['corpus:\n  standards:\n    - "docs/*.md\n', 4],
    ['history:\n  k: 3\n\tfoo: 1\n', 3],
  ])('invalid YAML is a UsageError with file:line (%#)', async (text, line) => {
    await write(text);
    const e = await failure();
    expect(e.message).toMatch(new RegExp(`^\\.agentos/config\\.yaml:${line}: invalid YAML: \\S`));
    expect(e.message).not.toContain('\n');
  });

  test('invalid keys are a UsageError naming the file and each key, one per line', async () => {
    await write('thresholds:\n  duplicate: 2\nmodle:\n  dtype: q8\n');
    const e = await failure();
    const lines = e.message.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.startsWith(`${FILE}: `))).toBe(true);
    expect(e.message).toContain(`${FILE}: thresholds.duplicate: must be between 0 and 1, got 2`);
    expect(e.message).toContain(`${FILE}: modle: unknown key`);
  });

  test('a config path that cannot be read is a UsageError', async () => {
    await mkdir(path.join(root, CONFIG_PATH), { recursive: true }); // a folder, not a file
    const e = await failure();
    expect(e.message).toMatch(/^\.agentos\/config\.yaml: cannot read \(/);
  });
});

describe('scoring (issue 11)', () => {
  test('scoring.method defaults to calibrated, accepts fused and cosine, rejects anything else', () => {
    expect(parseConfig({ scoring: { method: 'fused' } }).config.scoring.method).toBe('fused');
    expect(parseConfig({}).config.scoring.method).toBe('calibrated');
    expect(parseConfig({ scoring: { method: 'cosine' } }).config.scoring.method).toBe('cosine');
    expect(parseConfig({ scoring: { method: 'bm25' } }, 'c.yaml').errors).toEqual([
      'c.yaml: scoring.method: expected calibrated, fused, cosine, got "bm25"',
    ]);
  });

  test('scoring.method: hybrid, the first name of calibrated, is still read, with a warning', () => {
    const r = parseConfig({ scoring: { method: 'hybrid' } }, 'c.yaml');
    expect(r.config.scoring.method).toBe('calibrated');
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual(['c.yaml: scoring.method: hybrid is now called calibrated (still read; rename it)']);
  });

  test('scoring.method: standout, the first name of the issue-11 fused score, is still read, with a warning', () => {
    const r = parseConfig({ scoring: { method: 'standout' } }, 'c.yaml');
    expect(r.config.scoring.method).toBe('fused');
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual(['c.yaml: scoring.method: standout is now called fused (still read; rename it)']);
  });
});

describe('the parsed-config cache (.agentos/cache/config.json)', () => {
  const text = 'thresholds:\n  duplicate: 0.9\ncorpus:\n  history:\n    - "docs/done/*.md"\n';
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'agentos-config-cache-'));
    await mkdir(path.join(root, '.agentos'), { recursive: true });
    await writeFile(path.join(root, CONFIG_PATH), text);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));
  const cacheFile = () => path.join(root, CONFIG_CACHE);

  it('a valid config is cached; the cached answer equals a fresh parse, and each load gets its own objects', async () => {
    const fresh = await loadConfig(root);
    const cache = JSON.parse(await readFile(cacheFile(), 'utf8'));
    expect(cache.text).toBe(text);
    expect(await readFile(path.join(path.dirname(cacheFile()), '.gitignore'), 'utf8')).toBe('*\n');
    const again = await loadConfig(root);
    expect(again).toEqual(fresh);
    again.config.thresholds.duplicate = 0.1; // a caller applying flags
    expect((await loadConfig(root)).config.thresholds.duplicate).toBe(0.9);
  });

  it('is used only for the very same text: an edited config is parsed again, an invalid one is an error', async () => {
    await loadConfig(root);
    await writeFile(path.join(root, CONFIG_PATH), text.replace('0.9', '0.95'));
    expect((await loadConfig(root)).config.thresholds.duplicate).toBe(0.95);
    await writeFile(path.join(root, CONFIG_PATH), text.replace('0.9', 'high'));
    await expect(loadConfig(root)).rejects.toThrow(UsageError);
    expect(JSON.parse(await readFile(cacheFile(), 'utf8')).text).toContain('0.95'); // never an invalid one
  });

  it('a cache of another format or other defaults, or a damaged one, is ignored', async () => {
    const bogus = {
      config: { ...DEFAULT_CONFIG, thresholds: { ...DEFAULT_CONFIG.thresholds, duplicate: 0.01 } },
      warnings: [],
      errors: [],
    };
    await mkdir(path.dirname(cacheFile()), { recursive: true });
    await writeFile(cacheFile(), JSON.stringify({ key: '0:old defaults', text, parsed: bogus }));
    expect((await loadConfig(root)).config.thresholds.duplicate).toBe(0.9);
    await writeFile(cacheFile(), '{ not json');
    expect((await loadConfig(root)).config.thresholds.duplicate).toBe(0.9);
  });
});

test('store: publish must be true or false; a URL holding a password warns (the file is usually committed) and never echoes it', () => {
  expect(parseConfig({ store: { publish: true } }).config.store.publish).toBe(true);
  expect(parseConfig({}).config.store.publish).toBe(false);
  expect(parseConfig({ store: { publish: 'yes' } }).errors).toEqual([
    '.agentos/config.yaml: store.publish: expected true or false, got "yes"',
  ]);
  const pw = parseConfig({ store: { url: 'postgres://ann:s3cret@db.example/agentos' } });
  expect(pw.warnings).toEqual([
    '.agentos/config.yaml: store.url holds a password, and this file is usually committed: keep the password in ~/.pgpass or AGENTOS_DATABASE_URL',
  ]);
  expect(parseConfig({ store: { url: 'postgres://ann@db.example/agentos' } }).warnings).toEqual([]);
});
