/**
 * The Historian: `agentos issue start` checked against completed work, ported
 * from the seed test plan (test names carry its IDs). Scores come from an exact
 * in-memory store (test/helpers/fakes.ts): a document placed at 0.85 scores
 * exactly 0.85, so the boundary cases run through the store as well as through
 * classifyScore directly.
 */
import { parseBrief } from '../../src/work-memory/check/parsed-brief.js';
import { existsSync } from 'node:fs';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { classifyScore, formatScore } from '../../src/work-memory/check/classify.js';
import { checkHistory, embedBrief, nearestDocuments, type HistoryMatch } from '../../src/work-memory/check/history.js';
import { runChecks, type CheckDeps } from '../../src/work-memory/check/run.js';
import { DEFAULT_CONFIG, type Config } from '../../src/shared/config/schema.js';
import { runIssueStart, type IssueStartOptions } from '../../src/cli/commands/issue-start/index.js';
import { FAIL_OPEN } from '../../src/cli/brief-check.js';
import type { DuplicateAction, DuplicateAsker } from '../../src/work-memory/decision/decide.js';
import { PromptCancelled } from '../../src/work-memory/decision/prompt.js';
import { ExitCode, ExitError, IndexUnavailableError, UsageError } from '../../src/shared/errors.js';
import type { VectorIndex } from '../../src/work-memory/index/types.js';
import {
  basis,
  errnoError,
  failingDeps,
  fakeDeps,
  FakeEmbedder,
  historyDoc,
  InMemoryIndex,
  makeIO,
  makeProject,
  readLog,
  indexWithScores,
  vectorAtScore,
  type TestIO,
  testContext,
} from '../helpers/fakes.js';

const BRIEF = [
  '# Add rate limiting to the public API',
  '',
  'We need per-client rate limits on the public API so that one noisy client cannot starve the others of capacity.',
  '',
  '## Acceptance',
  '',
  '- limits are configurable per client and per route',
  '- a client over its limit gets HTTP 429 with a Retry-After header',
  '',
].join('\n');
const SLUG = 'add-rate-limiting-to-the-public-api';
const DEFAULT_OUT = (root: string) => path.join(root, '.agentos', 'issues', SLUG, 'brief.md');
const PATH0 = 'docs/audit/done/101-past-work-0/001-issue.md';
const PATH1 = 'docs/audit/done/102-past-work-1/001-issue.md';

const config = (): Config => structuredClone(DEFAULT_CONFIG);
const both = { history: true, standards: true };

async function check(index: VectorIndex, embedder = new FakeEmbedder()) {
  return runChecks(BRIEF, config(), fakeDeps(index, embedder), both);
}

// ---------------------------------------------------------------------------
// Driving runIssueStart in-process.

interface StartOpts {
  store?: VectorIndex;
  deps?: CheckDeps;
  opts?: Partial<IssueStartOptions>;
  tty?: boolean;
  env?: NodeJS.ProcessEnv;
  asker?: DuplicateAsker;
  /** Brief content; null: no brief file at all. */
  brief?: string | Buffer | null;
  briefName?: string;
  files?: Record<string, string | Buffer>;
  root?: string;
}

interface Started {
  code: number;
  error: ExitError | null;
  root: string;
  t: TestIO;
  briefPath: string;
  outPath: string;
  /** The output brief, null when none was written. */
  output: string | null;
  log: Record<string, unknown>[];
}

async function start(s: StartOpts = {}): Promise<Started> {
  const root = s.root ?? (await makeProject(s.files));
  const briefName = s.briefName ?? 'brief.md';
  const briefPath = path.join(root, briefName);
  if (s.brief !== null) {
    await mkdir(path.dirname(briefPath), { recursive: true });
    await writeFile(briefPath, s.brief ?? BRIEF);
  }
  const before = existsSync(briefPath) ? await readFile(briefPath) : null;
  const t = makeIO(root, { tty: s.tty, env: s.env });
  const deps = s.deps ?? fakeDeps(s.store ?? indexWithScores([]));
  let code: number;
  let error: ExitError | null = null;
  try {
    code = await runIssueStart(testContext(t.io, {}, { deps: () => deps, asker: s.asker }), briefName, {
      onDuplicate: 'link',
      context: [],
      ...s.opts,
    });
  } catch (e) {
    if (!(e instanceof ExitError)) throw e;
    error = e;
    code = e.code;
  }
  // Whatever happened, the user's brief is byte for byte what it was.
  if (before) expect(await readFile(briefPath)).toEqual(before);
  const outPath = s.opts?.out ? path.resolve(root, s.opts.out) : DEFAULT_OUT(root);
  const output = existsSync(outPath) && outPath !== briefPath ? await readFile(outPath, 'utf8') : null;
  return { code, error, root, t, briefPath, outPath, output, log: await readLog(root) };
}

const decisions = (log: Record<string, unknown>[]) => log.filter((l) => l.event === 'decision');
const issuesDirExists = (root: string) => existsSync(path.join(root, '.agentos', 'issues'));
const count = (text: string, needle: string) => text.split(needle).length - 1;

function scriptedAsker(action: DuplicateAction | Error, which?: (m: HistoryMatch[]) => HistoryMatch) {
  const calls = { action: [] as HistoryMatch[][], which: [] as HistoryMatch[][] };
  const asker: DuplicateAsker = {
    askAction: async (m) => {
      calls.action.push(m);
      if (action instanceof Error) throw action;
      return action;
    },
    askWhich: async (m) => {
      calls.which.push(m);
      return which ? which(m) : m[0];
    },
  };
  return { asker, calls };
}

// ---------------------------------------------------------------------------

describe('classification on the top score (runChecks over an exact store)', () => {
  test('T010 no matches: a store without completed work is not clear but no_history (issue 8 §1)', async () => {
    const store = indexWithScores([], [0.9]);
    const o = await check(store);
    expect(o.history.status).toBe('no_history');
    expect(o.history.error).toBeNull();
    expect(o.history.matches).toEqual([]);
    expect(o.history.nearest).toEqual([]);
    // No history search was run at all: nothing to compare with.
    expect(store.searches.filter((q) => q.type === 'history')).toEqual([]);
    // The standards still answer.
    expect(o.standards.items.map((s) => s.filePath)).toEqual(['docs/standards/std-0.md']);
  });

  test('T020 top score 0.35 is clear: nearest reported, no matches', async () => {
    const o = await check(indexWithScores([0.35]));
    expect(o.history.status).toBe('clear');
    expect(o.history.matches).toEqual([]);
    expect(o.history.nearest.map((m) => m.score)).toEqual([0.35]);
  });

  test('T030 top score 0.67 is related_context', async () => {
    const o = await check(indexWithScores([0.67, 0.3]));
    expect(o.history.status).toBe('related_context');
    expect(o.history.matches.map((m) => [m.issueId, m.score])).toEqual([['101', 0.67]]);
    expect(o.history.nearest).toHaveLength(2);
    expect(o.history.method).toBe('fake:test');
  });

  test('T040 top score 0.91 is duplicate_alert', async () => {
    const o = await check(indexWithScores([0.6, 0.91]));
    expect(o.history.status).toBe('duplicate_alert');
    expect(o.history.matches.map((m) => [m.issueId, m.score])).toEqual([
      ['102', 0.91],
      ['101', 0.6],
    ]);
    expect(o.history.matches[0]).toMatchObject({
      title: 'Past work 1',
      filePath: PATH1,
      status: 'done',
      summary: 'Summary of past work 1.',
      section: 'Problem',
      excerpt: 'Excerpt of past work 1.',
    });
  });

  describe.each([
    ['T050', 0.49, 'clear'],
    ['T060', 0.5, 'related_context'],
    ['T070', 0.51, 'related_context'],
    ['T080', 0.84, 'related_context'],
    ['T090', 0.85, 'duplicate_alert'],
    ['T100', 0.86, 'duplicate_alert'],
    ['0.8499', 0.8499, 'related_context'],
  ] as const)('%s boundary: %p', (_id, score, expected) => {
    test(`classifyScore(${score}) is ${expected}`, () => {
      expect(classifyScore(score, DEFAULT_CONFIG.thresholds)).toBe(expected);
    });

    test(`through the store the top score is exactly ${score} and the status ${expected}`, async () => {
      const o = await check(indexWithScores([score]));
      expect(o.history.nearest[0].score).toBe(score);
      expect(o.history.status).toBe(expected);
      expect(o.history.matches).toHaveLength(expected === 'clear' ? 0 : 1);
    });
  });

  test('just below each threshold (one ulp) does not cross it', () => {
    const below = (x: number) => x - Number.EPSILON / 2;
    expect(below(0.85)).toBeLessThan(0.85);
    expect(classifyScore(below(0.85), DEFAULT_CONFIG.thresholds)).toBe('related_context');
    expect(classifyScore(below(0.5), DEFAULT_CONFIG.thresholds)).toBe('clear');
    expect(classifyScore(undefined, DEFAULT_CONFIG.thresholds)).toBe('clear');
    expect(classifyScore(Number.NaN, DEFAULT_CONFIG.thresholds)).toBe('clear');
  });

  test('0.8499 is displayed as 0.8499, never as 0.8500 or 0.85', async () => {
    expect(formatScore(0.8499)).toBe('0.8499');
    expect(formatScore(0.84999999)).toBe('0.8499');
    expect(formatScore(0.85)).toBe('0.8500');
    const r = await start({ store: indexWithScores([0.8499]) });
    expect(r.code).toBe(ExitCode.Ok);
    expect(r.output).toContain('(similarity 0.8499, status: done)');
    expect(r.output).not.toContain('0.8500');
    expect(r.output).not.toContain('Linked Past Work');
    expect(r.t.stderr()).not.toContain('Similar past work detected');
  });

  test('configured thresholds are the ones applied', async () => {
    const cfg = config();
    cfg.thresholds = { ...cfg.thresholds, duplicate: 0.95, related: 0.9 };
    const o = await runChecks(BRIEF, cfg, fakeDeps(indexWithScores([0.91])), both);
    expect(o.history.status).toBe('related_context');
    const o2 = await runChecks(BRIEF, cfg, fakeDeps(indexWithScores([0.89])), both);
    expect(o2.history.status).toBe('clear');
  });
});

describe("the project's own line (issue 48)", () => {
  const line = {
    id: '0a1b2c3d',
    model: { intercept: -3, features: {}, floors: { related: 0.3, duplicate: 0.46 } },
  } as unknown as import('../../src/work-memory/scoring/project-line.js').ProjectLine;

  test('in use: every answer names it in its method', async () => {
    const o = await runChecks(
      BRIEF,
      config(),
      { ...fakeDeps(indexWithScores([0.9])), projectLine: () => ({ line, problem: null }) },
      both,
    );
    expect(o.history.method).toBe('fake:test+project-line@0a1b2c3d');
    expect(o.warnings).toEqual([]);
  });

  test('a file that is no line: named in a warning, and the method is the shipped one', async () => {
    const problem =
      '.agentos/calibration.json: its model does not match its id (edited by hand?); the shipped model answers (run `agentos calibrate --write` again)';
    const o = await runChecks(
      BRIEF,
      config(),
      { ...fakeDeps(indexWithScores([0.9])), projectLine: () => ({ line: null, problem }) },
      both,
    );
    expect(o.history.method).toBe('fake:test');
    expect(o.warnings).toContain(problem);
  });
});

describe('fail open (runChecks never throws)', () => {
  test('T110 a model load that never finishes times out as status "error"', async () => {
    const cfg = config();
    cfg.check.timeoutMs = 50;
    const t0 = Date.now();
    const o = await runChecks(BRIEF, cfg, failingDeps('never'), both);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(o.history).toEqual({
      status: 'error',
      matches: [],
      nearest: [],
      error: 'timed out after 0.1s',
      method: 'none',
    });
    expect(o.standards.items).toEqual([]);
  });

  test.each([
    ['T110', Object.assign(new Error('model load timed out after 30s'), { name: 'TimeoutError' })],
    ['T120', errnoError('ENOENT', "ENOENT: no such file or directory, open '/models/onnx/model_quantized.onnx'")],
    ['T130', errnoError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:8080')],
  ])('%s a failing model load (%p) -> status "error" with the message', async (_id, err) => {
    const o = await runChecks(BRIEF, config(), failingDeps(err), both);
    expect(o.history.status).toBe('error');
    expect(o.history.error).toBe(err.message);
    expect(o.history.matches).toEqual([]);
    expect(o.standards.error).toBe(err.message);
  });

  test('a store that fails at query time also fails open, with the first line of the message', async () => {
    const store = indexWithScores([0.9]).failWith(new Error('hnsw: read error\nstack-ish detail'));
    const o = await check(store);
    expect(o.history.status).toBe('error');
    expect(o.history.error).toBe('hnsw: read error');
  });

  test('a missing index is an error for history and the "run agentos index" warning for standards', async () => {
    const deps: CheckDeps = {
      method: 'x',
      loadEmbedder: async () => new FakeEmbedder(),
      openIndex: () =>
        Promise.reject(
          new IndexUnavailableError('no index in /p/.agentos/index; run `agentos index --include-history`', 'missing'),
        ),
    };
    const o = await runChecks(BRIEF, config(), deps, both);
    expect(o.history.status).toBe('error');
    expect(o.history.error).toMatch(/^no index in/);
    expect(o.standards.error).toBe('Vector store not found. Run `agentos index`.');
  });

  describe.each([
    ['T110 (timeout)', 'never' as const, 'timed out after 0.1s'],
    [
      'T110 (TimeoutError)',
      Object.assign(new Error('embedding timed out'), { name: 'TimeoutError' }),
      'embedding timed out',
    ],
    [
      'T120',
      errnoError('ENOENT', "ENOENT: no such file or directory, open '/models/tokenizer.json'"),
      "ENOENT: no such file or directory, open '/models/tokenizer.json'",
    ],
    ['T130', errnoError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:6333'), 'connect ECONNREFUSED 127.0.0.1:6333'],
  ])('%s through issue start', (_id, failure, message) => {
    const files = { '.agentos/config.yaml': 'check:\n  timeout_ms: 100\n' };

    test('exit 0, the exact fail-open line on stderr, the brief written unchanged, the failure logged', async () => {
      const r = await start({ files, deps: failingDeps(failure) });
      expect(r.code).toBe(ExitCode.Ok);
      expect(r.t.stderrLines()).toContain(`Historian check failed: ${message}. Proceeding without history check.`);
      expect(FAIL_OPEN(message)).toBe(`Historian check failed: ${message}. Proceeding without history check.`);
      expect(r.t.stdout()).toBe('');
      expect(r.output).toBe(BRIEF);
      const failed = r.log.filter((l) => l.event === 'history_check_failed');
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({ level: 'warn', error: message, brief: 'brief.md' });
      expect(decisions(r.log)[0]).toMatchObject({
        status: 'error',
        decision: 'proceed',
        decidedBy: 'none',
        error: message,
      });
      const checkJson = JSON.parse(await readFile(path.join(path.dirname(r.outPath), 'check.json'), 'utf8'));
      expect(checkJson).toMatchObject({ status: 'error', error: message, output: r.outPath });
    });

    test('--strict turns the failure into exit 4 and writes nothing', async () => {
      const r = await start({ files, deps: failingDeps(failure), opts: { strict: true } });
      expect(r.code).toBe(ExitCode.IndexUnavailable);
      expect(r.code).toBe(4);
      expect(r.error?.message).toContain(message);
      expect(r.t.stderrLines()).toContain(FAIL_OPEN(message));
      expect(issuesDirExists(r.root)).toBe(false);
    });
  });

  test('--strict with a working check changes nothing', async () => {
    const r = await start({ store: indexWithScores([0.3]), opts: { strict: true } });
    expect(r.code).toBe(ExitCode.Ok);
    expect(r.output).toBe(BRIEF);
  });
});

describe('retrieval', () => {
  test('T140 an empty store is no_history (never "clear"), with no error and no warning', async () => {
    const o = await check(new InMemoryIndex());
    expect(o.history).toMatchObject({ status: 'no_history', matches: [], nearest: [], error: null });
    expect(o.warnings).toEqual([]);
    expect(o.standards).toEqual({ items: [], error: null, method: 'fake:test' });
  });

  test('T150 a sparse store with 2 documents returns those 2 (k is 3)', async () => {
    const o = await check(indexWithScores([0.6, 0.4]));
    expect(o.history.nearest.map((m) => m.filePath)).toEqual([PATH0, PATH1]);
    expect(o.history.matches.map((m) => m.filePath)).toEqual([PATH0]);
  });

  test('k distinct documents when one document has many chunks, scored by its best chunk', async () => {
    const store = indexWithScores([
      { score: 0.95, extraChunks: [0.94, 0.93, 0.92, 0.91, 0.9, 0.89, 0.88, 0.87] },
      0.6,
      0.55,
      0.52,
    ]);
    const o = await check(store);
    expect(o.history.nearest.map((m) => [m.issueId, m.score])).toEqual([
      ['101', 0.95],
      ['102', 0.6],
      ['103', 0.55],
    ]);
    expect(o.history.nearest[0].section).toBe('Problem');
  });

  test('k distinct documents even when one document has more chunks than the first search returns', async () => {
    // 40 chunks of one document all outrank every other document's chunks.
    const many = Array.from({ length: 39 }, (_, i) => 0.94 - i * 0.001);
    const o = await check(indexWithScores([{ score: 0.95, extraChunks: many }, 0.6, 0.55]));
    expect(o.history.nearest.map((m) => m.issueId)).toEqual(['101', '102', '103']);
  });

  test('config history.k sets how many documents come back', async () => {
    const cfg = config();
    cfg.history.k = 5;
    const o = await runChecks(BRIEF, cfg, fakeDeps(indexWithScores([0.9, 0.8, 0.7, 0.6, 0.55, 0.52, 0.51])), both);
    expect(o.history.nearest).toHaveLength(5);
  });

  test('a document scores by its best (brief chunk, document chunk) pair across brief chunks', async () => {
    // Two brief sections embed to different axes: the rate-limit one to e0, the 429 one to e2.
    const embedder = new FakeEmbedder({ vectorFor: (t) => (t.includes('Retry-After') ? basis(2) : basis(0)) });
    const onE2 = new Float64Array(384);
    onE2[2] = 0.9;
    onE2[3] = Math.sqrt(1 - 0.81);
    const store = new InMemoryIndex([
      historyDoc(0, { score: 0.6 }),
      {
        filePath: 'docs/audit/done/200-x/001-issue.md',
        issueId: '200',
        title: 'Retry headers',
        chunks: [{ vector: onE2 }],
      },
    ]);
    const vectors = await embedBrief(parseBrief(BRIEF), embedder);
    expect(vectors.length).toBe(2);
    const nearest = nearestDocuments(store, vectors, 3, 'history');
    expect(nearest.map((m) => m.issueId)).toEqual(['200', '101']);
    expect(nearest[0].score).toBeCloseTo(0.9, 12);
    expect(checkHistory(store, vectors, 3, DEFAULT_CONFIG.thresholds).status).toBe('duplicate_alert');
  });

  test('standards never count as past work', async () => {
    const o = await check(indexWithScores([0.3], [0.99]));
    expect(o.history.status).toBe('clear');
    expect(o.history.nearest.map((m) => m.filePath)).toEqual([PATH0]);
    expect(o.standards.items.map((s) => s.filePath)).toEqual(['docs/standards/std-0.md']);
  });
});

describe('T160 enrichment: the Related Past Work section', () => {
  test('lists issue #, title, score, status, summary and path of each related match, below the brief', async () => {
    const store = indexWithScores([
      0.67,
      {
        score: 0.55,
        meta: { status: 'rejected', statusReason: 'too costly to run', summary: 'Token bucket in Redis.' },
      },
      0.45,
    ]);
    const r = await start({ store });
    expect(r.code).toBe(ExitCode.Ok);
    expect(r.output).toBe(
      BRIEF.trimEnd() +
        '\n\n' +
        [
          '<!-- agentos:related-past-work -->',
          '## Related Past Work',
          '',
          '_Added by `agentos issue start`: completed work similar to this brief._',
          '',
          '- **Issue #101: Past work 0** (similarity 0.6700, status: done)',
          '  > Summary: Summary of past work 0.',
          `  Path: \`${PATH0}\``,
          '- **Issue #102: Past work 1** (similarity 0.5500, status: **REJECTED** (too costly to run))',
          '  > Summary: Token bucket in Redis.',
          `  Path: \`${PATH1}\``,
          '<!-- /agentos:related-past-work -->',
        ].join('\n') +
        '\n',
    );
    expect(r.output).not.toContain('Past work 2'); // 0.45 is below the related threshold
    expect(r.t.stderr()).toContain('Related past work (added to the brief):');
    expect(r.t.stderr()).toContain(`Brief to use: ${path.join('.agentos', 'issues', SLUG, 'brief.md')}`);
    expect(decisions(r.log)[0]).toMatchObject({ status: 'related_context', decision: 'proceed', decidedBy: 'none' });
  });

  test('a match without an issue id is labelled by its title', async () => {
    const r = await start({ store: indexWithScores([{ score: 0.7, meta: { issueId: null, title: 'Old design' } }]) });
    expect(r.output).toContain('- **Issue Old design** (similarity 0.7000, status: done)');
  });

  test('a clear check writes the brief unchanged and says so', async () => {
    const r = await start({ store: indexWithScores([0.2]) });
    expect(r.output).toBe(BRIEF);
    expect(r.t.stderr()).toContain('✓ No similar past work found.');
  });
});

describe('duplicate alert at a prompt (T200-T220): scripted asker, TTY stdin, CI unset', () => {
  const dup = () => indexWithScores([0.91, 0.4]);

  test("T200 abort: exit 3, nothing written, the reason on stderr, decision logged as the user's", async () => {
    const { asker, calls } = scriptedAsker('abort');
    const r = await start({ store: dup(), asker, tty: true });
    expect(r.code).toBe(ExitCode.AbortedDuplicate);
    expect(r.code).toBe(3);
    expect(calls.action).toHaveLength(1);
    expect(calls.action[0].map((m) => m.issueId)).toEqual(['101']);
    expect(r.t.stderr()).toContain('Similar past work detected (similarity ≥ 0.85)');
    expect(r.t.stderrLines()).toContain('Aborted: this appears to duplicate #101');
    expect(issuesDirExists(r.root)).toBe(false);
    expect(r.t.stdout()).toBe('');
    const d = decisions(r.log);
    expect(d).toHaveLength(1);
    expect(d[0]).toMatchObject({
      event: 'decision',
      status: 'duplicate_alert',
      decision: 'abort',
      decidedBy: 'user',
      linked: null,
      brief: 'brief.md',
      method: 'fake:test',
    });
    expect(d[0].matches).toEqual([
      { issueId: '101', filePath: PATH0, score: 0.91 },
      { issueId: '102', filePath: PATH1, score: 0.4 },
    ]);
    expect(typeof d[0].briefSha256).toBe('string');
  });

  test('T210 link: the output brief gets the Linked Past Work section of the match', async () => {
    const { asker, calls } = scriptedAsker('link');
    const r = await start({ store: dup(), asker, tty: true });
    expect(r.code).toBe(ExitCode.Ok);
    expect(calls.which).toHaveLength(0); // one alert: nothing to choose
    expect(r.output).toContain(
      [
        '<!-- agentos:linked-past-work -->',
        '## Linked Past Work',
        '',
        'This brief was linked to **Issue #101: Past work 0** (similarity 0.9100, status: done) as a likely duplicate.',
        '',
        '> Summary: Summary of past work 0.',
        `Path: \`${PATH0}\``,
        '<!-- /agentos:linked-past-work -->',
      ].join('\n'),
    );
    expect(r.output!.startsWith(BRIEF.trimEnd())).toBe(true);
    expect(decisions(r.log)[0]).toMatchObject({
      decision: 'link',
      decidedBy: 'user',
      linked: { issueId: '101', filePath: PATH0 },
    });
  });

  test('T210 link with two matches >= 0.85: the user picks which, and that one is linked', async () => {
    const { asker, calls } = scriptedAsker('link', (m) => m[1]);
    const store = indexWithScores([0.91, { score: 0.88, meta: { summary: 'Sliding window limiter.' } }, 0.7]);
    const r = await start({ store, asker, tty: true });
    expect(r.code).toBe(ExitCode.Ok);
    expect(calls.which).toHaveLength(1);
    expect(calls.which[0].map((m) => m.issueId)).toEqual(['101', '102']); // only the alerts, not the 0.7 match
    expect(r.output).toContain(
      'This brief was linked to **Issue #102: Past work 1** (similarity 0.8800, status: done)',
    );
    expect(r.output).toContain('Summary: Sliding window limiter.');
    expect(r.output).toContain(`Path: \`${PATH1}\``);
    expect(r.output).not.toContain(PATH0);
    expect(count(r.output!, '<!-- agentos:linked-past-work -->')).toBe(1);
    expect(r.output).not.toContain('Related Past Work');
    expect(decisions(r.log)[0]).toMatchObject({
      decision: 'link',
      decidedBy: 'user',
      linked: { issueId: '102', filePath: PATH1 },
    });
  });

  test('T220 ignore: the output brief is exactly the input brief', async () => {
    const { asker } = scriptedAsker('ignore');
    const r = await start({ store: dup(), asker, tty: true });
    expect(r.code).toBe(ExitCode.Ok);
    expect(r.output).toBe(BRIEF);
    expect(decisions(r.log)[0]).toMatchObject({
      status: 'duplicate_alert',
      decision: 'ignore',
      decidedBy: 'user',
      linked: null,
    });
  });

  test('Ctrl-C at the prompt (PromptCancelled): exit 130, nothing written', async () => {
    const { asker } = scriptedAsker(new PromptCancelled());
    const r = await start({ store: dup(), asker, tty: true });
    expect(r.code).toBe(ExitCode.Cancelled);
    expect(r.code).toBe(130);
    expect(issuesDirExists(r.root)).toBe(false);
    expect(r.t.stderrLines()).toContain('Cancelled: nothing was written.');
    expect(decisions(r.log)[0]).toMatchObject({ decision: 'cancelled', decidedBy: 'user' });
  });

  test('any other asker failure is not swallowed', async () => {
    const { asker } = scriptedAsker(new Error('terminal exploded'));
    await expect(start({ store: dup(), asker, tty: true })).rejects.toThrow('terminal exploded');
  });

  test('CI=false still counts as interactive', async () => {
    const { asker, calls } = scriptedAsker('ignore');
    const r = await start({ store: dup(), asker, tty: true, env: { CI: 'false' } });
    expect(calls.action).toHaveLength(1);
    expect(decisions(r.log)[0]).toMatchObject({ decidedBy: 'user' });
  });
});

describe('duplicate alert without a prompt: the --on-duplicate policy', () => {
  const dup = () => indexWithScores([0.91]);

  test.each([
    ['--non-interactive', { tty: true, opts: { nonInteractive: true } }],
    ['CI set', { tty: true, env: { CI: 'true' } }],
    ['CI=1', { tty: true, env: { CI: '1' } }],
    ['stdin not a TTY', { tty: false }],
  ] as const)('%s: no prompt, default policy link, the alert still on stderr', async (_name, how) => {
    const { asker, calls } = scriptedAsker('abort');
    const r = await start({ store: dup(), asker, ...how });
    expect(calls.action).toHaveLength(0);
    expect(r.code).toBe(ExitCode.Ok);
    expect(r.t.stderr()).toContain('Similar past work detected');
    expect(r.t.stderr()).toContain('Issue #101: Past work 0');
    expect(r.t.stderrLines()).toContain('Not prompting (non-interactive): applying --on-duplicate link.');
    expect(r.output).toContain('## Linked Past Work');
    expect(decisions(r.log)[0]).toMatchObject({ decision: 'link', decidedBy: 'policy', linked: { issueId: '101' } });
  });

  test('--on-duplicate abort: exit 3 and nothing written', async () => {
    const r = await start({ store: dup(), opts: { onDuplicate: 'abort' } });
    expect(r.code).toBe(ExitCode.AbortedDuplicate);
    expect(issuesDirExists(r.root)).toBe(false);
    expect(r.t.stderrLines()).toContain('Aborted: this appears to duplicate #101');
    expect(decisions(r.log)[0]).toMatchObject({ decision: 'abort', decidedBy: 'policy' });
  });

  test('--on-duplicate ignore: the brief unchanged', async () => {
    const r = await start({ store: dup(), opts: { onDuplicate: 'ignore' } });
    expect(r.code).toBe(ExitCode.Ok);
    expect(r.output).toBe(BRIEF);
    expect(decisions(r.log)[0]).toMatchObject({ decision: 'ignore', decidedBy: 'policy' });
  });

  test('no alert, no policy message', async () => {
    const r = await start({ store: indexWithScores([0.7]), opts: { onDuplicate: 'abort' } });
    expect(r.code).toBe(ExitCode.Ok);
    expect(r.t.stderr()).not.toContain('Not prompting');
  });
});

describe('idempotence and the brief file', () => {
  test('re-running on an enriched output brief yields one copy of each section, and the same text', async () => {
    const store = indexWithScores([0.67], [0.8]);
    const first = await start({ store });
    expect(count(first.output!, '<!-- agentos:related-past-work -->')).toBe(1);
    expect(count(first.output!, '<!-- agentos:relevant-standards -->')).toBe(1);

    const embedder = new FakeEmbedder();
    const again = await start({
      root: first.root,
      brief: first.output,
      briefName: 'enriched.md',
      deps: fakeDeps(store, embedder),
      opts: { out: 'again.md' },
    });
    expect(again.code).toBe(ExitCode.Ok);
    for (const id of ['related-past-work', 'relevant-standards']) {
      expect(count(again.output!, `<!-- agentos:${id} -->`)).toBe(1);
      expect(count(again.output!, `<!-- /agentos:${id} -->`)).toBe(1);
    }
    expect(count(again.output!, '## Related Past Work')).toBe(1);
    expect(again.output).toBe(first.output);
    // The check saw the user's own text, not agentos' sections.
    expect(embedder.calls.flat().join('\n')).not.toContain('Related Past Work');
  });

  test('a re-run that links replaces the related section (one section each, stale ones removed)', async () => {
    const first = await start({ store: indexWithScores([0.67]) });
    const again = await start({
      root: first.root,
      brief: first.output,
      briefName: 'enriched.md',
      store: indexWithScores([0.9]),
      opts: { out: 'again.md' },
    });
    expect(count(again.output!, '<!-- agentos:linked-past-work -->')).toBe(1);
    expect(again.output).not.toContain('Related Past Work');
  });

  test('the brief file is never modified, CRLF and BOM included', async () => {
    const crlf = Buffer.from('\uFEFF' + BRIEF.replace(/\n/g, '\r\n'), 'utf8');
    const r = await start({ brief: crlf, store: indexWithScores([0.91]) });
    expect(r.code).toBe(ExitCode.Ok);
    expect(await readFile(r.briefPath)).toEqual(crlf);
    expect(r.output).toContain('## Linked Past Work');
  });

  test('--out equal to the brief path is a usage error (exit 2)', async () => {
    const r = await start({ store: indexWithScores([0.91]), opts: { out: './brief.md' } });
    expect(r.error).toBeInstanceOf(UsageError);
    expect(r.code).toBe(ExitCode.Usage);
    expect(r.error!.message).toContain('is the brief itself');
  });

  test('a brief that sits at its own default output path is a usage error naming that path', async () => {
    const rel = path.join('.agentos', 'issues', SLUG, 'brief.md');
    const r = await start({ briefName: rel });
    expect(r.error).toBeInstanceOf(UsageError);
    expect(r.code).toBe(2);
    expect(r.error!.message).toContain(rel);
    expect(r.error!.message).not.toContain('undefined');
  });

  test('--out writes there, with check.json beside it', async () => {
    const r = await start({ store: indexWithScores([0.67]), opts: { out: 'out/brief-to-use.md' } });
    expect(r.output).toContain('## Related Past Work');
    expect(existsSync(path.join(r.root, 'out', 'check.json'))).toBe(true);
    expect(issuesDirExists(r.root)).toBe(false);
  });
});

describe('bad briefs are usage errors, never a failed-open check', () => {
  test.each([
    ['missing', null, /no such file/],
    ['empty', '   \n\n', /brief is empty/],
    ['binary', Buffer.from([0x23, 0x20, 0x41, 0x00, 0x01, 0x02]), /binary/],
    ['not UTF-8', Buffer.from([0x23, 0x20, 0xc3, 0x28, 0x0a]), /not valid UTF-8/],
  ] as const)('%s brief -> UsageError (exit 2), no check, nothing written', async (_name, brief, why) => {
    const deps = fakeDeps(indexWithScores([0.9]));
    const r = await start({ brief, deps });
    expect(r.error).toBeInstanceOf(UsageError);
    expect(r.code).toBe(ExitCode.Usage);
    expect(r.error!.message).toMatch(why);
    expect(r.error!.message).toContain('brief.md');
    expect(deps.loads).toEqual({ embedder: 0, store: 0 });
    expect(r.t.stderr()).not.toContain('Historian check failed');
    expect(issuesDirExists(r.root)).toBe(false);
  });
});

describe('stdout: --json and --print', () => {
  test('--json parses and carries status, matches, decision, method, output, warnings', async () => {
    const r = await start({ store: indexWithScores([0.91, 0.6]), opts: { json: true } });
    expect(r.code).toBe(ExitCode.Ok);
    const j = JSON.parse(r.t.stdout());
    expect(j).toMatchObject({
      status: 'duplicate_alert',
      decision: 'link',
      decidedBy: 'policy',
      method: 'fake:test',
      output: r.outPath,
      warnings: [],
      error: null,
    });
    expect(j.matches).toHaveLength(2);
    expect(j.matches[0]).toMatchObject({
      id: '101',
      title: 'Past work 0',
      path: PATH0,
      score: 0.91,
      status: 'done',
      excerpt: 'Excerpt of past work 0.',
    });
    expect(j.matches[1]).toMatchObject({ id: '102', path: PATH1, score: 0.6 });
    expect(j.linked).toMatchObject({ id: '101' });
    expect(j.standards).toEqual({ method: 'fake:test', error: null, items: [] });
    expect(r.t.stderr()).not.toContain('"status"');
  });

  test('--json on abort still reports, with no output', async () => {
    const r = await start({ store: indexWithScores([0.91]), opts: { json: true, onDuplicate: 'abort' } });
    expect(r.code).toBe(3);
    const j = JSON.parse(r.t.stdout());
    expect(j).toMatchObject({ status: 'duplicate_alert', decision: 'abort', output: null });
  });

  test('--json on a failed-open check reports status "error"', async () => {
    const r = await start({ deps: failingDeps(errnoError('ENOENT', 'ENOENT: model gone')), opts: { json: true } });
    const j = JSON.parse(r.t.stdout());
    expect(j).toMatchObject({ status: 'error', error: 'ENOENT: model gone', method: 'none', matches: [] });
  });

  test('--print writes the brief to use on stdout', async () => {
    const r = await start({ store: indexWithScores([0.67]), opts: { print: true } });
    expect(r.t.stdout()).toBe(r.output);
  });

  test('--print with --json is a usage error', async () => {
    const r = await start({ opts: { print: true, json: true } });
    expect(r.error).toBeInstanceOf(UsageError);
    expect(r.code).toBe(2);
  });

  test('without --json or --print stdout stays empty', async () => {
    const r = await start({ store: indexWithScores([0.67]) });
    expect(r.t.stdout()).toBe('');
  });
});

test('the fake store places scores exactly (guards the boundary tests above)', () => {
  for (const s of [0.35, 0.49, 0.5, 0.51, 0.67, 0.7, 0.84, 0.8499, 0.85, 0.86, 0.91]) {
    const hit = indexWithScores([s]).search(basis(0), 1, 'history')[0];
    expect(hit.score).toBe(s);
  }
  expect(vectorAtScore(0.85)[0]).toBe(0.85);
});

describe('answers are remembered (issue 20, part 6)', () => {
  const dup = () => indexWithScores([0.91, 0.4]);
  const answersOf = async (root: string) =>
    (await readFile(path.join(root, '.agentos', 'memory', 'answers.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  test('T230 Ignore on a match: the same brief is not alerted on it again, and says it was dismissed', async () => {
    const first = scriptedAsker('ignore');
    const r1 = await start({ store: dup(), asker: first.asker, tty: true });
    expect(r1.code).toBe(0);
    expect(first.calls.action).toHaveLength(1);
    const recorded = await answersOf(r1.root);
    expect(recorded).toEqual([
      expect.objectContaining({ answer: 'ignore', issueId: '101', filePath: PATH0, score: 0.91 }),
    ]);
    expect(recorded[0].briefSha256).toMatch(/^[0-9a-f]{64}$/);

    const second = scriptedAsker('abort');
    const r2 = await start({ root: r1.root, store: dup(), asker: second.asker, tty: true, opts: { json: true } });
    expect(second.calls.action).toHaveLength(0); // no prompt: nothing left to alert on
    expect(r2.code).toBe(0);
    expect(r2.t.stderr()).toMatch(
      /Dismissed before: #101 Past work 0 \(Ignore on \d{4}-\d{2}-\d{2}\); not alerting on it again for this brief\./,
    );
    expect(r2.t.stderr()).not.toContain('Similar past work detected');
    const j = JSON.parse(r2.t.stdout());
    expect(j.status).toBe('related_context');
    expect(j.dismissed).toEqual([expect.objectContaining({ id: '101', path: PATH0, dismissedAt: recorded[0].at })]);
    // Still shown to the reader as related work.
    expect(r2.output).toContain(`Path: \`${PATH0}\``);
  });

  test('T231 a different brief is still alerted on the match another brief dismissed', async () => {
    const first = scriptedAsker('ignore');
    const r1 = await start({ store: dup(), asker: first.asker, tty: true });
    const second = scriptedAsker('ignore');
    await start({
      root: r1.root,
      store: dup(),
      asker: second.asker,
      tty: true,
      brief: BRIEF + '\nAlso: a second, different paragraph.\n',
    });
    expect(second.calls.action).toHaveLength(1);
  });

  test("T232 a policy decision is not a person's answer: nothing is recorded", async () => {
    const r = await start({ store: dup(), opts: { nonInteractive: true, onDuplicate: 'ignore' } });
    expect(r.code).toBe(0);
    expect(existsSync(path.join(r.root, '.agentos', 'memory', 'answers.jsonl'))).toBe(false);
  });

  test('T233 Link records the chosen match as a label; a torn line in the file is skipped', async () => {
    const { asker } = scriptedAsker('link');
    const r = await start({ store: dup(), asker, tty: true });
    const file = path.join(r.root, '.agentos', 'memory', 'answers.jsonl');
    await writeFile(file, (await readFile(file, 'utf8')) + '{"briefSha256": "torn');
    const { readAnswers } = await import('../../src/work-memory/decision/answers.js');
    expect(await readAnswers(r.root)).toEqual([expect.objectContaining({ answer: 'link', filePath: PATH0 })]);
    const { answerResults } = await import('../../src/cli/commands/calibrate/index.js');
    expect(answerResults(await readAnswers(r.root))).toEqual([
      expect.objectContaining({ target: PATH0, top: 0.91, topPath: PATH0, kind: 'answer' }),
    ]);
  });
});
