/**
 * Whether YYYY-MM-DD names a day on the calendar. `new Date('2026-02-30')` is 2 March in V8,
 * so a date that parses is not yet a date that exists: it must come back as written.
 */
export function isCalendarDate(ymd: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(ymd);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d); // setUTCFullYear, not Date.UTC: years 0–99 stay themselves
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}
