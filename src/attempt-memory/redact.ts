/**
 * Redaction: every text field of an attempt passes through `redact` before it
 * is written, so a secret typed on a command line (or printed in an error)
 * never reaches `.agentos/memory/`. Patterns are the published shapes of the
 * common providers plus generic `key=value` / `--flag value` / URL-credential
 * forms. Each regex is linear: no nested quantifiers, bounded alternations.
 */
import os from 'node:os';

export const REDACTED = '[redacted]';

/** Key names whose value is a secret: `PASSWORD=…`, `api_key: …`, `?access_token=…`. */
const SECRET_KEY = String.raw`[A-Za-z0-9_.-]{0,40}(?:passw(?:or)?d|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|credentials?|auth|accountkey|sig|signature)`;

interface Rule {
  name: string;
  re: RegExp;
  /** Replacement (may keep a captured prefix); default REDACTED. */
  to?: string;
}

const RULES: Rule[] = [
  // Whole blocks first, so their inner lines are not half-matched by later rules.
  {
    name: 'private key',
    re: /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----|$)/g,
  },
  { name: 'jwt', re: /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g },
  { name: 'authorization header', re: /\b(Bearer|Basic|Token|Bot)\s+[A-Za-z0-9._~+/=-]{8,}/gi, to: `$1 ${REDACTED}` },
  // The user may be empty (`redis://:pw@cache`), and the password runs to the last `@` before a space: one typed
  // unencoded (`p@ss`, a base64 `ab/cd+e==`) must not leave its tail behind (a `?x=a@b` after a port is redacted too: the safe side).
  {
    name: 'url credentials',
    re: /\b([a-z][a-z0-9+.-]{1,20}:\/\/)[^\s:/?#@]{0,200}:\S{1,200}@/gi,
    to: `$1${REDACTED}@`,
  },
  { name: 'github token', re: /\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})/g },
  { name: 'gitlab token', re: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { name: 'aws access key id', re: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[A-Z0-9]{16}\b/g },
  { name: 'openai / anthropic key', re: /\bsk-(?:proj-|ant-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { name: 'stripe key', re: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { name: 'slack token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { name: 'slack webhook', re: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]{10,}/g },
  { name: 'google api key', re: /\bAIza[0-9A-Za-z_-]{35}/g },
  { name: 'npm token', re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { name: 'pypi token', re: /\bpypi-[A-Za-z0-9_-]{40,}/g },
  { name: 'hugging face token', re: /\bhf_[A-Za-z0-9]{30,}/g },
  { name: 'sendgrid key', re: /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/g },
  { name: 'digitalocean token', re: /\bdo[por]_v1_[a-f0-9]{64}/g },
  { name: 'shopify token', re: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}/g },
  { name: 'telegram bot token', re: /(?<!\d)\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/g },
  // Generic forms. `--password secret`, `--token=secret`.
  {
    name: 'secret flag',
    re: /(--?(?:password|passwd|pass|pwd|secret|token|api-key|apikey|access-key|auth-token|client-secret|private-key)(?:=|\s+))(?:"[^"\n]*"|'[^'\n]*'|[^\s"']+)/gi,
    to: `$1${REDACTED}`,
  },
  // `KEY=value`, `key: value`, `"key": "value"`, `?token=value` (the key keeps, the value goes).
  {
    name: 'secret assignment',
    re: new RegExp(String.raw`(\b${SECRET_KEY}["']?\s{0,3}[=:]\s{0,3})(?:"[^"\n]*"|'[^'\n]*'|[^\s"'&,;}]+)`, 'gi'),
    to: `$1${REDACTED}`,
  },
  // mysql-style `-psecret` (a value glued to -p); ports like -p8080:80 stay.
  { name: 'glued -p value', re: /(^|\s)-p(?![\d:.]+(?:\s|$))[^\s-][^\s]*/g, to: `$1-p${REDACTED}` },
];

/** Home folders: the user's own becomes `~`, anybody else's `/home/*`. */
function redactHome(text: string, home: string): string {
  let out = text;
  if (home && home !== '/' && home.length > 1) {
    const escaped = home.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out.replace(new RegExp(`${escaped}(?=[/\\\\\\s"':;,)]|$)`, 'g'), '~');
  }
  return out.replace(/(^|[\s"'=:(])\/(home|Users)\/[^/\s"']+/g, '$1/$2/*');
}

/** Redact secrets and home paths from one text field. */
export function redact(text: string, home: string = os.homedir()): string {
  let out = text;
  for (const rule of RULES) out = out.replace(rule.re, rule.to ?? REDACTED);
  return redactHome(out, home);
}

/** The rule names, for documentation and tests. */
