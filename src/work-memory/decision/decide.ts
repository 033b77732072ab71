import type { HistoryMatch } from '../check/history.js';

export type DuplicateAction = 'abort' | 'link' | 'ignore';

export interface Decision {
  action: 'proceed' | DuplicateAction;
  /** Who decided: a person at the prompt, the --on-duplicate policy, or nobody (no alert). */
  by: 'user' | 'policy' | 'none';
  /** The past work the brief was linked to (action "link"). */
  linked: HistoryMatch | null;
}

/** The part of the prompt module decide() needs; tests pass scripted answers. */
export interface DuplicateAsker {
  askAction(matches: HistoryMatch[]): Promise<DuplicateAction>;
  askWhich(matches: HistoryMatch[]): Promise<HistoryMatch>;
}

/**
 * Decide what happens to a duplicate alert: ask when a person can answer,
 * else apply the policy (default link: never auto-abort, keep the knowledge).
 */
export async function decideDuplicate(
  alerts: HistoryMatch[],
  opts: { canPrompt: boolean; policy: DuplicateAction; asker: DuplicateAsker | null },
): Promise<Decision> {
  if (alerts.length === 0) return { action: 'proceed', by: 'none', linked: null };
  if (opts.canPrompt && opts.asker) {
    const action = await opts.asker.askAction(alerts);
    const linked = action === 'link' ? (alerts.length > 1 ? await opts.asker.askWhich(alerts) : alerts[0]) : null;
    return { action, by: 'user', linked };
  }
  return { action: opts.policy, by: 'policy', linked: opts.policy === 'link' ? alerts[0] : null };
}
