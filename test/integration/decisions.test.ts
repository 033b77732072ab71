// SLOW: real model
// Issue 20 end to end: decisions users can trust on a project of a handful of
// documents (where the old standout score alerted on moderate matches), the
// governing standard attached, the calibrated components in --json, and the
// Ignore answer remembered across runs. Real model, real index, real CLI.
import { cliEnv } from '../helpers/cli.js';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { jest } from '@jest/globals';
import { BIN, REPO } from '../helpers/paths.js';
import { spawnCollect } from '../helpers/spawn-collect.js';

jest.setTimeout(300_000);

let tmp: string;
let root: string;

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return spawnCollect(process.execPath, [BIN, '-C', root, ...args], { cwd: REPO, env: cliEnv() });
}

// Seven documents, as a team's first weeks might leave them.
const DOCS: Record<string, string> = {
  'docs/audit/done/3-docker-build-cache/001-issue.md': `# Issue #3: Cache Docker layers in CI

Status: done

## Problem
Every CI run rebuilds our Docker images from scratch: pulling the base image, installing apt packages and running npm ci takes 12 minutes per pipeline.

## Solution
Enable BuildKit, push a cache image to the registry with --cache-to and read it back with --cache-from, and order the Dockerfile so that dependency layers come before the source copy. Builds now take 3 minutes when only source files change.
`,
  'docs/lld/done/LLD-5-feature-flags.md': `# LLD-5: Feature flag service

Status: done

## Design
A small feature flag service: flags are stored in PostgreSQL, evaluated per tenant and per user percentage rollout, cached in each API process for 30 seconds, and changed through an admin page with an audit log of who flipped what.
`,
  'docs/audit/done/7-postgres-upgrade/001-issue.md': `# Issue #7: Upgrade PostgreSQL 14 to 16

Status: done

Upgrade the production database with pg_upgrade in link mode during a maintenance window, after a rehearsal on a copy of production. Update the extensions (pg_stat_statements, pgcrypto) and the connection pool settings.
`,
  'docs/audit/done/9-password-reset/001-issue.md': `# Issue #9: Password reset by email

Status: done

Users can ask for a password reset link by email. The link carries a single-use token valid for 30 minutes; using it lets the user choose a new password and signs out every other session.
`,
  'docs/audit/done/11-csv-export/001-issue.md': `# Issue #11: Export reports as CSV

Status: done

Add a CSV download to the reports page: the current filters apply, dates are ISO 8601, numbers use a dot as decimal separator, and exports over 50,000 rows are produced in the background and emailed as a link.
`,
  'docs/adrs/0002-structured-logging.md': `# ADR-0002: Structured JSON logging with request ids

Status: accepted

## Decision
Every service logs JSON lines to stdout with the fields time, level, service, message and request_id. The request id comes from the X-Request-Id header or is generated at the edge, and is passed on to every downstream call and background job, so that one request can be followed through all logs.
`,
  'docs/standards/api-errors.md': `# API error format

Every HTTP API error is a JSON object with code, message and details fields, with the HTTP status matching the code family. Validation errors list each invalid field.
`,
};

const BRIEFS: Record<string, string> = {
  // Different Docker work: images for ARM, not build caching.
  'arm.md': `# Build multi-arch Docker images for ARM servers

We are moving some workers to ARM (Graviton) machines. Our Docker images are amd64 only. Build and publish multi-architecture images (linux/amd64 and linux/arm64) with docker buildx, and run the test suite on an ARM runner before release.
`,
  'dark-mode.md': `# Dark mode for the dashboard

Users work late and ask for a dark theme. Add a dark colour scheme to the dashboard, follow the operating system's preference by default, and let users override it in their profile.
`,
  // The dark-mode brief naming two standards that have nothing to do with colours: attached because it names them.
  'dark-mode-named.md': `# Dark mode for the dashboard

Users work late and ask for a dark theme. Add a dark colour scheme to the dashboard, follow the operating system's preference by default, and let users override it in their profile. The profile endpoint answers errors as docs/standards/api-errors.md says, and logs the change as ADR-0002 decided.
`,
  'logging.md': `# Request ids are missing from worker logs

When an API request enqueues a background job, the worker's log lines have no request_id, so we cannot follow a request from the API into the job. Pass the request id along with the job and log it with every line the worker writes.
`,
  // The done Docker work, filed again in other words.
  'refiled.md': `# Speed up CI Docker builds with layer caching

CI spends most of its time rebuilding Docker images that did not change. Use BuildKit with a registry cache (cache-from / cache-to) and reorder the Dockerfile so dependency installation is cached, to bring pipeline build time from twelve minutes down to a few.
`,
};

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-decisions-'));
  root = path.join(tmp, 'repo');
  await mkdir(path.join(root, '.git'), { recursive: true });
  for (const [rel, text] of Object.entries({
    ...DOCS,
    ...Object.fromEntries(Object.entries(BRIEFS).map(([k, v]) => [`briefs/${k}`, v])),
  })) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
  const r = await run(['index', '--include-history']);
  expect(r.code).toBe(0);
});
afterAll(async () => rm(tmp, { recursive: true, force: true }));

async function check(brief: string, extra: string[] = []) {
  const r = await run(['issue', 'start', path.join(root, 'briefs', brief), '--non-interactive', '--json', ...extra]);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as {
    status: string;
    nearest: Array<{
      id: string;
      score: number;
      components: {
        cosine: number;
        features: Record<string, number>;
        contributions: Record<string, number>;
        why: string[];
      };
    }>;
    matches: Array<{ id: string }>;
    standards: { items: Array<{ filePath: string; source: string }> };
  };
}

describe('a project of seven documents', () => {
  it('a different piece of Docker work does not alert', async () => {
    const j = await check('arm.md');
    expect(j.status).not.toBe('duplicate_alert');
    expect(j.nearest[0].id).toBe('3');
  });

  it('an unrelated brief is neither an alert nor "related" (no feature-flags design beside dark mode)', async () => {
    const j = await check('dark-mode.md');
    expect(j.status).toBe('clear');
    expect(j.matches).toEqual([]);
  });

  it('the standards a brief names are attached first, as named; the same brief naming none gets neither', async () => {
    const named = await check('dark-mode-named.md');
    expect(named.standards.items.slice(0, 2).map((s) => [s.filePath, s.source])).toEqual([
      ['docs/adrs/0002-structured-logging.md', 'cited'],
      ['docs/standards/api-errors.md', 'cited'],
    ]);
    const plain = await check('dark-mode.md');
    expect(plain.standards.items.map((s) => s.filePath)).not.toContain('docs/adrs/0002-structured-logging.md');
    expect(plain.standards.items.map((s) => s.filePath)).not.toContain('docs/standards/api-errors.md');
    const text = await run(['issue', 'start', path.join(root, 'briefs', 'dark-mode-named.md'), '--non-interactive']);
    expect(text.stderr).toMatch(/- cited +docs\/adrs\/0002-structured-logging\.md/);
  });

  it('a logging brief gets the logging ADR attached and no unrelated past work', async () => {
    const j = await check('logging.md');
    expect(j.status).toBe('clear');
    expect(j.standards.items.map((s) => s.filePath)).toContain('docs/adrs/0002-structured-logging.md');
    expect(j.standards.items.map((s) => s.filePath)).not.toContain('docs/lld/done/LLD-5-feature-flags.md');
  });

  it('the same work filed again in other words alerts, says why, and shows each feature in --json', async () => {
    const j = await check('refiled.md');
    expect(j.status).toBe('duplicate_alert');
    expect(j.nearest[0].id).toBe('3');
    const c = j.nearest[0].components;
    expect(c.features.cosine).toBe(c.cosine);
    expect(Object.keys(c.contributions).length).toBeGreaterThan(2);
    expect(c.why.length).toBeGreaterThan(0);
    const text = await run(['issue', 'start', path.join(root, 'briefs', 'refiled.md'), '--non-interactive']);
    expect(text.stderr).toMatch(/Why: {9}\S/);
  });
});
