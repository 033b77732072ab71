import { DEFAULT_CONFIG } from '../../../shared/config/schema.js';
import { literalGlob } from '../../../work-memory/corpus/glob-counts.js';

export interface InitCorpus {
  standards: { glob: string; files: number }[];
  history: { glob: string; files: number }[];
  /** Files of those folders that are no decision (a template, an index page). */
  exclude?: { path: string; why: string }[];
}

const q = (s: string) => JSON.stringify(s); // a YAML double-quoted scalar is a JSON string

/**
 * The commented `.agentos/config.yaml` that `agentos init` writes. Only the
 * corpus is set; every other key is shown commented out at its default, so a
 * default stays a default (and `agentos status` says so) until someone edits it.
 */
export function renderConfig(
  corpus: InitCorpus,
  sources: { git: boolean; github?: boolean } = { git: false },
  when = new Date(),
): string {
  const d = DEFAULT_CONFIG;
  const list = (items: InitCorpus['standards'], none: string) =>
    items.length
      ? items.map(
          (g) =>
            `    - ${q(g.glob)}${' '.repeat(Math.max(1, 40 - q(g.glob).length))}# ${g.files} file${g.files === 1 ? '' : 's'} now`,
        )
      : [`    # ${none}`];
  return [
    `# agentos configuration, written by \`agentos init\` on ${when.toISOString().slice(0, 10)}.`,
    '# Commit this file; .agentos/.gitignore keeps the index, logs and outputs out of git.',
    '# `agentos status` shows the effective settings and what each glob matches.',
    '',
    'corpus:',
    '  # Standing decisions (ADRs, RFCs, standards, finished designs): attached to a brief',
    '  # as "Relevant Standards". Globs are repo-relative, matched case-insensitively.',
    `  standards:${corpus.standards.length ? '' : ' []'}`,
    ...list(corpus.standards, 'none found: add globs such as docs/adr/**/*.md'),
    '  # Completed work (finished issue briefs and designs): a new brief is checked against',
    '  # it for duplicates. Indexed with `agentos index --include-history`.',
    `  history:${corpus.history.length ? '' : ' []'}`,
    ...list(corpus.history, 'none found: add globs such as issues/closed/**/*.md'),
    ...(corpus.exclude?.length
      ? [
          '  exclude:                                  # globs never indexed',
          ...corpus.exclude.map(
            (x) =>
              `    - ${q(literalGlob(x.path))}${' '.repeat(Math.max(1, 40 - q(literalGlob(x.path)).length))}# ${x.why}`,
          ),
        ]
      : ['  exclude: []                               # globs never indexed']),
    `  # max_file_kb: ${d.corpus.maxFileBytes / 1024}                        # larger files are skipped`,
    '',
    '# Completed work that is not in files, indexed with history (docs/sources.md).',
    'sources:',
    `  git: ${sources.git}                                # the default branch: one document per pull request or commit`,
    '  # git: { branch: main, exclude_subjects: ["^docs:"], exclude_authors: ["ci-bot"] }  # releases, dependency updates,',
    '  #                                          # bots and reverts are left out already',
    `  github: ${Boolean(sources.github)}                            # \`agentos index\` fetches closed issues and merged pull requests with gh`,
    '  trackers: []                             # exports: `gh issue list --state closed --json …` or JSON lines',
    '',
    '# thresholds:',
    `#   duplicate: ${d.thresholds.duplicate}                           # at or above: duplicate alert (Abort / Link / Ignore)`,
    `#   related: ${d.thresholds.related}                              # at or above: "Related Past Work" added to the brief`,
    `#   standards: ${d.thresholds.standards}                            # standards at or above are attached`,
    '# history:',
    `#   k: ${d.history.k}                                    # past documents considered`,
    '# model:',
    '#   dir: null                               # folder holding Xenova/all-MiniLM-L6-v2/ (offline)',
    '',
  ].join('\n');
}

/** `.agentos/.gitignore`: local state out of git, the config in. */
export const GITIGNORE = [
  '# agentos: local state stays out of git; config.yaml is committed.',
  'index/',
  '*.lock',
  '*.lock.*',
  'logs/',
  'issues/',
  'models/',
  'cache/',
  'memory/',
  'attempts/',
  'eval/',
  '',
].join('\n');
