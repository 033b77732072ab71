/**
 * Whether git or a tracker export moved since the index was built, from the
 * branch's head and the exports' stat pair alone: a freshness check before every
 * `issue start` reads no history.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../shared/config/schema.js';
import { resolveRef } from './git-branch.js';
import type { SourcesState } from './types.js';
import { trackerFiles } from './collect.js';

/** One line per source that changed ("git: main moved 1a2b3c4 -> 5d6e7f8"); empty when none did. */
export async function sourceChanges(root: string, config: Config, state: SourcesState | undefined): Promise<string[]> {
  const out: string[] = [];
  if (config.sources.git.enabled) {
    try {
      const { ref, head } = await resolveRef(root, config.sources.git.branch);
      const was = state?.git;
      if (!was || was.ref !== ref || was.head !== head)
        out.push(
          `git: ${short(ref)} ${was ? `moved ${was.head.slice(0, 7) || '(none)'} -> ${head.slice(0, 7) || '(none)'}` : 'not read yet'}`,
        );
    } catch (e) {
      out.push(`git: cannot be read (${(e as Error).message.replace(/^sources\.git: /, '')})`);
    }
  }
  for (const { path: rel, required } of trackerFiles(config)) {
    const was = state?.trackers?.find((t) => t.path === rel);
    let now: { size: number; mtimeMs: number } | null = null;
    try {
      now = statSync(path.resolve(root, rel));
    } catch {
      now = null;
    }
    if (!now && !was && !required) continue; // a gh export not fetched yet, as when the index was built
    if (!was || !now || was.size !== now.size || was.mtimeMs !== now.mtimeMs)
      out.push(`${rel} (${!now ? 'missing' : was ? 'changed' : 'new'})`);
  }
  return out;
}

const short = (ref: string) => ref.replace(/^refs\/(heads|remotes)\//, '');
