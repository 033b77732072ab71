/**
 * One way to run the built CLI in the slow tests (the changesets pattern): one
 * environment policy, one demo copy, and the demo indexed once per test run.
 *
 * The environment: the parent's, without anything that changes agentos' behaviour
 * behind a test's back (AGENTOS_*, CI, colour forcing, an agent's project folder),
 * plus the provisioned model and NO_COLOR. A test states what it wants on top
 * (`{ CI: 'true' }`, `{ AGENTOS_NO_FAST_PATH: '1' }`); `undefined` removes a variable.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BIN, DEMO, MODEL_DIR, REPO } from './paths.js';

// PG*: a developer's libpq settings (PGSSLMODE, PGOPTIONS, …) must not reach the store tests' client.
const STRIPPED =
  /^(AGENTOS_|PG[A-Z]|GITHUB_ACTIONS$|CLAUDE_PROJECT_DIR$|GEMINI_PROJECT_DIR$|CURSOR_PROJECT_DIR$|CI$|FORCE_COLOR$|NO_COLOR$)/;

export function cliEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!STRIPPED.test(k)) env[k] = v;
  Object.assign(env, { AGENTOS_MODEL_DIR: MODEL_DIR, NO_COLOR: '1' });
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** `agentos ARGS` as a separate process (bin/agentos.js); stdin gets `input` (or nothing) and is closed. */
export function runCli(
  args: string[],
  opts: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv; node?: boolean } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    // node: the arguments are node's own (e.g. --require a preload, then BIN and the CLI's).
    const child = spawn(process.execPath, opts.node ? args : [BIN, ...args], {
      cwd: opts.cwd ?? REPO,
      env: cliEnv(opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}

/** The demo project copied to `dest`, without any .agentos/ state of its own. */
export async function copyDemo(dest: string): Promise<void> {
  await cp(DEMO, dest, {
    recursive: true,
    filter: (src) => !path.relative(DEMO, src).split(path.sep).includes('.agentos'),
  });
}

/** Set by test/helpers/indexed-demo-setup.mjs (the slow project's globalSetup). */
export const INDEXED_DEMO_ENV = 'AGENTOS_TEST_INDEXED_DEMO';

/**
 * The demo with its index (`index --include-history`), copied to `dest`. The index is
 * built once per test run (globalSetup); each suite gets its own copy to change freely.
 * A run without the setup (one file run by hand) builds it here.
 */
export async function indexedDemo(dest: string): Promise<void> {
  const built = process.env[INDEXED_DEMO_ENV];
  if (built && existsSync(path.join(built, '.agentos', 'index', 'CURRENT'))) {
    await cp(built, dest, { recursive: true, preserveTimestamps: true });
    return;
  }
  await copyDemo(dest);
  // As the once-per-run setup makes it: a git folder on branch main.
  await mkdir(path.join(dest, '.git'), { recursive: true });
  await writeFile(path.join(dest, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  const r = await runCli(['-C', dest, 'index', '--include-history', '-q']);
  if (r.code !== 0) throw new Error(`indexing the demo failed (${r.code}): ${r.stderr}`);
}

/**
 * A project's config, committed: publishing reads `store.publish` from the config committed at HEAD
 * (issue 47), on a real default branch. A folder that is not yet a repository with history becomes one
 * on branch main (the indexed demo's stand-in `.git` holds only HEAD); the config is committed on the
 * branch checked out.
 */
export async function commitConfig(dir: string, yamlText: string): Promise<void> {
  const { execFileSync } = await import('node:child_process');
  const { rm, stat } = await import('node:fs/promises');
  const git = (args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'Ada',
        GIT_AUTHOR_EMAIL: 'ada@example.com',
        GIT_COMMITTER_NAME: 'Ada',
        GIT_COMMITTER_EMAIL: 'ada@example.com',
      },
    });
  let hasHistory = true;
  try {
    git(['rev-parse', '--verify', '-q', 'HEAD']);
  } catch {
    hasHistory = false;
  }
  if (!hasHistory) {
    // Only the stand-in (no objects): replaced by a real repository. A real one without commits is kept.
    if (!(await stat(path.join(dir, '.git', 'objects')).catch(() => null)))
      await rm(path.join(dir, '.git'), { recursive: true, force: true });
    git(['init', '-q', '-b', 'main']);
  }
  await mkdir(path.join(dir, '.agentos'), { recursive: true });
  await writeFile(path.join(dir, '.agentos', 'config.yaml'), yamlText);
  git(['add', '-f', '.agentos/config.yaml']);
  git(['commit', '-q', '--allow-empty', '-m', 'agentos config']);
}
