/** docs/json.md is the contract: each command's real --json output has exactly the documented keys (fakes; index/search/model fetch in test/integration/json-shapes.test.ts). */
import { main } from '../../src/cli/cli.js';
import { runContext } from '../../src/cli/commands/context/index.js';
import { runIssueStart } from '../../src/cli/commands/issue-start/index.js';
import { compareWithDoc } from '../helpers/json-doc.js';
import { fakeDeps, makeIO, makeProject, indexWithScores, testContext } from '../helpers/fakes.js';

const BRIEF = '# Cache builds\n\nMake the Docker build use the layer cache.\n';

test('issue start --json (a duplicate, linked by policy) has the documented keys', async () => {
  const root = await makeProject({ 'brief.md': BRIEF });
  const t = makeIO(root);
  await runIssueStart(
    testContext(t.io, {}, { deps: () => fakeDeps(indexWithScores([0.91, 0.6], [0.8])) }),
    'brief.md',
    { onDuplicate: 'link', context: [], json: true },
  );
  const json = JSON.parse(t.stdout());
  expect(json.linked).not.toBeNull();
  const { documented, actual } = compareWithDoc('issue-start', json);
  expect(actual).toEqual(documented);
});

test('context --json has the documented keys', async () => {
  const root = await makeProject({ 'brief.md': BRIEF });
  const t = makeIO(root);
  await runContext(testContext(t.io, {}, { deps: () => fakeDeps(indexWithScores([], [0.8])) }), 'brief.md', {
    json: true,
    context: [],
  });
  const { documented, actual } = compareWithDoc('context', JSON.parse(t.stdout()));
  expect(actual).toEqual(documented);
});

test('an error with --json has the documented keys', async () => {
  const root = await makeProject();
  const t = makeIO(root);
  await main(['node', 'agentos', 'issue', 'start', 'nope.md', '--json'], t.io);
  const { documented, actual } = compareWithDoc('error', JSON.parse(t.stdout()));
  expect(actual).toEqual(documented);
});
