/** The command line as one string, quoted where a shell would need it (for the record and the check). */
export function commandLine(argv: string[]): string {
  return argv
    .map((a) => (a === '' ? "''" : /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}
