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
export async function explainNoHistory(
  root: string,
  config: Config,
  indexIncludesHistory: boolean | null,
): Promise<NoHistory> {
  const historyGlobs = await countGlobMatches(root, config.corpus, ['history']);
  const matched = historyGlobs.reduce((n, g) => n + g.files, 0);
  const globs = historyGlobs.length
    ? `history globs matched 0 files: ${listGlobs(historyGlobs.map((g) => g.glob))}`
    : 'corpus.history names no folder';
  // Completed work that is not in files: most repositories keep it in git and a tracker (docs/sources.md).
  const sources = sourceNames(config);
  let message: string;
  if (matched === 0 && sources.length && indexIncludesHistory === false) {
    message = `No completed work is indexed (the index was built without --include-history; ${sources.join(' and ')} ${sources.length === 1 ? 'is' : 'are'} configured as history). Run \`agentos index --include-history\`.`;
  } else if (matched === 0 && sources.length) {
    message = `No completed work is indexed (${globs}, and ${sources.join(' and ')} gave nothing to index). Run \`agentos index --include-history\` and see what it reports for each source, or set corpus.history in .agentos/config.yaml.`;
  } else if (matched === 0) {
    message = `No completed work is indexed (${globs}). Run \`agentos init\` or set corpus.history in .agentos/config.yaml, then \`agentos index --include-history\`.`;
  } else if (indexIncludesHistory === false) {
    message = `No completed work is indexed (the index was built without --include-history; the history globs match ${matched} file${matched === 1 ? '' : 's'}). Run \`agentos index --include-history\`.`;
  } else {
    message = `No completed work is indexed (the history globs match ${matched} file${matched === 1 ? '' : 's'}, none indexed). Run \`agentos index --include-history\` and see what it skipped.`;
  }
  return { message, historyGlobs, indexIncludesHistory };
}

function sourceNames(config: Config): string[] {
  const s = config.sources;
  return [
    ...(s.git.enabled ? ['git'] : []),
    ...(s.github ? ['GitHub (gh)'] : []),
    ...(s.trackers.length ? ['tracker exports'] : []),
  ];
}
