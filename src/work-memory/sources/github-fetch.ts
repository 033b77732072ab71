/**
 * Closed issues and merged pull requests fetched by the GitHub CLI itself (`gh`, when
 * installed and signed in), saved as the same exports a person would write by hand
 * and read by tracker.ts. Only `agentos index` fetches (a check before `issue start`
 * never goes to the network); a failed fetch keeps the last export and says so.
 */
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../shared/fsutil/atomic-write.js';

export const GITHUB_ISSUES_FILE = '.agentos/cache/github-issues.json';
export const GITHUB_PULLS_FILE = '.agentos/cache/github-prs.json';
const LIMIT = '5000';
const ISSUE_FIELDS = 'number,title,body,closedAt,stateReason,labels,url,author';
const PULL_FIELDS = 'number,title,body,mergedAt,url,author,files,closingIssuesReferences,mergeCommit,labels';
const TIMEOUT_MS = 120_000;

/** Run `gh` in `cwd`; its stdout, or why it failed (one line, never a token: gh prints none). */
function gh(cwd: string, args: string[]): Promise<{ ok: true; stdout: string } | { ok: false; reason: string }> {
  return new Promise((resolve) => {
    const child = spawn('gh', args, {
      cwd,
      env: { ...process.env, GH_PROMPT_DISABLED: '1', NO_COLOR: '1', GH_NO_UPDATE_NOTIFIER: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let err = '';
    const timer = setTimeout(() => child.kill(), TIMEOUT_MS);
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(0, 2000)));
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({
        ok: false,
        reason: (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'gh is not installed' : e.message,
      });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ ok: true, stdout: Buffer.concat(out).toString('utf8') });
      else
        resolve({
          ok: false,
          reason: signal
            ? `gh timed out after ${TIMEOUT_MS / 1000} s`
            : err.trim().split('\n')[0] || `gh exited ${code}`,
        });
    });
  });
}

/** Whether `gh` is installed and signed in here (what `init` asks before proposing the fetch). */
export async function ghReady(cwd: string): Promise<boolean> {
  return (await gh(cwd, ['auth', 'status'])).ok;
}

/** Fetch both exports into `.agentos/cache/`; the warnings say what could not be fetched. */
export async function fetchGithub(root: string): Promise<string[]> {
  const warnings: string[] = [];
  await mkdir(path.join(root, '.agentos', 'cache'), { recursive: true });
  for (const [file, args] of [
    [GITHUB_ISSUES_FILE, ['issue', 'list', '--state', 'closed', '--limit', LIMIT, '--json', ISSUE_FIELDS]],
    [GITHUB_PULLS_FILE, ['pr', 'list', '--state', 'merged', '--limit', LIMIT, '--json', PULL_FIELDS]],
  ] as const) {
    const r = await gh(root, [...args]);
    if (!r.ok) {
      warnings.push(
        `sources.github: \`gh ${args.slice(0, 2).join(' ')}\` failed (${r.reason}); using the last export in ${file}, if any`,
      );
      continue;
    }
    // Saved only when it is an export: a proxy's HTML page never replaces a good file.
    if (!r.stdout.trimStart().startsWith('[')) {
      warnings.push(`sources.github: \`gh ${args.slice(0, 2).join(' ')}\` did not print a JSON array; kept ${file}`);
      continue;
    }
    await writeFileAtomic(path.join(root, file), r.stdout);
  }
  return warnings;
}
