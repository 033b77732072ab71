/**
 * Text from the past (titles, excerpts, reasons, paths) is untrusted: a past
 * document may carry terminal escape sequences (clear screen, retitle the
 * window, hyperlinks, cursor moves) or bidirectional overrides that make the
 * shown text differ from the stored one. Everything such text passes through
 * on its way to a terminal goes through `terminalSafe`.
 */

// CSI (ESC [ … final), OSC (ESC ] … BEL or ESC \), DCS/SOS/PM/APC strings, two-byte ESC
// sequences, and the 8-bit CSI. Each alternative stops at the next ESC/BEL: linear time.
const ESCAPES =
  /\x1b\[[0-?]*[ -/]*[@-~]?|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[ -~]?|\x9b[0-?]*[ -/]*[@-~]?/g;
// C0 and C1 controls and DEL (tab and newline are handled by the caller's choice).
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
// Bidirectional embeddings/overrides/isolates ("Trojan Source").
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

/** One line of display text: escapes and controls removed, tabs and line breaks as spaces. */
export function terminalSafe(s: string): string {
  return s
    .replace(ESCAPES, '')
    .replace(/[\t\n\r\u2028\u2029]/g, ' ')
    .replace(CONTROLS, '')
    .replace(BIDI, '');
}

/** Multi-line text (a rendered block): escapes and controls removed, line breaks kept. */
export function terminalSafeBlock(s: string): string {
  return s
    .replace(ESCAPES, '')
    .replace(/\t/g, ' ')
    .replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '')
    .replace(BIDI, '');
}

type Displayed = {
  title: string;
  filePath: string;
  summary?: string;
  statusReason?: string | null;
  section?: string;
  excerpt?: string;
  snippet?: string;
};

/** A copy of a match or standard whose shown strings are terminal-safe. */
export function safeForTerminal<T extends Displayed>(m: T): T {
  const out: T = { ...m, title: terminalSafe(m.title), filePath: terminalSafe(m.filePath) };
  if (typeof m.summary === 'string') out.summary = terminalSafe(m.summary);
  if (typeof m.statusReason === 'string') out.statusReason = terminalSafe(m.statusReason);
  if (typeof m.section === 'string') out.section = terminalSafe(m.section);
  if (typeof m.excerpt === 'string') out.excerpt = terminalSafe(m.excerpt);
  if (typeof m.snippet === 'string') out.snippet = terminalSafe(m.snippet);
  return out;
}

/** Another person's text as one line: no escapes or controls, whitespace collapsed, at most `max` characters (cut with …). */
export function oneLine(s: string, max: number): string {
  const one = terminalSafe(s).replace(/\s+/g, ' ').trim();
  return one.length > max ? one.slice(0, max - 1).trimEnd() + '…' : one;
}
