/** A hot command's flags as data (its commands/…/spec.ts; hot-specs.ts lists them): what commander and the fast route are both built from. */
export interface FlagSpec<K extends string = string> {
  /** `--tags` */
  flag: string;
  /** The placeholder in help (`<list>`); none for a boolean. */
  value?: string;
  /** The options property it sets: a key of the command's options type, so a flag with no such option does not compile. */
  key: K;
  kind: 'string' | 'tags' | 'boolean' | 'choice';
  choices?: readonly string[];
  default?: string | string[];
  help: string;
}

/** `K`: the keys of the options type the parser fills (the run function's own: `OptionKeys<RunOptions>`), whichever route parsed the line. */
export interface HotCommand<K extends string = string> {
  /** The words that name it, after the global options. */
  words: string[];
  description: string;
  flags: FlagSpec<K>[];
}

export type OptionKeys<O> = keyof O & string;
