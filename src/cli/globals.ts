/** The options every command accepts (`-C`, `-q`, `-v`), as commander parses them. */
export interface GlobalOptions {
  cwd?: string;
  quiet?: boolean;
  /** Debug lines and timings on stderr. */
  verbose?: boolean;
}
