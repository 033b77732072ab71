const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID: 48-bit millisecond time + 80 random bits, Crockford base32; sorts by time. */
export function ulid(time: number = Date.now()): string {
  let t = time;
  let head = '';
  for (let i = 0; i < 10; i++) {
    head = CROCKFORD[t % 32] + head;
    t = Math.floor(t / 32);
  }
  // Math.random, not node:crypto: loading crypto costs more than the whole check. These ids
  // need uniqueness (80 bits per millisecond), not secrecy.
  let tail = '';
  for (let i = 0; i < 16; i++) tail += CROCKFORD[Math.floor(Math.random() * 32)];
  return head + tail;
}

/** One session id per process unless `--session` or AGENTOS_SESSION names one. */
let processSession: string | null = null;
export function processSessionId(): string {
  processSession ??= `${new Date().toISOString().slice(0, 10)}_${Math.floor(Math.random() * 2 ** 32)
    .toString(16)
    .padStart(8, '0')}`;
  return processSession;
}
