/**
 * The MCP server's tools, as data: name, what the model reads about it, the
 * input schema (zod; the SDK turns it into the JSON schema clients see) and the
 * function that answers. Each answer is compact text for the model plus the
 * same facts as structured content (docs/mcp.md documents both).
 */
import { z } from 'zod';
import { OUTCOMES, type Outcome } from '../../attempt-memory/types.js';
import type { ProjectSession } from './session.js';
import { checkBrief, failedCheck, renderCheck } from './check-brief.js';
import { searchHistory, standardsFor, renderSearch } from './search-history.js';
import { attemptCheck, attemptRecord, renderRepeat } from './attempt-tools.js';
import { recallText, workedOnSummary, renderWorkedOn } from './knowledge-tools.js';

/** A brief or query above this is refused with a clear error instead of being read (the check reads at most its first part anyway). */
export const MAX_TEXT = 1_000_000;
/** Commands and errors: the attempt memory keeps a bounded part of each (src/attempt-memory/open.ts LIMITS). */
export const MAX_COMMAND = 100_000;
export const MAX_ERROR = 1_000_000;

export interface ToolAnswer {
  text: string;
  structured: Record<string, unknown>;
}

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  input: z.ZodRawShape;
  /** Hints for the client (MCP tool annotations): reading tools may run without asking. */
  readOnly: boolean;
  run(session: ProjectSession, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolAnswer>;
  /** The answer when the call failed or timed out, for tools that fail open (the brief check); else the call is an error. */
  failOpen?(error: string, session: ProjectSession): ToolAnswer;
}

// Blank is empty: a brief of spaces would otherwise be checked and called clear.
const text = (what: string, max = MAX_TEXT) =>
  z
    .string()
    .min(1, `${what} is empty`)
    .max(max, `${what} is longer than ${max.toLocaleString('en-US')} characters`)
    .refine((s) => s === '' || s.trim() !== '', `${what} is empty`); // '' is min(1)'s to say, once

export const TOOLS: ToolSpec[] = [
  {
    name: 'check_brief',
    title: 'Check a new brief against past work',
    description:
      "Before starting new work, check its brief (markdown: title and description) against the project's completed work and standards. " +
      'Returns status duplicate_alert (score >= the duplicate line: the work was probably done before; read the match before redoing it), ' +
      'related_context (related past work worth reading), clear, no_history or error (the check failed; proceed without it). ' +
      'Each match says why it matched and what was tried and failed during that work; the governing standards (ADRs) are listed. Never prompts.',
    input: {
      brief: text('brief').describe(
        'The brief: markdown text of the new issue or task (an H1 title, then the description).',
      ),
      scope: z
        .enum(['repo', 'org'])
        .optional()
        .describe(
          "org: also every other repository in the team store (when one is configured); default the project's store.scope, repo.",
        ),
    },
    readOnly: true,
    run: async (s, a) => {
      const r = await checkBrief(s, a.brief as string, a.scope as 'repo' | 'org' | undefined);
      return { text: renderCheck(r), structured: r as unknown as Record<string, unknown> };
    },
    failOpen: (error, s) => {
      const r = failedCheck(error, s.config.thresholds);
      return { text: renderCheck(r), structured: r as unknown as Record<string, unknown> };
    },
  },
  {
    name: 'search_history',
    title: 'Search past work and standards',
    description:
      '"Have we worked on X?": the best-matching past issues, designs and standards for a query, each with its score (calibrated: >= 0.85 likely the same work), status and the passage that matched.',
    input: {
      query: text('query').describe('What to look for, in words (e.g. "retry budget for the HTTP client").'),
      type: z
        .enum(['history', 'standard'])
        .optional()
        .describe('Only past work (history) or only standards; default both.'),
      limit: z.number().int().min(1).max(50).optional().describe('At most this many results (default 5).'),
    },
    readOnly: true,
    run: async (s, a) => {
      const r = await searchHistory(s, a.query as string, {
        type: a.type as 'history' | 'standard' | undefined,
        limit: (a.limit as number | undefined) ?? 5,
      });
      return {
        text: renderSearch(r, 'No past work or standard matched.'),
        structured: r as unknown as Record<string, unknown>,
      };
    },
  },
  {
    name: 'standards_for',
    title: 'Standards that govern a piece of work',
    description:
      'The ADRs, standards and finished designs that govern the described work (the standards check): read them before deciding how to build it.',
    input: {
      text: text('text').describe('The work: a brief, a plan, or a question about how something should be done here.'),
    },
    readOnly: true,
    run: async (s, a) => {
      const r = await standardsFor(s, a.text as string);
      return {
        text: renderSearch(r, 'No standard governs this (none scored above the standards line).'),
        structured: r as unknown as Record<string, unknown>,
      };
    },
  },
  {
    name: 'attempt_check',
    title: 'Has this command failed here before?',
    description:
      'Before running a shell command, ask whether it resembles a recent failure in this project: returns the past failures (date, cause) and what worked instead. Informs; never blocks.',
    input: {
      command: text('command', MAX_COMMAND).describe('The command line about to run.'),
      tool: z
        .string()
        .max(100)
        .optional()
        .describe('The tool that runs it (default "shell"; an agent tool name such as "Bash" also works).'),
      context: z
        .string()
        .max(10_000)
        .optional()
        .describe('What the command is for (e.g. "adding redis caching"): failures in the same context weigh more.'),
    },
    readOnly: true,
    run: async (s, a) => {
      const r = await attemptCheck(s, {
        command: a.command as string,
        tool: (a.tool as string | undefined) ?? 'shell',
        context: (a.context as string | undefined) ?? null,
      });
      return { text: renderRepeat(r), structured: r as unknown as Record<string, unknown> };
    },
  },
  {
    name: 'attempt_record',
    title: 'Record what was tried',
    description:
      'Record a command or approach that was tried and whether it worked, so that the next agent is warned before repeating a failure and told what worked instead. Secrets and the home folder are redacted before anything is stored.',
    input: {
      command: text('command', MAX_COMMAND).describe(
        'The command line (or a one-line description of the approach) that was tried.',
      ),
      outcome: z.enum(OUTCOMES).describe('"unknown" when it ran but nobody saw how it went: kept, never warned about.'),
      error: z
        .string()
        .max(MAX_ERROR)
        .optional()
        .describe('Its error output (the cause line is read out of it; long output is cut to both ends).'),
      exitCode: z.number().int().optional(),
      tool: z.string().max(100).optional().describe('Default "shell".'),
      context: z.string().max(10_000).optional().describe('What it was for.'),
      tags: z.array(z.string().max(100)).max(32).optional(),
      work: z
        .string()
        .max(200)
        .optional()
        .describe('The issue or piece of work it was tried for (e.g. "27"): later checks of related work show it.'),
    },
    readOnly: false,
    run: async (s, a) => {
      const r = await attemptRecord(s, {
        command: a.command as string,
        outcome: a.outcome as Outcome,
        error: a.error as string | undefined,
        exitCode: a.exitCode as number | undefined,
        tool: (a.tool as string | undefined) ?? 'shell',
        context: a.context as string | undefined,
        tags: a.tags as string[] | undefined,
        work: a.work as string | undefined,
      });
      const t = r.recorded
        ? `Recorded ${r.recorded.outcome} ${r.recorded.id}${r.recorded.cause ? ` (cause: ${r.recorded.cause})` : ''}.${r.shared ? ` Warning: ${r.shared}.` : ''}`
        : `Not recorded: ${r.reason}.`;
      return { text: t, structured: r as unknown as Record<string, unknown> };
    },
  },
  {
    name: 'recall',
    title: 'What this project learned',
    description:
      "The context to start a coding session with: the project's stack, commands that failed here and what worked instead, recent work and the standards that apply widely.",
    input: {},
    readOnly: true,
    run: async (s) => {
      const r = await recallText(s);
      return { text: r.markdown, structured: r as unknown as Record<string, unknown> };
    },
  },
  {
    name: 'worked_on',
    title: 'What has been worked on',
    description:
      'Completed work grouped by topic and by month, rejected and superseded decisions marked; optionally since a date or on a topic.',
    input: {
      since: z.string().max(40).optional().describe('A date (YYYY-MM-DD) or an age like 30d, 8w, 6m, 1y.'),
      topic: z.string().max(200).optional().describe('Only topics whose label contains this.'),
    },
    readOnly: true,
    run: async (s, a) => {
      const r = await workedOnSummary(s, {
        since: a.since as string | undefined,
        topic: a.topic as string | undefined,
      });
      return { text: renderWorkedOn(r), structured: r as unknown as Record<string, unknown> };
    },
  },
];
