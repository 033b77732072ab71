/** `agentos ci github` reads the event payload as input (issue 32): a payload that is not what GitHub sends is one line naming the file and the field, exit 2, before anything is checked or posted. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { main } from '../../src/cli/cli.js';
import { ExitCode } from '../../src/shared/errors.js';
import { makeIO, makeProject } from '../helpers/fakes.js';

test.each([
  ['not JSON', '{"action": "opened", "issue": ', /not a GitHub event payload \(/],
  ['an array', '[1, 2]', /not a GitHub event payload \(not a JSON object\)/],
  [
    'a number given as text',
    JSON.stringify({ action: 'opened', issue: { number: '101', title: 't' } }),
    /issue\.number is missing/,
  ],
  [
    'a negative number',
    JSON.stringify({ action: 'opened', issue: { number: -1, title: 't' } }),
    /issue\.number is missing/,
  ],
  [
    'an unbounded number',
    JSON.stringify({ action: 'opened', issue: { number: 1e400, title: 't' } }),
    /issue\.number is missing/,
  ],
  [
    'a title that is not text',
    JSON.stringify({ action: 'opened', issue: { number: 1, title: { text: 'x' } } }),
    /issue\.title is not text/,
  ],
  [
    'a pull request without its number',
    JSON.stringify({ action: 'opened', pull_request: { title: 'x' } }),
    /pull_request\.number is missing/,
  ],
])('%s: exit 2, one line naming the file', async (_what, payload, message) => {
  const root = await makeProject();
  const file = path.join(root, 'event.json');
  await writeFile(file, payload);
  const t = makeIO(root);
  const name = payload.includes('pull_request') ? 'pull_request' : 'issues';
  expect(
    await main(
      ['node', 'agentos', '-C', root, 'ci', 'github', '--event-name', name, '--event', file, '--dry-run'],
      t.io,
    ),
  ).toBe(ExitCode.Usage);
  const lines = t.stderr().trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(file);
  expect(lines[0]).toMatch(message);
  expect(t.stdout()).toBe('');
});

test("the README's workflow is docs/ci.md's, line for line (one source: the README once lacked its guards)", async () => {
  const { readFile } = await import('node:fs/promises');
  const { REPO } = await import('../helpers/paths.js');
  const workflow = (text: string) => /```yaml\n(name: agentos\n[\s\S]*?)```/.exec(text)?.[1];
  const docs = workflow(await readFile(path.join(REPO, 'docs', 'ci.md'), 'utf8'));
  expect(docs).toMatch(/concurrency: agentos-\$\{\{ github\.event\.issue\.number \}\}/);
  expect(docs).toMatch(/!\(github\.event\.action == 'edited' && github\.event\.issue\.state == 'closed'\)/);
  expect(workflow(await readFile(path.join(REPO, 'README.md'), 'utf8'))).toBe(docs);
});
