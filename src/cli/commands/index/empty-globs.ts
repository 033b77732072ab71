import type { Config } from '../../../shared/config/schema.js';
import { countGlobMatches, listGlobs, type GlobCount } from '../../../work-memory/corpus/glob-counts.js';
import type { BuildReport } from '../../../work-memory/index/build.js';

/**
 * When an index run found nothing (or no history although it was asked for),
 * name the globs that matched nothing and point to `agentos init`. Counting is
 * a stat scan per glob, so it runs only in those cases.
 */
export async function emptyGlobWarnings(
  root: string,
  config: Config,
  report: Pick<BuildReport, 'scanned'> & Partial<Pick<BuildReport, 'sources'>>,
  includeHistory: boolean,
  count: typeof countGlobMatches = countGlobMatches,
): Promise<{ globs: GlobCount[]; warnings: string[] }> {
  const hint = "run `agentos init` to detect the project's folders, or edit .agentos/config.yaml";
  if (report.scanned === 0) {
    const globs = await count(root, config.corpus, includeHistory ? ['standard', 'history'] : ['standard']);
    const empty = globs.filter((g) => g.files === 0).map((g) => g.glob);
    return {
      globs,
      warnings: [`no files matched the corpus globs (${listGlobs([...new Set(empty)])} matched nothing); ${hint}`],
    };
  }
  // Git or a tracker export gave completed work: history globs matching nothing is no problem.
  if (includeHistory && !report.sources?.documents) {
    const globs = await count(root, config.corpus, ['history']);
    if (globs.every((g) => g.files === 0)) {
      return {
        globs,
        warnings: [
          `history globs matched 0 files (${listGlobs(globs.map((g) => g.glob))}): no completed work is indexed; ${hint}`,
        ],
      };
    }
  }
  return { globs: [], warnings: [] };
}
