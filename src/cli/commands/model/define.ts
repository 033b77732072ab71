import { type Command } from 'commander';
import { type CommandDeps, examples, exitCodesHelp } from '../../define.js';

/** `agentos model`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(program: Command, { context, setCode }: CommandDeps): void {
  // ---- i8-cli: the model ----
  const model = program.command('model').description('the embedding model: get it once per user');
  model
    .command('fetch')
    .description('download the pinned model files into the user cache (SHA-256 checked), or copy them from a folder')
    .option(
      '--from <dir>',
      'copy from this folder (holding Xenova/all-MiniLM-L6-v2/, or the model folder itself) instead of downloading',
    )
    .option(
      '--to <dir>',
      'put the model here (default: AGENTOS_MODEL_DIR or model.dir when set, else ~/.cache/agentos/models)',
    )
    .option('--json', 'print what was fetched as JSON on stdout')
    .addHelpText(
      'after',
      examples(
        'agentos model fetch',
        'agentos model fetch --from /mnt/usb/models',
        'AGENTOS_HUB_URL=https://mirror.example agentos model fetch',
      ),
    )
    .addHelpText('after', exitCodesHelp([0, 1, 2, 5]))
    .action(async (opts) => {
      const { runModelFetch } = await import('./index.js');
      setCode(await runModelFetch(context(), opts));
    });
}
