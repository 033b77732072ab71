/**
 * `worked-on --html FILE`: one self-contained page (inline CSS and script, no
 * network, no server) with a timeline of completed work by topic. The list is
 * plain HTML; the timeline lanes are drawn by the inline script from the
 * embedded JSON, so the page also reads without scripts.
 */
import type { WorkedOn } from './worked-on.js';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** JSON safe inside <script>: no "</script>", no HTML comment openers, no line separators. */
export function scriptJson(v: unknown): string {
  return JSON.stringify(v)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export function renderWorkedOnHtml(w: WorkedOn, project: string, generatedAt = new Date()): string {
  const e = escapeHtml;
  const topics = w.topics
    .map(
      (t, ti) => `<section class="topic" data-topic="${ti}">
<h2><span class="label">${e(t.label)}</span> <span class="meta">${t.count} item${t.count === 1 ? '' : 's'}${t.from ? ` · ${e(t.from === t.to ? t.from : `${t.from} – ${t.to}`)}` : ''}</span></h2>
<div class="lane" data-lane="${ti}"></div>
<ul>${t.items
        .map(
          (i) =>
            `<li class="item${i.marked ? ' marked' : ''}" data-item><time>${e(i.date ?? '')}</time> ${i.id ? `<b>#${e(i.id)}</b> ` : ''}${e(i.title)}${i.status ? ` <span class="status">${e(i.status)}</span>` : ''}${i.marked && i.statusReason ? ` <span class="reason">${e(i.statusReason)}</span>` : ''}<span class="path">${e(i.path)}</span></li>`,
        )
        .join('')}</ul>
</section>`,
    )
    .join('\n');
  const a = w.attempts;
  const stats = a
    ? `<p class="stats" data-stats>Attempts: ${a.sessions} sessions · ${a.successes} successes · ${a.failures} failures recorded · ${a.repeatsPrevented} repeats prevented</p>`
    : '';
  const data = {
    topics: w.topics.map((t) => ({
      label: t.label,
      items: t.items.map((i) => ({ date: i.date, title: i.title, id: i.id, marked: i.marked })),
    })),
  };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>What we worked on — ${e(project)}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#1d232a;background:#fff}
h1{font-size:1.5rem;margin:0 0 .2rem}h2{font-size:1.05rem;margin:1.4rem 0 .3rem}.meta,.path,time{color:#667;font-weight:normal;font-size:.85em}
.axis{display:flex;justify-content:space-between;color:#667;font-size:.8em;border-bottom:1px solid #ccd;margin-top:1rem}
.lane{position:relative;height:22px;background:#f3f5f8;border-radius:4px;margin:.3rem 0}
.dot{position:absolute;top:5px;width:12px;height:12px;margin-left:-6px;border-radius:50%;background:#2f6fdb}
.dot.marked{background:#c62828}ul{list-style:none;padding:0;margin:.2rem 0}li{padding:.15rem 0}
.path{margin-left:.6rem}.status{font-size:.8em;background:#e8f0e8;border-radius:3px;padding:0 .3rem}
.marked .status{background:#fde2e2;color:#a11}.reason{color:#a11;font-size:.85em}
@media (prefers-color-scheme:dark){body{background:#15191e;color:#dde}.lane{background:#232a33}}
</style></head>
<body>
<h1>What we worked on</h1>
<p class="meta">${e(project)} · ${w.totalItems} completed item${w.totalItems === 1 ? '' : 's'} in ${w.topics.length} topic${w.topics.length === 1 ? '' : 's'} · generated ${e(generatedAt.toISOString().slice(0, 16).replace('T', ' '))} UTC by agentos</p>
${stats}
<div class="axis" id="axis"></div>
${topics}
<script id="data" type="application/json">${scriptJson(data)}</script>
<script>
(function () {
  var data = JSON.parse(document.getElementById('data').textContent);
  var times = [];
  data.topics.forEach(function (t) { t.items.forEach(function (i) { if (i.date) times.push(Date.parse(i.date)); }); });
  if (!times.length) return;
  var lo = Math.min.apply(null, times), hi = Math.max.apply(null, times), span = Math.max(hi - lo, 1);
  var axis = document.getElementById('axis');
  [lo, lo + span / 2, hi].forEach(function (t) { var s = document.createElement('span'); s.textContent = new Date(t).toISOString().slice(0, 10); axis.appendChild(s); });
  data.topics.forEach(function (t, ti) {
    var lane = document.querySelector('[data-lane="' + ti + '"]');
    t.items.forEach(function (i) {
      if (!i.date) return;
      var d = document.createElement('span');
      d.className = 'dot' + (i.marked ? ' marked' : '');
      d.setAttribute('data-timeline-item', '');
      d.style.left = (3 + 94 * (Date.parse(i.date) - lo) / span) + '%';
      d.title = i.date + ' ' + (i.id ? '#' + i.id + ' ' : '') + i.title;
      lane.appendChild(d);
    });
  });
  document.body.setAttribute('data-rendered', String(document.querySelectorAll('[data-timeline-item]').length));
})();
</script>
</body></html>
`;
}
