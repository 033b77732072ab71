/** `--format markdown|github` (issue 32): past text is input — it cannot lay out, link, ping, reference or break out of agentos' hidden data. */
import {
  alertsOf,
  commentData,
  renderCommentMarkdown,
  renderGithub,
  type CiReport,
} from '../../src/work-memory/output/ci.js';

const hostile =
  '<a href="https://evil.example/patch">Official fix</a> <img src=x> see https://evil.example and www.evil.example, octo/other#5 and #999 and GH-12 <details open> @team --> [x](javascript:1) | cell';

function report(title: string, extra: Partial<CiReport> = {}): CiReport {
  return {
    status: 'duplicate_alert',
    method: 'embedding:test',
    error: null,
    brief: { path: null, sha256: 'a'.repeat(64), key: 'b'.repeat(64) },
    standards: { items: [] },
    matches: [{ id: '27', title, path: 'docs/27.md', score: 0.97, alert: true, components: { why: [hostile] } }],
    ...extra,
  };
}

test('a hostile past title and why: no HTML, no live link, mention or reference, no table cell, the data comment whole', () => {
  const md = renderCommentMarkdown(report(hostile), { duplicate: 0.85 });
  const body = md.split('\n').slice(2).join('\n');
  expect(body).not.toMatch(/<(a|img|details)\b/);
  expect(body).not.toMatch(/https:\/\/evil|www\.evil|other#5|#999|@team|(?<!\\)\]\(javascript/);
  // GitHub links GH-12 to issue #12 as it links #12.
  expect(body).not.toMatch(/\bGH-\d/i);
  expect(body).not.toMatch(/(?<!\\)\|/);
  expect(body).not.toContain('-->');
  // The reference agentos shows on purpose stays live.
  expect(body).toContain('**#27: ');
  expect(commentData(md)).toEqual({ brief: 'b'.repeat(64), alerts: [{ id: '27', path: 'docs/27.md', score: 0.97 }] });
});

test('the data line survives any path: no "--" reaches the comment, and the path comes back as it was', () => {
  const r = report('t');
  r.matches[0].path = 'a--> b<!--c.md';
  const md = renderCommentMarkdown(r, { duplicate: 0.85 });
  const line = md.split('\n')[1];
  expect(line.startsWith('<!-- agentos:data ') && line.endsWith(' -->')).toBe(true);
  expect(line.slice('<!-- agentos:data '.length, -' -->'.length)).not.toContain('--');
  expect(commentData(md)?.alerts[0].path).toBe('a--> b<!--c.md');
});

test('annotations: one line each, escaped as the runner reads workflow commands; a newline in past text cannot start a command', () => {
  const { annotations } = renderGithub(report('line one\n::error::owned'), {
    duplicate: 0.85,
    briefFile: 'docs/a,b:c.md',
  });
  expect(annotations).toHaveLength(1);
  // On the brief's first line: GitHub shows an annotation without one only in the checks view.
  expect(annotations[0]).toMatch(
    /^::warning file=docs\/a%2Cb%3Ac\.md,line=1,title=agentos%3A possible duplicate::#27: line one ::error::owned/,
  );
});

test('the alerts are the ones issue start raised: a match over the line that it did not raise (dismissed, a regression) is related', () => {
  const r = report('t');
  r.matches.push({ id: '28', title: 'u', path: 'docs/28.md', score: 0.95, alert: false });
  expect(alertsOf(r, 0.85).map((m) => m.id)).toEqual(['27']);
  expect(renderCommentMarkdown(r, { duplicate: 0.85 })).toMatch(/\*\*Related work\*\*\n\n- \*\*#28: u/);
  // A result from before the flag: every match over the line on an alert.
  const old = report('t');
  delete old.matches[0].alert;
  expect(alertsOf(old, 0.85)).toHaveLength(1);
});

test("a file of another repository (the team store) gets no link into this repository's tree", () => {
  const r = report('t');
  r.matches[0].repository = 'acme/other';
  const md = renderCommentMarkdown(r, { duplicate: 0.85, fileLink: (p) => `https://github.com/o/r/blob/s/${p}` });
  expect(md).not.toContain('https://github.com/o/r/blob/s/docs/27.md');
});

test('the comment never lists a superseded standard as the rule: it says so, names the one that replaced it, and what the issue named', () => {
  const r = report('t', {
    standards: {
      items: [
        {
          title: 'Queue jobs in PostgreSQL',
          filePath: 'docs/adr/0002-queue-jobs-in-postgres.md',
          section: 'Decision',
          score: null,
          status: 'superseded',
          source: 'cited',
        },
        {
          title: 'Queue jobs in Redis Streams',
          filePath: 'docs/adr/0003-redis-streams.md',
          section: 'Decision',
          score: null,
          status: 'accepted',
          source: 'successor',
          supersedes: 'docs/adr/0002-queue-jobs-in-postgres.md',
        },
        {
          title: 'Logging',
          filePath: 'docs/adr/0001-logging.md',
          section: 'Decision',
          score: 0.9,
          status: 'accepted',
          source: 'retrieved',
        },
      ],
    },
  });
  const lines = renderCommentMarkdown(r, { duplicate: 0.85 }).split('\n');
  const at = lines.indexOf('**Standards that govern this work**');
  expect(lines.slice(at + 2, at + 5)).toEqual([
    '- **SUPERSEDED**: Queue jobs in PostgreSQL (`docs/adr/0002-queue-jobs-in-postgres.md`) — Decision (named in the issue)',
    '- Queue jobs in Redis Streams (`docs/adr/0003-redis-streams.md`) — Decision (supersedes `docs/adr/0002-queue-jobs-in-postgres.md`)',
    '- Logging (`docs/adr/0001-logging.md`) — Decision',
  ]);
  // A status the store or an old result carries that is not one of ours is not shown.
  r.standards.items[0].status = '<b>x</b>';
  expect(renderCommentMarkdown(r, { duplicate: 0.85 })).not.toContain('<b>');
});

test('markdown in a past title is text: a trailing backslash keeps the link whole, _x_ and *x* are no emphasis, a path is a code span it cannot close', () => {
  const r = report('C:\\dir\\ _private_ *bold* ~gone~ `tick`');
  r.matches[0].path = 'docs/a`b <img src=x>.md';
  const withLink = renderCommentMarkdown(r, { duplicate: 0.85, fileLink: () => 'https://github.com/o/r/blob/s/x.md' });
  expect(withLink).toContain(
    '**[#27: C:\\\\dir\\\\ \\_private\\_ \\*bold\\* \\~gone\\~ \\`tick\\`](https://github.com/o/r/blob/s/x.md)**',
  );
  const noLink = renderCommentMarkdown(r, { duplicate: 0.85 });
  // In a code span nothing is markup: the path as it is, its backtick made a quote.
  expect(noLink).toContain("(`docs/a'b <img src=x>.md`)");
});

test('an alert on rejected past work says it was rejected, in the comment and the annotation', () => {
  const r = report('Use MongoDB for sessions');
  Object.assign(r.matches[0], { status: 'rejected', statusReason: 'no transactions across collections' });
  const md = renderCommentMarkdown(r, { duplicate: 0.85 });
  expect(md).toContain('### agentos: this was proposed before and rejected');
  expect(md).not.toContain('work already done');
  expect(md).toMatch(/rejected: no transactions across collections/);
  expect(renderGithub(r, { duplicate: 0.85, briefFile: 'b.md' }).annotations[0]).toMatch(
    /title=agentos%3A proposed before and rejected::/,
  );
});
