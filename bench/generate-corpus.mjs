#!/usr/bin/env node
// Deterministic generator of a realistic agentos corpus: completed issue briefs
// (docs/audit/done/<N>-<slug>/001-issue.md), some LLDs (docs/LLDs/done/), a few
// standards and ADRs, and a handful of new briefs (briefs/, outside the corpus).
//
//   node bench/generate-corpus.mjs <dir> [--docs 1000] [--seed 42] [--standards 12]
//
// The same seed and options always give byte-identical files. Documents are
// built from per-topic vocabularies and sentence templates, so topics cluster
// the way real project history does (many issues about the same subsystems),
// and lengths vary from a few lines to long write-ups with code blocks.
import { mkdir, writeFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** mulberry32: small, fast, good enough for text generation; seeded, so deterministic. */
export function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = (arr) => arr[Math.floor(next() * arr.length)];
  const chance = (p) => next() < p;
  const sample = (arr, n) => {
    const copy = [...arr];
    const out = [];
    while (out.length < n && copy.length) out.push(copy.splice(Math.floor(next() * copy.length), 1)[0]);
    return out;
  };
  return { next, int, pick, chance, sample };
}

const TOPICS = [
  {
    key: 'runners',
    label: 'runners',
    component: 'runner-manager',
    system: 'the CI runner fleet',
    nouns: [
      'runner pool',
      'autoscaler',
      'spot instance',
      'job queue',
      'warm pool',
      'node group',
      'runner lease',
      'capacity reservation',
    ],
    problems: [
      'jobs wait in the queue for minutes',
      'spot interruptions kill long jobs',
      'idle runners burn budget overnight',
      'the autoscaler overshoots on bursts',
    ],
    metrics: ['queue wait time', 'scale-up latency', 'idle runner cost', 'job start p95'],
    tech: ['Kubernetes', 'Karpenter', 'EC2 spot', 'cluster-autoscaler', 'Firecracker'],
    verbs: ['scale', 'drain', 'provision', 'pre-warm', 'rebalance'],
  },
  {
    key: 'docker',
    label: 'containers',
    component: 'image-builder',
    system: 'the image build pipeline',
    nouns: [
      'Dockerfile',
      'layer cache',
      'base image',
      'build context',
      'multi-stage build',
      'registry mirror',
      'BuildKit cache',
    ],
    problems: [
      'image builds take fourteen minutes',
      'the layer cache is invalidated on every commit',
      'images ship compilers and debug tools',
      'pulls from the registry time out',
    ],
    metrics: ['image build time', 'image size', 'cache hit rate', 'pull latency'],
    tech: ['BuildKit', 'Docker', 'distroless', 'ECR', 'Harbor registry'],
    verbs: ['cache', 'slim down', 'pin', 'rebuild', 'scan'],
  },
  {
    key: 'auth',
    label: 'auth',
    component: 'auth-service',
    system: 'authentication',
    nouns: [
      'access token',
      'refresh token',
      'session',
      'OIDC provider',
      'JWT signing key',
      'service account',
      'login flow',
    ],
    problems: [
      'sessions expire in the middle of long builds',
      'refresh token reuse logs users out',
      'key rotation breaks running jobs',
      'SSO users are created twice',
    ],
    metrics: ['login success rate', 'token refresh errors', 'session length', 'auth latency'],
    tech: ['OIDC', 'JWT', 'Keycloak', 'Okta', 'WebAuthn'],
    verbs: ['rotate', 'refresh', 'revoke', 'federate', 'validate'],
  },
  {
    key: 'logging',
    label: 'observability',
    component: 'log-pipeline',
    system: 'logging and tracing',
    nouns: ['correlation id', 'log shipper', 'structured log line', 'trace span', 'log index', 'retention policy'],
    problems: [
      'logs from one request cannot be joined across services',
      'the log viewer freezes on large logs',
      'log volume doubled after the release',
      'timestamps drift between services',
    ],
    metrics: ['log ingestion lag', 'log volume per day', 'query latency in the log viewer', 'dropped log lines'],
    tech: ['OpenTelemetry', 'Loki', 'Elasticsearch', 'Fluent Bit', 'pino'],
    verbs: ['correlate', 'ship', 'sample', 'index', 'redact'],
  },
  {
    key: 'database',
    label: 'database',
    component: 'harbord',
    system: 'the build metadata database',
    nouns: [
      'migration',
      'partial index',
      'connection pool',
      'read replica',
      'vacuum job',
      'partitioned table',
      'query plan',
    ],
    problems: [
      'the build_steps table grows by 40 GB a month',
      'a missing index makes the dashboard slow',
      'migrations lock the table for minutes',
      'connection storms after deploys',
    ],
    metrics: ['p95 query latency', 'replication lag', 'table bloat', 'connection count'],
    tech: ['PostgreSQL 16', 'pgbouncer', 'logical replication', 'pg_partman', 'pg_stat_statements'],
    verbs: ['migrate', 'partition', 'vacuum', 'index', 'replicate'],
  },
  {
    key: 'webhooks',
    label: 'integrations',
    component: 'webhook-dispatcher',
    system: 'webhook delivery',
    nouns: [
      'webhook delivery',
      'retry schedule',
      'dead-letter queue',
      'signing secret',
      'delivery log',
      'endpoint health',
    ],
    problems: [
      'failed deliveries are retried in a tight loop',
      'customers cannot see why a delivery failed',
      'a slow endpoint blocks other customers',
      'signatures break after secret rotation',
    ],
    metrics: ['delivery success rate', 'retry volume', 'delivery latency', 'dead-letter size'],
    tech: ['exponential backoff', 'HMAC-SHA256', 'Redis Streams', 'SQS', 'circuit breaker'],
    verbs: ['retry', 'sign', 'throttle', 'replay', 'disable'],
  },
  {
    key: 'api',
    label: 'api',
    component: 'public-api',
    system: 'the public API',
    nouns: [
      'rate limiter',
      'API token',
      'pagination cursor',
      'error envelope',
      'GraphQL schema',
      'REST endpoint',
      'quota',
    ],
    problems: [
      'one customer exhausts the shared rate limit',
      'clients page through results inconsistently',
      'error responses differ between endpoints',
      'breaking changes ship without notice',
    ],
    metrics: ['429 rate', 'API p99 latency', 'requests per token', 'schema breaking changes'],
    tech: ['token bucket', 'GraphQL', 'OpenAPI', 'Envoy', 'Redis'],
    verbs: ['limit', 'paginate', 'version', 'deprecate', 'document'],
  },
  {
    key: 'dashboard',
    label: 'frontend',
    component: 'dashboard',
    system: 'the web dashboard',
    nouns: [
      'build list',
      'dark mode theme',
      'log viewer',
      'settings page',
      'onboarding tour',
      'navigation bar',
      'virtualized table',
    ],
    problems: [
      'the build list re-renders on every websocket message',
      'dark mode has unreadable contrast',
      'new users do not find the runner settings',
      'bundle size grew past 3 MB',
    ],
    metrics: ['time to interactive', 'bundle size', 'frame drops', 'support tickets per week'],
    tech: ['React', 'Vite', 'TanStack Query', 'Playwright', 'CSS custom properties'],
    verbs: ['render', 'virtualize', 'theme', 'lazy-load', 'simplify'],
  },
  {
    key: 'billing',
    label: 'billing',
    component: 'billing-service',
    system: 'billing and invoicing',
    nouns: ['invoice', 'usage record', 'pricing plan', 'credit note', 'tax rate', 'payment retry', 'metered minute'],
    problems: [
      'invoices are off by one cent',
      'usage is counted twice after a retry',
      'plan changes are not prorated',
      'failed payments are not retried',
    ],
    metrics: ['invoice accuracy', 'revenue leakage', 'payment failure rate', 'billing job duration'],
    tech: ['Stripe', 'decimal arithmetic', 'idempotency keys', 'ledger table', 'banker rounding'],
    verbs: ['invoice', 'prorate', 'round', 'reconcile', 'meter'],
  },
  {
    key: 'artifacts',
    label: 'storage',
    component: 'artifact-store',
    system: 'artifact storage',
    nouns: [
      'artifact',
      'retention rule',
      'object store bucket',
      'cache archive',
      'upload session',
      'checksum manifest',
    ],
    problems: [
      'storage costs grew 30% in a quarter',
      'expired artifacts are never deleted',
      'large uploads fail halfway',
      'downloads are slow across regions',
    ],
    metrics: ['storage cost', 'upload failure rate', 'download throughput', 'orphaned objects'],
    tech: ['S3', 'lifecycle policies', 'multipart upload', 'CloudFront', 'zstd'],
    verbs: ['expire', 'compress', 'deduplicate', 'replicate', 'upload'],
  },
  {
    key: 'testing',
    label: 'testing',
    component: 'test-runner',
    system: 'the test infrastructure',
    nouns: [
      'flaky test',
      'quarantine list',
      'test shard',
      'fixture database',
      'snapshot test',
      'retry policy',
      'coverage report',
    ],
    problems: [
      'flaky tests block merges several times a day',
      'the suite takes 40 minutes',
      'shards are badly balanced',
      'fixtures leak between tests',
    ],
    metrics: ['flake rate', 'suite duration', 'shard imbalance', 'merge queue wait'],
    tech: ['Jest', 'Playwright', 'Testcontainers', 'test impact analysis', 'JUnit XML'],
    verbs: ['quarantine', 'shard', 'retry', 'isolate', 'parallelise'],
  },
  {
    key: 'notifications',
    label: 'notifications',
    component: 'notifier',
    system: 'notifications',
    nouns: [
      'email template',
      'Slack message',
      'notification preference',
      'digest',
      'translation key',
      'unsubscribe link',
    ],
    problems: [
      'users get the same failure email five times',
      'templates are only in English',
      'Slack messages arrive out of order',
      'digests are sent at midnight UTC to everyone',
    ],
    metrics: ['emails per user per day', 'unsubscribe rate', 'delivery delay', 'translated strings'],
    tech: ['MJML', 'ICU MessageFormat', 'Slack API', 'SES', 'i18next'],
    verbs: ['batch', 'translate', 'deduplicate', 'schedule', 'template'],
  },
  {
    key: 'queue',
    label: 'scheduling',
    component: 'build-queue',
    system: 'the build queue',
    nouns: ['build queue', 'priority class', 'lease', 'scheduler loop', 'fair-share policy', 'job state machine'],
    problems: [
      'one organisation starves the others',
      'jobs are picked twice after a crash',
      'priority builds wait behind nightly jobs',
      'the scheduler loop stalls under load',
    ],
    metrics: ['scheduling latency', 'double-dispatch count', 'queue depth', 'fairness index'],
    tech: ['Redis Streams', 'SKIP LOCKED', 'PostgreSQL advisory locks', 'weighted fair queueing', 'NATS'],
    verbs: ['schedule', 'lease', 'prioritise', 'requeue', 'dispatch'],
  },
  {
    key: 'secrets',
    label: 'security',
    component: 'secret-store',
    system: 'secrets management',
    nouns: ['secret', 'masking rule', 'vault path', 'encryption key', 'audit event', 'environment variable'],
    problems: [
      'secrets appear unmasked in build logs',
      'rotated secrets are not picked up by running pipelines',
      'audit events lack the actor',
      'keys are shared between environments',
    ],
    metrics: ['secrets leaked in logs', 'rotation time', 'audit coverage', 'key age'],
    tech: ['HashiCorp Vault', 'KMS', 'envelope encryption', 'SOPS', 'OIDC federation'],
    verbs: ['mask', 'rotate', 'encrypt', 'audit', 'scope'],
  },
  {
    key: 'deploys',
    label: 'delivery',
    component: 'deployer',
    system: 'deployments',
    nouns: [
      'canary',
      'rollback',
      'feature flag',
      'deploy window',
      'health check',
      'release train',
      'blue-green switch',
    ],
    problems: [
      'bad releases reach all regions before anyone notices',
      'rollbacks take forty minutes',
      'feature flags are never cleaned up',
      'health checks pass while the service is broken',
    ],
    metrics: ['change failure rate', 'time to rollback', 'deploy frequency', 'stale flags'],
    tech: ['Argo Rollouts', 'LaunchDarkly', 'Helm', 'Terraform', 'progressive delivery'],
    verbs: ['deploy', 'roll back', 'canary', 'flag', 'promote'],
  },
  {
    key: 'search',
    label: 'search',
    component: 'search-service',
    system: 'search',
    nouns: ['search index', 'relevance ranking', 'query parser', 'autocomplete', 'reindex job', 'synonym list'],
    problems: [
      'searching for a branch name returns nothing',
      'the reindex job runs for six hours',
      'autocomplete lags behind typing',
      'results ignore permissions',
    ],
    metrics: ['search latency', 'zero-result rate', 'reindex duration', 'click-through rate'],
    tech: ['OpenSearch', 'BM25', 'trigram index', 'pg_trgm', 'edge n-grams'],
    verbs: ['index', 'rank', 'tokenise', 'filter', 'suggest'],
  },
];

const PEOPLE = [
  'Ana Costa',
  'Marcus Lindqvist',
  'Priya Raman',
  'Tomasz Wójcik',
  'Lea Fischer',
  'Kenji Sato',
  'Fatima Zahra',
  'Daniel Okafor',
  'Sofia Rossi',
  'Hugo Martin',
  'Mei Chen',
  'Oluwaseun Adeyemi',
];
const TEAMS = ['platform', 'developer experience', 'infrastructure', 'billing', 'frontend', 'security', 'SRE'];
const REGIONS = ['eu-west', 'us-east', 'ap-southeast'];

function cap(s) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function slugify(s) {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 48)
    .replace(/-$/, '');
}

function date(r, yearLo = 2021, yearHi = 2025) {
  const y = r.int(yearLo, yearHi);
  const m = String(r.int(1, 12)).padStart(2, '0');
  const d = String(r.int(1, 28)).padStart(2, '0');
  return `${y}-${m}-${d}`;
}

function addDays(iso, days) {
  const [y, m, d] = iso.split('-').map(Number);
  const t = new Date(Date.UTC(y, m - 1, d) + days * 86400000);
  return t.toISOString().slice(0, 10);
}

/** A sentence about a topic, from a template with slots. */
function sentence(r, t) {
  const n = () => r.pick(t.nouns);
  const num = () => r.pick([2, 3, 5, 7, 12, 15, 20, 30, 40, 45, 60, 90, 120, 250, 500]);
  const templates = [
    () => `Today ${r.pick(t.problems)}, which costs the ${r.pick(TEAMS)} team several hours a week.`,
    () =>
      `The ${n()} in \`${t.component}\` was written when we had a tenth of the current load, and ${r.pick(t.metrics)} has doubled since.`,
    () =>
      `We want to ${r.pick(t.verbs)} the ${n()} so that ${r.pick(t.metrics)} stays under ${num()} ${r.pick(['ms', 'seconds', 'minutes', 'percent'])}.`,
    () =>
      `Customers in ${r.pick(REGIONS)} reported that ${r.pick(t.problems)}; support opened ${num()} tickets about it last month.`,
    () =>
      `Using ${r.pick(t.tech)} for the ${n()} keeps the change small and matches what ${r.pick(TEAMS)} already runs.`,
    () =>
      `We considered ${r.pick(t.tech)} instead, but it would add an operational dependency for a ${n()} that changes rarely.`,
    () =>
      `The ${n()} and the ${n()} must stay consistent: a change to one without the other is how the last incident started.`,
    () => `Measured over ${num()} days, ${r.pick(t.metrics)} went from ${num()} to ${num()} after the change.`,
    () =>
      `${cap(r.pick(t.verbs))}ing the ${n()} is done by a background job that runs every ${num()} minutes and is idempotent.`,
    () =>
      `The dashboard shows ${r.pick(t.metrics)} per organisation, and an alert fires when it stays above the target for ${num()} minutes.`,
    () => `This does not change ${r.pick(TOPICS).system}; that is tracked separately.`,
    () =>
      `Rollout is behind a feature flag, first for internal projects, then for ${num()} percent of organisations, then for everyone.`,
    () =>
      `Self-hosted installs get the same behaviour in the next minor release, with the old ${n()} kept for one version.`,
    () => `A runbook entry explains how to ${r.pick(t.verbs)} the ${n()} by hand if the automation fails.`,
    () => `The root cause was in \`${t.component}\`: the ${n()} was read before the ${n()} had been written.`,
  ];
  return r.pick(templates)();
}

function paragraph(r, t, lo = 2, hi = 4) {
  const n = r.int(lo, hi);
  const out = [];
  for (let i = 0; i < n; i++) out.push(sentence(r, t));
  return out.join(' ');
}

function listItems(r, t, lo, hi, style = 'bullet') {
  const n = r.int(lo, hi);
  const items = [];
  for (let i = 0; i < n; i++) {
    const text = r.pick([
      () => `${cap(r.pick(t.verbs))} the ${r.pick(t.nouns)} without downtime.`,
      () => `${cap(r.pick(t.metrics))} under ${r.int(2, 500)} ${r.pick(['ms', 's', 'min'])} at the 95th percentile.`,
      () => `The \`${t.component}\` API stays backward compatible for one minor version.`,
      () => `Operators can see the ${r.pick(t.nouns)} state in the admin view.`,
      () => `No change for self-hosted installs that do not enable ${r.pick(t.tech)}.`,
      () => `Alerts page the ${r.pick(TEAMS)} on-call when the ${r.pick(t.nouns)} is unhealthy.`,
      () => sentence(r, t),
    ])();
    if (style === 'numbered') items.push(`${i + 1}. ${text}`);
    else if (style === 'check') items.push(`- [${r.chance(0.9) ? 'x' : ' '}] ${text}`);
    else items.push(`- ${text}`);
  }
  return items.join('\n');
}

function codeBlock(r, t) {
  const ident = t.component.replace(/-/g, '_');
  const kind = r.int(0, 4);
  if (kind === 0) {
    return [
      '```yaml',
      `${ident}:`,
      `  enabled: true`,
      `  ${slugify(r.pick(t.nouns)).replace(/-/g, '_')}:`,
      `    max: ${r.int(2, 200)}`,
      `    timeout_seconds: ${r.int(5, 600)}`,
      `  regions: [${r.sample(REGIONS, 2).join(', ')}]`,
      '```',
    ].join('\n');
  }
  if (kind === 1) {
    return [
      '```sql',
      `CREATE INDEX CONCURRENTLY ${ident}_${r.int(1, 99)}_idx`,
      `  ON ${ident}s (organisation_id, created_at DESC)`,
      `  WHERE state = '${r.pick(['running', 'queued', 'failed'])}';`,
      '```',
    ].join('\n');
  }
  if (kind === 2) {
    return [
      '```ts',
      `export async function ${r.pick(t.verbs).replace(/[^a-z]/g, '')}${cap(slugify(r.pick(t.nouns)).replace(/-([a-z])/g, (_, c) => c.toUpperCase()))}(id: string): Promise<void> {`,
      `  const current = await store.get(id);`,
      `  if (!current) throw new NotFoundError(id);`,
      `  await store.put(id, { ...current, updatedAt: Date.now() });`,
      `}`,
      '```',
    ].join('\n');
  }
  if (kind === 3) {
    return [
      '```bash',
      `kubectl -n ${t.key} rollout restart deployment/${t.component}`,
      `${t.component} ${r.pick(t.verbs).replace(/\s+/g, '-')} --dry-run --limit ${r.int(10, 1000)}`,
      '```',
    ].join('\n');
  }
  return [
    '```go',
    `func (s *${cap(ident.replace(/_/g, ''))}) Handle(ctx context.Context, req Request) error {`,
    `\tctx, cancel := context.WithTimeout(ctx, ${r.int(1, 30)}*time.Second)`,
    `\tdefer cancel()`,
    `\treturn s.next.Handle(ctx, req)`,
    `}`,
    '```',
  ].join('\n');
}

function title(r, t) {
  const noun = r.pick(t.nouns);
  return r.pick([
    () => `${cap(r.pick(t.verbs))} the ${noun} in ${t.component}`,
    () => `Reduce ${r.pick(t.metrics)} for ${t.system}`,
    () => `Fix: ${r.pick(t.problems)}`,
    () => `Migrate the ${noun} to ${r.pick(t.tech)}`,
    () => `Add ${noun} support to ${t.component}`,
    () => `${cap(noun)} rework for ${r.pick(REGIONS)}`,
  ])();
}

/** Size classes: many short briefs, a good share of medium ones, a long tail. */
function sizeClass(r) {
  const x = r.next();
  return x < 0.4 ? 'short' : x < 0.82 ? 'medium' : 'long';
}

function issueDoc(r, id, t) {
  const size = sizeClass(r);
  const ttl = title(r, t);
  const created = date(r);
  const lines = [
    '---',
    `issue_id: ${id}`,
    `title: ${JSON.stringify(ttl)}`,
    `status: ${r.chance(0.92) ? 'done' : r.pick(['rejected', 'superseded'])}`,
    `author: ${r.pick(PEOPLE)}`,
    `created: ${created}`,
    `closed: ${addDays(created, r.int(3, 120))}`,
    `labels: [${[t.label, ...r.sample(['bug', 'feature', 'ops', 'performance', 'tech-debt', 'customer'], r.int(0, 2))].join(', ')}]`,
    '---',
    '',
    `# Issue #${id}: ${ttl}`,
    '',
    '## Objective',
    '',
    paragraph(r, t, 1, size === 'short' ? 2 : 3),
    '',
  ];
  if (size !== 'short' || r.chance(0.5)) {
    lines.push('## Background', '', paragraph(r, t, 2, 4), '');
    if (size === 'long') lines.push(paragraph(r, t, 2, 5), '', listItems(r, t, 2, 4), '');
  }
  lines.push('## Requirements', '', listItems(r, t, size === 'short' ? 2 : 3, size === 'long' ? 8 : 5, 'numbered'), '');
  if (size !== 'short') {
    lines.push(`## ${r.pick(['Plan', 'Design', 'Approach', 'Proposed change'])}`, '');
    const subs = size === 'long' ? r.int(2, 4) : r.int(0, 2);
    if (subs === 0) lines.push(paragraph(r, t, 2, 4), '');
    for (let i = 0; i < subs; i++) {
      lines.push(`### ${i + 1}. ${cap(r.pick(t.verbs))} the ${r.pick(t.nouns)}`, '', paragraph(r, t, 2, 4), '');
      if (r.chance(0.45)) lines.push(codeBlock(r, t), '');
    }
    if (size === 'long' && r.chance(0.6)) lines.push('### Alternatives considered', '', listItems(r, t, 2, 3), '');
  }
  lines.push('## Acceptance Criteria', '', listItems(r, t, 2, size === 'long' ? 6 : 4, 'check'), '');
  if (size !== 'short' || r.chance(0.4)) lines.push('## Outcome', '', paragraph(r, t, 1, size === 'long' ? 4 : 2), '');
  return { title: ttl, text: lines.join('\n') };
}

function lldDoc(r, id, t) {
  const ttl = `LLD: ${title(r, t)}`;
  const lines = [
    '---',
    `issue_id: ${id}`,
    `title: ${JSON.stringify(ttl)}`,
    'status: done',
    `author: ${r.pick(PEOPLE)}`,
    '---',
    '',
    `# LLD-${String(id).padStart(3, '0')}: ${ttl.replace(/^LLD: /, '')}`,
    '',
    '## 1. Context',
    '',
    paragraph(r, t, 3, 5),
    '',
    '## 2. Design',
    '',
  ];
  const subs = r.int(2, 5);
  for (let i = 0; i < subs; i++) {
    lines.push(`### 2.${i + 1} ${cap(r.pick(t.nouns))}`, '', paragraph(r, t, 2, 5), '');
    if (r.chance(0.6)) lines.push(codeBlock(r, t), '');
    if (r.chance(0.4)) lines.push(listItems(r, t, 2, 5), '');
  }
  lines.push('## 3. Alternatives considered', '', listItems(r, t, 2, 4), '');
  lines.push('## 4. Rollout', '', paragraph(r, t, 2, 4), '', listItems(r, t, 2, 4, 'numbered'), '');
  lines.push('## 5. Risks', '', paragraph(r, t, 1, 3), '');
  return { title: ttl, text: lines.join('\n') };
}

function standardDoc(r, t, i, adr) {
  const ttl = adr
    ? `ADR-${String(i).padStart(4, '0')}: Use ${r.pick(t.tech)} for the ${r.pick(t.nouns)}`
    : `${cap(t.label)} standard`;
  const lines = [
    '---',
    `title: ${JSON.stringify(ttl)}`,
    `status: ${adr ? r.pick(['accepted', 'accepted', 'superseded']) : 'accepted'}`,
    '---',
    '',
    `# ${ttl}`,
    '',
    adr ? '## Context' : '## Scope',
    '',
    paragraph(r, t, 2, 4),
    '',
    adr ? '## Decision' : '## Rules',
    '',
    listItems(r, t, 3, 7, adr ? 'bullet' : 'numbered'),
    '',
    adr ? '## Consequences' : '## Exceptions',
    '',
    paragraph(r, t, 1, 3),
    '',
  ];
  return { title: ttl, text: lines.join('\n') };
}

function briefDoc(r, t, heading) {
  return [
    `# ${heading}`,
    '',
    '## Objective',
    '',
    paragraph(r, t, 3, 5),
    '',
    '## Requirements',
    '',
    listItems(r, t, 3, 6),
    '',
  ].join('\n');
}

/**
 * Write the corpus under `dir`. Returns what was written (relative paths), so
 * callers can pick files to change or delete without walking the tree.
 */
export async function generateCorpus(dir, { docs = 1000, seed = 42, standards = 12, clean = true } = {}) {
  const r = prng(seed);
  if (clean) await rm(path.join(dir, 'docs'), { recursive: true, force: true });
  const files = [];
  const history = [];
  const put = async (rel, text) => {
    const abs = path.join(dir, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, text);
    files.push(rel);
  };
  // Topic popularity is skewed, as in real projects: a few subsystems get most of the work.
  const weights = TOPICS.map((_, i) => 1 / (1 + i * 0.25));
  const total = weights.reduce((a, b) => a + b, 0);
  const topic = () => {
    let x = r.next() * total;
    for (let i = 0; i < TOPICS.length; i++) if ((x -= weights[i]) <= 0) return TOPICS[i];
    return TOPICS[TOPICS.length - 1];
  };
  let id = 100;
  for (let i = 0; i < docs; i++) {
    id += r.int(1, 3);
    const t = topic();
    if (r.chance(0.1)) {
      const d = lldDoc(r, id, t);
      const rel = `docs/LLDs/done/LLD-${String(id).padStart(3, '0')}-${slugify(d.title.replace(/^LLD: /, ''))}.md`;
      await put(rel, d.text);
      history.push(rel);
    } else {
      const d = issueDoc(r, id, t);
      const rel = `docs/audit/done/${id}-${slugify(d.title)}/001-issue.md`;
      await put(rel, d.text);
      history.push(rel);
    }
  }
  for (let i = 0; i < standards; i++) {
    const t = TOPICS[i % TOPICS.length];
    const adr = i % 2 === 1;
    const d = standardDoc(r, t, i + 1, adr);
    await put(
      adr
        ? `docs/adrs/${String(i + 1).padStart(4, '0')}-${slugify(d.title.replace(/^ADR-\d+: /, ''))}.md`
        : `docs/standards/${t.key}-standard.md`,
      d.text,
    );
  }
  const briefs = [];
  for (const [name, t, heading] of [
    ['new-work', TOPICS[0], 'Cut runner queue wait time for large organisations'],
    ['logging', TOPICS[3], 'Join logs across services with one request id'],
    ['unrelated', TOPICS[7], 'Add an interactive onboarding tour to the dashboard'],
  ]) {
    const rel = `briefs/${name}.md`;
    await put(rel, briefDoc(r, t, heading));
    briefs.push(rel);
  }
  return { files, history, briefs };
}

async function cli(argv) {
  const args = argv.slice(2);
  const dir = args.find((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--')));
  const opt = (name, dflt) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : dflt;
  };
  if (!dir || args.includes('--help')) {
    process.stderr.write('usage: node bench/generate-corpus.mjs <dir> [--docs 1000] [--seed 42] [--standards 12]\n');
    process.exitCode = dir ? 0 : 2;
    return;
  }
  const res = await generateCorpus(path.resolve(dir), {
    docs: opt('docs', 1000),
    seed: opt('seed', 42),
    standards: opt('standards', 12),
  });
  process.stdout.write(
    `wrote ${res.files.length} files (${res.history.length} history documents) under ${path.resolve(dir)}\n`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await cli(process.argv);
}
