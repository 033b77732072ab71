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

export function synopsis(program: Command): string {
  const rows: string[] = [];
  const walk = (c: Command, names: string[]) => {
    const name = names.join(' ');
    if (c.commands.length === 0 && !HIDDEN.has(name)) {
      const args = c.registeredArguments.map((a) => (a.required ? `<${a.name()}${a.variadic ? '...' : ''}>` : `[${a.name()}${a.variadic ? '...' : ''}]`)).join(' ');
      const what = c.description().replace(/\|/g, '\\|').replace(/\s+/g, ' ');
      rows.push(`| \`agentos ${name}${args ? ` ${args}` : ''}\` | ${what} |`);
    }
    for (const sub of c.commands) walk(sub, [...names, sub.name()]);
  };
  for (const c of program.commands) walk(c, [c.name()]);
  return [SYNOPSIS_START, '', '| command | what it does |', '|---|---|', ...rows, '', SYNOPSIS_END].join('\n');
}
