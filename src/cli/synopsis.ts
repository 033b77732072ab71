/**
 * The README's synopsis, made from the command definitions (cli.ts): one row per command a
 * person runs, its arguments and what it does. A test compares it with the README, so the
 * front page cannot drift from the commands (`node scripts/readme-synopsis.mjs --write`).
 */
import type { Command } from 'commander';

/** Commands run by agents' settings, not by people: listed in docs/hooks.md. */
const HIDDEN = new Set(['help', 'hooks run']);

export const SYNOPSIS_START = '<!-- synopsis: generated from the command definitions (scripts/readme-synopsis.mjs) -->';
export const SYNOPSIS_END = '<!-- /synopsis -->';

/** A command's arguments as its help writes them: `<required>`, `[optional]`, `...` when variadic. */
function argumentsOf(c: Command): string[] {
  return c.registeredArguments.map((a) =>
    a.required ? `<${a.name()}${a.variadic ? '...' : ''}>` : `[${a.name()}${a.variadic ? '...' : ''}]`,
  );
}

export function synopsis(program: Command): string {
  const rows: string[] = [];
  const walk = (c: Command, names: string[]) => {
    const name = names.join(' ');
    if (c.commands.length === 0 && !HIDDEN.has(name)) {
      const args = argumentsOf(c).join(' ');
      const what = c.description().replace(/\|/g, '\\|').replace(/\s+/g, ' ');
      rows.push(`| \`agentos ${name}${args ? ` ${args}` : ''}\` | ${what} |`);
    }
    for (const sub of c.commands) walk(sub, [...names, sub.name()]);
  };
  for (const c of program.commands) walk(c, [c.name()]);
  return [SYNOPSIS_START, '', '| command | what it does |', '|---|---|', ...rows, '', SYNOPSIS_END].join('\n');
}

export const USAGE_START = '<!-- usage: generated from the command definitions (scripts/readme-synopsis.mjs) -->';
export const USAGE_END = '<!-- /usage -->';
const WIDTH = 80;

/**
 * docs/commands.md's usage lines, made from the same definitions: every command with its arguments
 * and every flag, wrapped at 80 columns (a test compares them with the file).
 */
export function usageLines(program: Command): string {
  const lines: string[] = [];
  const walk = (c: Command, names: string[]) => {
    const name = names.join(' ');
    if (c.commands.length === 0 && name !== 'help') {
      const args = argumentsOf(c);
      const head = `agentos ${name}${args.length ? ` ${args.join(' ')}` : ''}`;
      const flags = c.options.filter((o) => !o.hidden).map((o) => `[${o.flags.replace(/^-\w, /, '')}]`);
      let line = head;
      const indent = ' '.repeat(Math.min(head.length + 1, 24));
      for (const f of flags) {
        if (line.length + 1 + f.length > WIDTH) {
          lines.push(line);
          line = indent + f;
        } else line += ` ${f}`;
      }
      lines.push(line);
    }
    for (const sub of c.commands) walk(sub, [...names, sub.name()]);
  };
  for (const c of program.commands) walk(c, [c.name()]);
  return [USAGE_START, '', '```', ...lines, '```', '', USAGE_END].join('\n');
}
