/**
 * Byte (code-unit) order for sorting dates, times, paths and tags, the same on every
 * machine and locale. Not `localeCompare`: its first call sets up an ICU collator
 * (~15 ms, a tenth of the start budget of a hook), and its order depends on the
 * machine's locale.
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
