import { headingText } from '../../shared/text/linear.js';

/** Titles, headings and ids come from untrusted text: a 1 MB heading line is cut here. */
export const MAX_TITLE_CHARS = 200;

/** Outside fenced code blocks, the first `# ` heading. */
export function firstH1(body: string): string | null {
  let inFence = false;
  for (const line of body.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    if (!inFence && /^#\s+\S/.test(line))
      return headingText(line.slice(1, 1 + MAX_TITLE_CHARS * 2)).slice(0, MAX_TITLE_CHARS);
  }
  return null;
}
