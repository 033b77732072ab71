// Runs an entry script (normally bin/agentos.js) as if node had been started on
// it, and records when this process booted, when the entry's static imports were
// done, when stdout was last written and when the process exited, plus its own
// maxRSS. The parent (bench/lib/common.mjs runProcess) turns these into phases.
//   BENCH_TIMING_OUT=<file> node bench/lib/timed-entry.mjs <entry.js> [args...]
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const clock = () => performance.timeOrigin + performance.now();
const firstLine = clock();
const out = process.env.BENCH_TIMING_OUT;
delete process.env.BENCH_TIMING_OUT;
const entry = path.resolve(process.argv[2]);
process.argv = [process.argv[0], entry, ...process.argv.slice(3)];

const marks = {
  timeOrigin: performance.timeOrigin,
  firstLine,
  importEnd: 0,
  firstStdout: 0,
  lastStdout: 0,
  exit: 0,
  maxRssKb: 0,
};
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  const t = clock();
  if (!marks.firstStdout) marks.firstStdout = t;
  marks.lastStdout = t;
  return write(chunk, ...rest);
};
process.on('exit', () => {
  marks.exit = clock();
  marks.maxRssKb = process.resourceUsage().maxRSS;
  if (out) writeFileSync(out, JSON.stringify(marks));
});
await import(pathToFileURL(entry).href);
marks.importEnd = clock();
