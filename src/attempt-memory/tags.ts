/**
 * Deterministic auto-tags (PRD "Auto-Tagging"): from the context ("adding auth"
 * → authentication, security), the command (the tool: npm/pip/cargo/go/docker/
 * git/test runners; the packages it installs) and the file paths it names
 * (`src/auth/jwt.ts` → auth, jwt, backend). Same input, same tags, sorted.
 */
import { commandTokens, textWords, toolFamily } from './normalise.js';

const MAX_TAGS = 16;

/** Words of a context or a path segment → tags. */
const TOPICS: Record<string, string[]> = {
  auth: ['authentication', 'security'],
  authentication: ['authentication', 'security'],
  authorization: ['authorization', 'security'],
  login: ['authentication'],
  oauth: ['authentication', 'security'],
  jwt: ['authentication', 'jwt'],
  password: ['authentication', 'security'],
  session: ['session'],
  security: ['security'],
  cache: ['caching'],
  caching: ['caching'],
  redis: ['redis', 'database', 'caching'],
  ioredis: ['redis', 'database', 'caching'],
  postgres: ['postgres', 'database'],
  postgresql: ['postgres', 'database'],
  pg: ['postgres', 'database'],
  mysql: ['mysql', 'database'],
  sqlite: ['sqlite', 'database'],
  mongo: ['mongodb', 'database'],
  mongodb: ['mongodb', 'database'],
  mongoose: ['mongodb', 'database'],
  database: ['database'],
  db: ['database'],
  migration: ['database', 'migration'],
  migrations: ['database', 'migration'],
  sql: ['database'],
  test: ['testing'],
  tests: ['testing'],
  testing: ['testing'],
  spec: ['testing'],
  deploy: ['deployment'],
  deployment: ['deployment'],
  release: ['release'],
  docker: ['docker', 'container'],
  dockerfile: ['docker', 'container'],
  kubernetes: ['kubernetes', 'container'],
  k8s: ['kubernetes', 'container'],
  ci: ['ci'],
  pipeline: ['ci'],
  dependency: ['dependency'],
  dependencies: ['dependency'],
  install: ['dependency'],
  upgrade: ['dependency'],
  package: ['dependency'],
  build: ['build'],
  compile: ['build'],
  lint: ['lint'],
  performance: ['performance'],
  perf: ['performance'],
  api: ['api', 'backend'],
  server: ['backend'],
  backend: ['backend'],
  routes: ['backend'],
  controllers: ['backend'],
  middleware: ['backend'],
  frontend: ['frontend'],
  components: ['frontend'],
  ui: ['frontend'],
  css: ['frontend', 'styling'],
  react: ['react', 'frontend'],
  vue: ['vue', 'frontend'],
  graphql: ['graphql', 'api'],
  payment: ['payments'],
  payments: ['payments'],
  stripe: ['payments'],
  email: ['email'],
  logging: ['logging'],
  logger: ['logging'],
  config: ['config'],
  env: ['config'],
  docs: ['docs'],
};

/** The program → what kind of work it is. */
const PROGRAMS: Record<string, string[]> = {
  npm: ['npm', 'node'],
  pnpm: ['pnpm', 'node'],
  yarn: ['yarn', 'node'],
  bun: ['bun', 'node'],
  npx: ['node'],
  node: ['node'],
  tsc: ['typescript', 'build'],
  pip: ['pip', 'python'],
  pip3: ['pip', 'python'],
  uv: ['python'],
  poetry: ['python'],
  python: ['python'],
  python3: ['python'],
  cargo: ['cargo', 'rust'],
  rustc: ['rust', 'build'],
  go: ['go'],
  docker: ['docker', 'container'],
  'docker-compose': ['docker', 'container'],
  kubectl: ['kubernetes', 'container'],
  helm: ['kubernetes', 'container'],
  git: ['git'],
  gh: ['git', 'github'],
  make: ['build'],
  cmake: ['build'],
  gradle: ['java', 'build'],
  mvn: ['java', 'build'],
  jest: ['testing'],
  vitest: ['testing'],
  mocha: ['testing'],
  pytest: ['testing', 'python'],
  eslint: ['lint'],
  ruff: ['lint', 'python'],
  psql: ['postgres', 'database'],
  mysql: ['mysql', 'database'],
  'redis-cli': ['redis', 'database'],
  curl: ['http'],
  terraform: ['infrastructure'],
};

const INSTALL_VERBS = new Set(['install', 'add', 'get', 'require']);
const TEST_VERBS = new Set(['test', 'tests']);
const BUILD_VERBS = new Set(['build', 'compile']);
const EXTENSIONS: Record<string, string> = {
  ts: 'typescript',
  tsx: 'typescript',
  js: 'javascript',
  mjs: 'javascript',
  py: 'python',
  rs: 'rust',
  go: 'go',
  java: 'java',
  rb: 'ruby',
  sql: 'database',
  yml: 'config',
  yaml: 'config',
  toml: 'config',
  md: 'docs',
  css: 'frontend',
  tf: 'infrastructure',
};
const GENERIC_SEGMENTS = new Set([
  'src',
  'lib',
  'dist',
  'build',
  'index',
  'main',
  'app',
  'apps',
  'packages',
  'pkg',
  'internal',
  'cmd',
  'utils',
  'util',
  'common',
  'shared',
  'core',
  'tmp',
  '<tmp>',
  'node_modules',
  'home',
  'users',
]);

/** The tags an attempt gets from what it says; merged with the caller's own (normalised) tags. */
export function autoTags(attempt: {
  tool: string;
  command: string;
  context?: string | null;
  tags?: string[];
}): string[] {
  const out = new Set<string>();
  for (const t of attempt.tags ?? []) {
    const n = normaliseTag(t);
    if (n) out.add(n);
  }
  const topic = (word: string) => TOPICS[word]?.forEach((t) => out.add(t));

  if (attempt.context) for (const w of textWords(attempt.context)) topic(w);

  const tool = attempt.tool.toLowerCase();
  if (/test/.test(tool)) out.add('testing');
  if (/edit|write/.test(tool)) out.add('edit');

  // A shell command starts with its program; another tool's arguments (Edit's file path) do not.
  const shell = toolFamily(attempt.tool) === 'shell';
  const tokens = shell ? commandTokens(attempt.command) : ['', ...commandTokens(`_ ${attempt.command}`).slice(1)];
  const program = tokens[0];
  if (program) PROGRAMS[program]?.forEach((t) => out.add(t));
  const verb = tokens[1];
  if (verb && TEST_VERBS.has(verb)) out.add('testing');
  if (verb && BUILD_VERBS.has(verb)) out.add('build');
  if (program === 'npm' && verb === 'run' && tokens[2]) {
    if (/test/.test(tokens[2])) out.add('testing');
    if (/build/.test(tokens[2])) out.add('build');
    if (/lint/.test(tokens[2])) out.add('lint');
  }
  const installing = verb !== undefined && INSTALL_VERBS.has(verb);
  if (installing) out.add('dependency');
  // The words after the program (and after the install verb: `install` is not a package).
  for (const word of tokens.slice(installing ? 2 : 1)) {
    if (word.startsWith('-') || word.startsWith('<')) continue;
    if (installing && (!word.includes('/') || word.startsWith('@'))) {
      const pkg = packageName(word);
      if (pkg) {
        out.add(pkg);
        topic(pkg);
        for (const part of pkg.split(/[-_.]/)) topic(part);
      }
    } else if (word.includes('/') || /\.[a-z]{1,5}$/i.test(word)) {
      pathTags(word).forEach((t) => out.add(t));
    }
  }
  return [...out].sort().slice(0, MAX_TAGS);
}

/** `@scope/name@^1.2` → `name`; `requests==2.0` → `requests`. */
function packageName(word: string): string | null {
  const noVersion = word.replace(/^(@?[^@=<>~!\s]+).*$/, '$1');
  const name = noVersion.split('/').pop() ?? noVersion;
  return normaliseTag(name);
}

function pathTags(p: string): string[] {
  const tags: string[] = [];
  const parts = p.split(/[\\/]/).filter((s) => s && s !== '.' && s !== '..');
  parts.forEach((seg, i) => {
    const last = i === parts.length - 1;
    const m = last ? /^(.*?)(?:\.(test|spec))?\.([a-z0-9]{1,5})$/i.exec(seg) : null;
    const stem = (m ? m[1] : seg).toLowerCase();
    if (m?.[2]) tags.push('testing');
    if (m && EXTENSIONS[m[3].toLowerCase()]) tags.push(EXTENSIONS[m[3].toLowerCase()]);
    if (GENERIC_SEGMENTS.has(stem)) return;
    if (TOPICS[stem]) tags.push(...TOPICS[stem]);
    // Named features (src/auth/jwt.ts → auth, jwt), not every folder name.
    if (TOPICS[stem] || (!last && i > 0) || (last && /^[a-z][a-z0-9-]{1,30}$/.test(stem))) {
      const n = normaliseTag(stem);
      if (n) tags.push(n);
    }
  });
  return tags;
}

/** Lower case, [a-z0-9.-], at most 40 characters; null when nothing is left. */
export function normaliseTag(tag: string): string | null {
  const n = tag
    .toLowerCase()
    .trim()
    .replace(/[^a-z0-9.+#-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 40);
  return n === '' ? null : n;
}
