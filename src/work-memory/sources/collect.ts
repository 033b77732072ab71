/**
 * Every source of completed work besides files, read together: git history and
 * tracker exports. A pull request that git and the tracker both know is one
 * document (git's, with the tracker's description); a pull request and the issue
 * it closes are one piece of work (they share the issue's id).
 */
import { relatedOf } from '../corpus/relations.js';
import path from 'node:path';
import { existsSync, statSync } from 'node:fs';
import { readTextFile, sha256 } from '../corpus/read.js';
import type { Config } from '../../shared/config/schema.js';
import { readGitSource, type GitSourceResult } from './git-source.js';
import { readTrackerExport, TrackerFileError } from './tracker.js';
import type { DuplicatePair, SourceDoc, SourcesState } from './types.js';
import type { WorkOrigin } from '../corpus/types.js';
import { fetchGithub, GITHUB_ISSUES_FILE, GITHUB_PULLS_FILE } from './github-fetch.js';

export interface CollectedSources {
  docs: SourceDoc[];
  state: SourcesState;
  duplicates: DuplicatePair[];
  warnings: string[];
  git: GitSourceResult['read'] | null;
}

export interface PreviousSources {
  state: SourcesState;
  docs: SourceDoc[];
}

/** Whether the configuration names any source besides files. */
export const sourcesConfigured = (c: Config) =>
  c.sources.git.enabled || c.sources.trackers.length > 0 || c.sources.github;

/** Every export read: the configured ones (required), and gh's fetched ones (read when present). */
export function trackerFiles(c: Config): Array<{ path: string; required: boolean }> {
  const own = c.sources.trackers.map((p) => ({ path: p, required: true }));
  return c.sources.github
    ? [...own, { path: GITHUB_ISSUES_FILE, required: false }, { path: GITHUB_PULLS_FILE, required: false }]
    : own;
}

export async function collectSources(
  root: string,
  config: Config,
  previous: PreviousSources | null,
  opts: { fetch?: boolean } = {},
): Promise<CollectedSources> {
  const out: CollectedSources = { docs: [], state: {}, duplicates: [], warnings: [], git: null };
  // Only an explicit `index` goes to the network; a refresh before a check reads the last fetch.
  if (config.sources.github && opts.fetch) out.warnings.push(...(await fetchGithub(root)));
  let gitDocs: SourceDoc[] = [];
  if (config.sources.git.enabled) {
    const prevGit = previous?.state.git
      ? { state: previous.state.git, docs: previous.docs.filter((d) => d.metadata.origin.source === 'git') }
      : null;
    const g = await readGitSource({
      root,
      branch: config.sources.git.branch,
      rules: config.sources.git,
      previous: prevGit,
    });
    gitDocs = g.docs;
    out.state.git = g.state;
    if (!g.state.head)
      out.warnings.push(
        `sources.git: no commit on ${g.state.ref} in ${root} (not a git repository, or nothing committed yet)`,
      );
    const u = g.read.unreadable;
    if (u) out.warnings.push(unreadableWarning(u));
    out.git = g.read;
  }
  const trackerDocs: SourceDoc[] = [];
  const seen = new Set<string>();
  const files = trackerFiles(config);
  if (files.length) out.state.trackers = [];
  for (const { path: rel, required } of files) {
    const abs = path.resolve(root, rel);
    const read = await readTextFile(abs, 256 * 1024 * 1024);
    if (!read.ok && !required && !existsSync(abs)) continue; // gh has not fetched yet (its warning says why)
    if (!read.ok) throw new TrackerFileError(`${rel}: ${read.reason}`);
    const st = statSync(abs);
    const t = readTrackerExport(rel, read.text);
    out.warnings.push(...t.warnings);
    out.duplicates.push(...t.duplicates);
    let kept = 0;
    for (const d of t.docs) {
      if (seen.has(d.metadata.filePath)) {
        out.warnings.push(`${rel}: ${d.metadata.filePath} is also in an earlier export; the first is kept`);
        continue;
      }
      seen.add(d.metadata.filePath);
      trackerDocs.push(d);
      kept++;
    }
    out.state.trackers!.push({ path: rel, size: st.size, mtimeMs: st.mtimeMs, documents: kept });
  }
  out.docs = join(gitDocs, trackerDocs);
  return out;
}

/** Where a pull request's description from the tracker starts in a git document's text. */
const DESCRIPTION = '\n\n## Pull request\n\n';

/** One document per pull request, and the issue a pull request closes as its work id. */
function join(gitDocs: SourceDoc[], trackerDocs: SourceDoc[]): SourceDoc[] {
  const pulls = new Map<string, SourceDoc>();
  for (const d of trackerDocs)
    if (d.metadata.origin.source === 'github' && d.metadata.origin.kind === 'pull-request')
      pulls.set(d.metadata.origin.ref, d);
  const merged = new Set<string>();
  const git = gitDocs.map((g) => {
    const pr = g.metadata.origin.pullRequest;
    const t = pr ? pulls.get(pr) : undefined;
    if (!t) return g;
    merged.add(t.metadata.filePath);
    const description = t.text.replace(/^# .*\n+/, '').trim();
    // Git's own text: a document kept from an earlier read may carry the description already.
    const own = g.text.split(DESCRIPTION)[0].replace(/\n+$/, '\n');
    const closes = [...new Set([...g.metadata.origin.closes, ...t.metadata.origin.closes])];
    // A squash commit's message is often the pull request's description already: not twice.
    const flat = (t: string) => t.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
    const known = description === '' || flat(own).includes(flat(description).slice(0, 200));
    const text = known ? own : own.replace(/\n+$/, '') + `${DESCRIPTION}${description.slice(0, 3000)}\n`;
    return {
      text,
      metadata: {
        ...g.metadata,
        issueId: closes[0] ?? pr,
        title: t.metadata.title || g.metadata.title,
        summary: t.metadata.summary || g.metadata.summary,
        contentHash: sha256(text),
        ...relatedOf(text, closes[0] ?? pr),
        // The pull request's author (gh) is the work's; git's merger stays as who merged it.
        origin: {
          ...g.metadata.origin,
          closes,
          url: t.metadata.origin.url ?? g.metadata.origin.url,
          author: t.metadata.origin.author ?? g.metadata.origin.author,
          ...mergedBy(g.metadata.origin, t.metadata.origin.author),
        },
      },
    };
  });
  return [...git, ...trackerDocs.filter((d) => !merged.has(d.metadata.filePath))];
}

/** Who merged a pull request, as git's merge commit says (a squash commit says nothing of it): kept beside gh's author when that is someone else. */
function mergedBy(git: WorkOrigin, prAuthor: string | null): { mergedBy?: string | null } {
  return git.mergedBy && git.mergedBy !== prAuthor ? { mergedBy: git.mergedBy } : {};
}

/** What a history whose diffs could not all be read says (the commits are indexed by subject and files). */
export function unreadableWarning(u: { commits: number; reason: string }): string {
  return `sources.git: git could not read the diff of ${u.commits || 'some'} commit${u.commits === 1 ? '' : 's'} (${u.reason}); indexed by subject and files without what the change adds`;
}
