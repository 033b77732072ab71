/** `--format markdown|github` (issue 32): past text is input — it cannot lay out, link, ping, reference or break out of agentos' hidden data. */
import { alertsOf, commentData, renderCommentMarkdown, renderGithub, type CiReport } from '../../src/work-memory/output/ci.js';

const hostile =
  '<a href="https://evil.example/patch">Official fix</a> <img src=x> see https://evil.example and www.evil.example, octo/other#5 and #999 <details open> @team --> [x](javascript:1) | cell';

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
  const { annotations } = renderGithub(report('line one\n::error::owned'), { duplicate: 0.85, briefFile: 'docs/a,b:c.md' });
  expect(annotations.split('\n').filter(Boolean)).toHaveLength(1);
  expect(annotations).toMatch(/^::warning file=docs\/a%2Cb%3Ac\.md,title=agentos%3A possible duplicate::#27: line one ::error::owned/);
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
