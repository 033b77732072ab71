/**
 * The A/L/I duplicate prompt: the real inquirerAsker (@inquirer/prompts
 * `expand` and `select`) driven through PassThrough streams, as a terminal
 * would drive it. Keys are typed once the prompt has rendered.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import type { HistoryMatch } from '../../src/work-memory/check/history.js';
import { runIssueStart } from '../../src/cli/commands/issue-start/index.js';
import { ACTION_PROMPT, inquirerAsker, PromptCancelled } from '../../src/work-memory/decision/prompt.js';
import { ExitCode } from '../../src/shared/errors.js';
import { collector, fakeDeps, makeIO, makeProject, readLog, indexWithScores, testContext } from '../helpers/fakes.js';

type Step = { when: string | RegExp; send: string | ((input: PassThrough) => void) };

/**
 * A terminal session: `steps` are played in order, each once the (ANSI-stripped)
 * output written since the previous step shows `when`.
 */
function session(steps: Step[]) {
  const input = new PassThrough();
  const output = collector();
  const plain = () => stripVTControlCharacters(output.text());
  let next = 0;
  let seenUpTo = 0;
  const play = () => {
    const step = steps[next];
    if (!step) return;
    const fresh = plain().slice(seenUpTo);
    if (typeof step.when === 'string' ? fresh.includes(step.when) : step.when.test(fresh)) {
      next++;
      seenUpTo = plain().length;
      setImmediate(() => {
        if (typeof step.send === 'string') input.write(step.send);
        else step.send(input);
        play();
      });
    }
  };
  output.on('data', play);
  return { input, output, plain, asker: inquirerAsker(input, output), played: () => next };
}

const m = (i: number, score: number): HistoryMatch => ({
  issueId: String(101 + i),
  title: `Past work ${i}`,
  filePath: `docs/audit/done/${101 + i}/001-issue.md`,
  score,
  status: 'done',
  statusReason: null,
  summary: `Summary ${i}`,
  documentType: 'issue',
  section: 'Problem',
  excerpt: 'x',
});
const alerts = [m(0, 0.91), m(1, 0.8876)];

describe('ACTION_PROMPT (the prompt as data)', () => {
  test('three choices a/l/i for abort/link/ignore, link by default', () => {
    expect(ACTION_PROMPT.choices.map((c) => [c.key, c.value])).toEqual([
      ['a', 'abort'],
      ['l', 'link'],
      ['i', 'ignore'],
    ]);
    expect(ACTION_PROMPT.default).toBe('l');
    expect(ACTION_PROMPT.choices.find((c) => c.key === ACTION_PROMPT.default)?.value).toBe('link');
  });

  test('each choice says what it does', () => {
    const [abort, link, ignore] = ACTION_PROMPT.choices;
    expect(abort.name).toMatch(/^Abort: .*nothing is written/);
    expect(link.name).toMatch(/^Link: .*past work.*brief/);
    expect(ignore.name).toMatch(/^Ignore: .*unchanged/);
    // Which choice Enter takes is said in the question itself.
    const def = ACTION_PROMPT.choices.find((c) => c.key === ACTION_PROMPT.default)!;
    expect(ACTION_PROMPT.message).toContain(`(Enter: ${def.name.split(':')[0]})`);
  });

  test('no key is "h": expand reserves it for help', () => {
    expect(ACTION_PROMPT.choices.map((c) => c.key)).not.toContain('h');
  });
});

describe('askAction on a terminal', () => {
  test.each([
    ['a\n', 'abort'],
    ['l\n', 'link'],
    ['i\n', 'ignore'],
    ['A\r', 'abort'],
    ['\n', 'link'], // Enter alone takes the default
  ])('typing %j answers %s', async (keys, expected) => {
    const s = session([{ when: ACTION_PROMPT.message, send: keys }]);
    await expect(s.asker.askAction(alerts)).resolves.toBe(expected);
  });

  test('the prompt shows the message and the three choices with their keys', async () => {
    const s = session([{ when: ACTION_PROMPT.message, send: 'i\n' }]);
    await s.asker.askAction(alerts);
    const text = s.plain();
    expect(text).toContain(ACTION_PROMPT.message);
    for (const c of ACTION_PROMPT.choices) expect(text).toContain(`${c.key}) ${c.name}`);
    // The answer is echoed once done (the line may wrap at the terminal width).
    expect(text.replace(/\s+/g, ' ')).toContain(`✔ ${ACTION_PROMPT.message} ${ACTION_PROMPT.choices[2].name}`);
  });

  test('an unknown key is refused and the prompt waits for a real answer', async () => {
    const s = session([
      { when: ACTION_PROMPT.message, send: 'x\n' },
      { when: "isn't an available option", send: 'a\n' },
    ]);
    await expect(s.asker.askAction(alerts)).resolves.toBe('abort');
    expect(s.played()).toBe(2);
  });

  test.each([
    ['Ctrl-C', '\x03'],
    ['Ctrl-D', '\x04'],
  ])('%s cancels: PromptCancelled', async (_name, key) => {
    const s = session([{ when: ACTION_PROMPT.message, send: key }]);
    const err = await s.asker.askAction(alerts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PromptCancelled);
  });

  test('the input closing (EOF) cancels: PromptCancelled', async () => {
    const s = session([{ when: ACTION_PROMPT.message, send: (input) => input.end() }]);
    await expect(s.asker.askAction(alerts)).rejects.toBeInstanceOf(PromptCancelled);
  });

  test('an input that already ended cancels at once', async () => {
    const s = session([]);
    s.input.end();
    s.input.resume();
    await new Promise((r) => s.input.once('end', r));
    await expect(s.asker.askAction(alerts)).rejects.toBeInstanceOf(PromptCancelled);
  });

  test('the asker leaves no listeners behind on the input', async () => {
    const s = session([{ when: ACTION_PROMPT.message, send: 'l\n' }]);
    const before = { end: s.input.listenerCount('end'), close: s.input.listenerCount('close') };
    await s.asker.askAction(alerts);
    expect({ end: s.input.listenerCount('end'), close: s.input.listenerCount('close') }).toEqual(before);
  });

  test('two prompts in a row on the same streams both work', async () => {
    const s = session([
      { when: ACTION_PROMPT.message, send: 'l\n' },
      { when: 'Link which past work?', send: '\n' },
    ]);
    expect(await s.asker.askAction(alerts)).toBe('link');
    expect(await s.asker.askWhich(alerts)).toBe(alerts[0]);
  });
});

describe('askWhich on a terminal', () => {
  test('lists the matches with issue label and score; Enter picks the first', async () => {
    const s = session([{ when: 'Link which past work?', send: '\r' }]);
    await expect(s.asker.askWhich(alerts)).resolves.toBe(alerts[0]);
    expect(s.plain()).toContain('Issue #101: Past work 0 (similarity 0.9100)');
    expect(s.plain()).toContain('Issue #102: Past work 1 (similarity 0.8876)');
  });

  test('arrow down then Enter picks the second', async () => {
    const s = session([
      { when: 'Link which past work?', send: '\x1b[B' },
      { when: /❯ Issue #102/, send: '\r' },
    ]);
    await expect(s.asker.askWhich(alerts)).resolves.toBe(alerts[1]);
  });

  test('Ctrl-C cancels: PromptCancelled', async () => {
    const s = session([{ when: 'Link which past work?', send: '\x03' }]);
    await expect(s.asker.askWhich(alerts)).rejects.toBeInstanceOf(PromptCancelled);
  });
});

describe('issue start with the real prompt on a TTY stdin', () => {
  const BRIEF =
    '# Add request tracing\n\nPropagate a trace id through every service call so a slow request can be followed end to end.\n';
  const OUT = (root: string) => path.join(root, '.agentos', 'issues', 'add-request-tracing', 'brief.md');

  async function run(steps: Step[], scores = [0.91]) {
    const root = await makeProject({ 'brief.md': BRIEF });
    const t = makeIO(root, { tty: true });
    // Play the steps against what issue start writes to stderr (where the prompt goes).
    let next = 0;
    let seenUpTo = 0;
    const play = () => {
      const step = steps[next];
      const text = stripVTControlCharacters(t.stderr());
      if (
        step &&
        (typeof step.when === 'string'
          ? text.slice(seenUpTo).includes(step.when)
          : step.when.test(text.slice(seenUpTo)))
      ) {
        next++;
        seenUpTo = text.length;
        setImmediate(() => (typeof step.send === 'string' ? t.stdin.write(step.send) : step.send(t.stdin)));
      }
    };
    t.io.stderr.on('data', play);
    const code = await runIssueStart(
      testContext(t.io, {}, { deps: () => fakeDeps(indexWithScores(scores)) }),
      'brief.md',
      { onDuplicate: 'abort', context: [] },
    );
    const out = existsSync(OUT(root)) ? await readFile(OUT(root), 'utf8') : null;
    return { code, root, t, out, log: await readLog(root) };
  }

  test('"a" at the prompt aborts: exit 3, nothing written, decided by the user', async () => {
    const r = await run([{ when: ACTION_PROMPT.message, send: 'a\n' }]);
    expect(r.code).toBe(ExitCode.AbortedDuplicate);
    expect(r.out).toBeNull();
    expect(r.log.find((l) => l.event === 'decision')).toMatchObject({ decision: 'abort', decidedBy: 'user' });
  });

  test('"l" at the prompt links (the policy would have aborted)', async () => {
    const r = await run([{ when: ACTION_PROMPT.message, send: 'l\n' }]);
    expect(r.code).toBe(ExitCode.Ok);
    expect(r.out).toContain('## Linked Past Work');
    expect(stripVTControlCharacters(r.t.stderr())).not.toContain('Not prompting');
  });

  test('"l" with two alerts asks which; arrow down links the second', async () => {
    const r = await run(
      [
        { when: ACTION_PROMPT.message, send: 'l\n' },
        { when: 'Link which past work?', send: '\x1b[B' },
        { when: /❯ Issue #102/, send: '\r' },
      ],
      [0.91, 0.87],
    );
    expect(r.code).toBe(ExitCode.Ok);
    expect(r.out).toContain('This brief was linked to **Issue #102: Past work 1**');
  });

  test('Ctrl-D at the prompt cancels: exit 130, nothing written', async () => {
    const r = await run([{ when: ACTION_PROMPT.message, send: '\x04' }]);
    expect(r.code).toBe(ExitCode.Cancelled);
    expect(r.out).toBeNull();
    expect(stripVTControlCharacters(r.t.stderr()).split('\n')).toContain('Cancelled: nothing was written.');
    expect(r.log.find((l) => l.event === 'decision')).toMatchObject({ decision: 'cancelled', decidedBy: 'user' });
  });

  test('stdout carries nothing from the prompt', async () => {
    const r = await run([{ when: ACTION_PROMPT.message, send: 'i\n' }]);
    expect(r.code).toBe(ExitCode.Ok);
    expect(r.t.stdout()).toBe('');
    expect(r.out).toBe(BRIEF);
  });
});
