// packageRoot(): the installation's root, whichever file the code runs from
// (src/ here; dist/ and the bundles in dist/main/ and dist/fast/ in the slow tests).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';
import { REPO } from '../helpers/paths.js';

describe('packageRoot', () => {
  it('is the folder of the package.json named agentos-cli (the npm package of the agentos command)', () => {
    expect(packageRoot()).toBe(REPO);
    expect((JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { name: string }).name).toBe(
      'agentos-cli',
    );
  });

  it('holds bin/agentos.js, which the hook settings point at', () => {
    expect(readFileSync(path.join(packageRoot(), 'bin', 'agentos.js'), 'utf8')).toMatch(/^#!\/usr\/bin\/env node/);
  });
});
