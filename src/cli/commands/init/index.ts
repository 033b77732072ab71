import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CommandContext } from '../../context.js';
import { CONFIG_PATH } from '../../../shared/config/load.js';
import { PromptCancelled } from '../../../work-memory/decision/prompt.js';
import { ExitCode, UsageError } from '../../../shared/errors.js';
import { canPrompt } from '../../../shared/io.js';
import { writeFileAtomic } from '../../../shared/fsutil/atomic-write.js';
import { inquirerInitAsker, type InitChoice } from './ask.js';
import { GITIGNORE, renderConfig } from './config-text.js';
import { corpusFromChoice, detectLayout, type FoundFolder } from './detect.js';
import { detectGitHistory, githubRemote } from '../../../work-memory/sources/git-branch.js';
import { ghReady } from '../../../work-memory/sources/github-fetch.js';

export interface InitOptions {
  yes?: boolean;
  force?: boolean;
  json?: boolean;
}

export const GITIGNORE_PATH = '.agentos/.gitignore';

/**
 * `agentos init`: detect where the project keeps decisions and completed work
 * (decide), ask at a terminal which folders are which (ask), write a commented
 * config and a .gitignore (act). Never overwrites a config without --force.
 */
export async function runInit(ctx: CommandContext, opts: InitOptions): Promise<number> {
  const { io } = ctx;
  const root = ctx.root();
  const configFile = path.join(root, CONFIG_PATH);
  if (existsSync(configFile) && !opts.force) {
    throw new UsageError(
      `${CONFIG_PATH} already exists in ${root}; agentos init never overwrites it (use --force to replace it)`,
    );
  }
  const out = (s = '') => io.stdout.write(s + '\n');
  const err = (s = '') => io.stderr.write(s + '\n');

  const found = await detectLayout(root);
  const proposal: InitChoice = {
    standards: found.filter((f) => f.types.includes('standard')).map((f) => f.folder),
    history: found.filter((f) => f.types.includes('history')).map((f) => f.folder),
  };
  const { gitHistory, github } = await detectHistory(root, opts.json ? null : out);
  if (!opts.json) printFound(out, root, found, gitHistory);

  // Ask only a person at a terminal; --yes (or no terminal, or CI) takes the proposal.
  const interactive = found.length > 0 && canPrompt(io, Boolean(opts.yes)) && Boolean(io.stderr.isTTY);
  let choice = proposal;
  if (interactive) {
    const asker = ctx.prompts.init ?? inquirerInitAsker(io.stdin, io.stderr);
    try {
      choice = await asker(found);
    } catch (e) {
      if (e instanceof PromptCancelled) {
        err('Cancelled: nothing was written.');
        return ExitCode.Cancelled;
      }
      throw e;
    }
  }

  const corpus = corpusFromChoice(found, choice.standards, choice.history);
  await writeFileAtomic(configFile, renderConfig(corpus, { git: gitHistory !== null, github }));
  const gitignoreFile = path.join(root, GITIGNORE_PATH);
  const writeIgnore = !existsSync(gitignoreFile) || Boolean(opts.force);
  if (writeIgnore) await writeFileAtomic(gitignoreFile, GITIGNORE);

  if (opts.json) {
    const wrote = { config: configFile, gitignore: writeIgnore ? gitignoreFile : null, asked: interactive };
    const json = { root, found, gitHistory, github, chosen: choice, corpus, ...wrote };
    io.stdout.write(JSON.stringify(json, null, 2) + '\n');
    return ExitCode.Ok;
  }
  out(
    `Wrote ${CONFIG_PATH} (${corpus.standards.length} standards glob${corpus.standards.length === 1 ? '' : 's'}, ${corpus.history.length} history glob${corpus.history.length === 1 ? '' : 's'}${gitHistory ? ', git history' : ''}).`,
  );
  out(
    writeIgnore
      ? `Wrote ${GITIGNORE_PATH} (index, logs, issue outputs, models and memory stay out of git; commit the config).`
      : `Kept the existing ${GITIGNORE_PATH}.`,
  );
  if (corpus.standards.length + corpus.history.length === 0 && !gitHistory) {
    out('No known folders were found: add your globs to the config, then run `agentos index --include-history`.');
  } else {
    out('Next: agentos index --include-history');
  }
  return ExitCode.Ok;
}

/**
 * The completed work beside the folders: most teams keep most of it in git, and its first-parent history is
 * proposed whenever there is one; with a GitHub remote and a signed-in GitHub CLI, its closed issues and merged pull
 * requests too. Said either way (`say`, null for --json): pull requests' descriptions and the issues they close are
 * much of what merged work says.
 */
async function detectHistory(root: string, say: ((s?: string) => void) | null) {
  const gitHistory = await detectGitHistory(root);
  const onGithub = gitHistory !== null && (await githubRemote(root));
  const github = onGithub && (await ghReady(root));
  if (github)
    say?.('GitHub CLI signed in: `agentos index` will fetch closed issues and merged pull requests with gh -> history');
  else if (onGithub)
    say?.(
      'GitHub CLI not signed in (`gh auth status`): pull request descriptions and closed issues are not read; git history only',
    );
  return { gitHistory, github };
}

function printFound(
  out: (s?: string) => void,
  root: string,
  found: FoundFolder[],
  gitHistory: { ref: string; commits: number } | null,
): void {
  if (gitHistory)
    out(
      `Git history in ${root}: ${gitHistory.commits} commit${gitHistory.commits === 1 ? '' : 's'} on ${gitHistory.ref.replace(/^refs\/(heads|remotes)\//, '')} -> history (pull requests and commits as completed work)`,
    );
  if (found.length === 0) {
    out(`No folders agentos knows were found in ${root}.`);
    return;
  }
  out(`Found in ${root}:`);
  const width = Math.max(...found.flatMap((f) => f.globs.map((g) => g.glob.length)));
  for (const f of found) {
    out(`  ${f.folder}  ${f.why} -> ${f.types.join(' + ')}`);
    for (const g of f.globs) out(`    ${g.glob.padEnd(width)}  ${g.files} file${g.files === 1 ? '' : 's'}`);
    for (const x of f.exclude) out(`    left out: ${x.path} (${x.why})`);
  }
}
