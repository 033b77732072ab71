import type { Config } from '../../shared/config/schema.js';
import { countGlobMatches, listGlobs, type GlobCount } from '../corpus/glob-counts.js';

export interface NoHistory {
  /** One line for the terminal, beginning "No completed work is indexed". */
  message: string;
  /** Files each history glob selects now. */
  historyGlobs: GlobCount[];
  /** Whether the index was built to hold history (null: unknown). */
  indexIncludesHistory: boolean | null;
}

/**
 * Why an index holds no completed work, said plainly: the history check could
 * not look, so the result is not "clear". Counts the history globs (a stat scan)
 * to tell a wrong glob from an index built without `--include-history`.
 */
export async function explainNoHistory(root: string, config: Config, indexIncludesHistory: boolean | null): Promise<NoHistory> {
  const historyGlobs = await countGlobMatches(root, config.corpus, ['history']);
  const matched = historyGlobs.reduce((n, g) => n + g.files, 0);
  const globs = listGlobs(historyGlobs.map((g) => g.glob));
  let message: string;
  if (matched === 0) {
    message = `No completed work is indexed (history globs matched 0 files: ${globs}). Run \`agentos init\` or set corpus.history in .agentos/config.yaml, then \`agentos index --include-history\`.`;
  } else if (indexIncludesHistory === false) {
    message = `No completed work is indexed (the index was built without --include-history; the history globs match ${matched} file${matched === 1 ? '' : 's'}). Run \`agentos index --include-history\`.`;
  } else {
    message = `No completed work is indexed (the history globs match ${matched} file${matched === 1 ? '' : 's'}, none indexed). Run \`agentos index --include-history\` and see what it skipped.`;
  }
  return { message, historyGlobs, indexIncludesHistory };
}
