/**
 * What a repository's files say about its stack (tech-stack.ts): a pure function of a few files
 * (manifests, lockfiles, scripts, configs), read through a FileSource so tests give it a map.
 */

/** A repository's stack, as a session's summary shows it. */
export interface TechStack {
  languages: string[];
  frameworks: string[];
  tools: string[];
  packageManager: string | null;
  testCommand: string | null;
  buildCommand: string | null;
  lintCommand: string | null;
  ci: string[];
  conventions: {
    testPattern: string | null;
    moduleStyle: string | null;
    formatter: string | null;
    linter: string | null;
  };
}

/** The files detection reads: the disk (tech-stack.ts diskSource), or a test's map. */
export interface FileSource {
  exists(rel: string): boolean;
  read(rel: string): string | null;
  list(rel: string): string[];
}

const add = (list: string[], ...items: string[]) => {
  for (const i of items) if (!list.includes(i)) list.push(i);
};

const NODE_FRAMEWORKS: Array<[string, string]> = [
  ['next', 'Next.js'],
  ['react', 'React'],
  ['vue', 'Vue'],
  ['svelte', 'Svelte'],
  ['@angular/core', 'Angular'],
  ['express', 'Express'],
  ['fastify', 'Fastify'],
  ['@nestjs/core', 'NestJS'],
  ['koa', 'Koa'],
  ['electron', 'Electron'],
  ['commander', 'commander (CLI)'],
];
const NODE_TOOLS: Array<[string, string]> = [
  ['typescript', 'tsc'],
  ['jest', 'jest'],
  ['vitest', 'vitest'],
  ['mocha', 'mocha'],
  ['eslint', 'eslint'],
  ['prettier', 'prettier'],
  ['vite', 'vite'],
  ['webpack', 'webpack'],
  ['esbuild', 'esbuild'],
  ['@biomejs/biome', 'biome'],
  ['playwright', 'playwright'],
];
const PY_FRAMEWORKS: Array<[RegExp, string]> = [
  [/\bdjango\b/i, 'Django'],
  [/\bfastapi\b/i, 'FastAPI'],
  [/\bflask\b/i, 'Flask'],
  [/\bpydantic\b/i, 'pydantic'],
];
const PY_TOOLS: Array<[RegExp, string]> = [
  [/\bpytest\b/i, 'pytest'],
  [/\bruff\b/i, 'ruff'],
  [/\bblack\b/i, 'black'],
  [/\bmypy\b/i, 'mypy'],
];

/** Pure detection over a file source. */
export function detectTechStack(src: FileSource): TechStack {
  const s: TechStack = {
    languages: [],
    frameworks: [],
    tools: [],
    packageManager: null,
    testCommand: null,
    buildCommand: null,
    lintCommand: null,
    ci: [],
    conventions: { testPattern: null, moduleStyle: null, formatter: null, linter: null },
  };
  // Each ecosystem fills what is still unset (`??=`), in this order: a project's own scripts first.
  detectNode(src, s);
  detectPython(src, s);
  detectCompiled(src, s);
  detectBuildAndCi(src, s);
  s.conventions.testPattern ??= testPattern(src);
  return s;
}

/** JavaScript and TypeScript: package.json, its lockfile, scripts and configs. */
function detectNode(src: FileSource, s: TechStack): void {
  const pkgText = src.read('package.json');
  let pkg: Record<string, unknown> | null = null;
  if (pkgText) {
    try {
      pkg = JSON.parse(pkgText) as Record<string, unknown>;
    } catch {
      pkg = null;
    }
  }
  if (pkg) {
    const deps = { ...(pkg.dependencies as object), ...(pkg.devDependencies as object) } as Record<string, unknown>;
    add(s.languages, src.exists('tsconfig.json') || 'typescript' in deps ? 'TypeScript' : 'JavaScript');
    add(s.frameworks, 'Node.js');
    for (const [dep, name] of NODE_FRAMEWORKS) if (dep in deps) add(s.frameworks, name);
    for (const [dep, name] of NODE_TOOLS) if (dep in deps) add(s.tools, name);
    const pmField = typeof pkg.packageManager === 'string' ? pkg.packageManager.split('@')[0] : null;
    s.packageManager =
      pmField ??
      (src.exists('pnpm-lock.yaml')
        ? 'pnpm'
        : src.exists('yarn.lock')
          ? 'yarn'
          : src.exists('bun.lockb') || src.exists('bun.lock')
            ? 'bun'
            : 'npm');
    add(s.tools, s.packageManager);
    const scripts = (pkg.scripts ?? {}) as Record<string, unknown>;
    const run = (name: string) =>
      s.packageManager === 'npm'
        ? name === 'test'
          ? 'npm test'
          : `npm run ${name}`
        : `${s.packageManager} ${name === 'test' ? 'test' : `run ${name}`}`;
    if (typeof scripts.test === 'string' && !/no test specified/.test(scripts.test)) s.testCommand = run('test');
    if (typeof scripts.build === 'string') s.buildCommand = run('build');
    if (typeof scripts.lint === 'string') s.lintCommand = run('lint');
    s.conventions.moduleStyle = pkg.type === 'module' ? 'ES modules' : 'CommonJS';
    if (
      'prettier' in deps ||
      src.exists('.prettierrc') ||
      src.exists('.prettierrc.json') ||
      src.exists('prettier.config.js')
    )
      s.conventions.formatter = 'prettier';
    if ('@biomejs/biome' in deps || src.exists('biome.json')) s.conventions.formatter ??= 'biome';
    if (
      'eslint' in deps ||
      src.exists('eslint.config.js') ||
      src.exists('eslint.config.mjs') ||
      src.exists('.eslintrc.json')
    )
      s.conventions.linter = 'eslint';
  }
}

/** Python: pyproject.toml, requirements.txt, Pipfile, setup.py. */
function detectPython(src: FileSource, s: TechStack): void {
  const pyproject = src.read('pyproject.toml');
  const requirements = src.read('requirements.txt');
  if (pyproject !== null || requirements !== null || src.exists('setup.py') || src.exists('Pipfile')) {
    add(s.languages, 'Python');
    const text = `${pyproject ?? ''}\n${requirements ?? ''}\n${src.read('Pipfile') ?? ''}`;
    for (const [re, name] of PY_FRAMEWORKS) if (re.test(text)) add(s.frameworks, name);
    for (const [re, name] of PY_TOOLS) if (re.test(text)) add(s.tools, name);
    const pm = src.exists('uv.lock')
      ? 'uv'
      : src.exists('poetry.lock') || /\[tool\.poetry\]/.test(text)
        ? 'poetry'
        : src.exists('Pipfile')
          ? 'pipenv'
          : 'pip';
    s.packageManager ??= pm;
    add(s.tools, pm);
    if (s.tools.includes('pytest') || src.exists('pytest.ini'))
      s.testCommand ??= pm === 'pip' ? 'pytest' : `${pm} run pytest`;
    if (/\bruff\b/.test(text)) s.conventions.linter ??= 'ruff';
    if (/\bblack\b/.test(text)) s.conventions.formatter ??= 'black';
    else if (/\[tool\.ruff\.format\]/.test(text)) s.conventions.formatter ??= 'ruff format';
  }
}

/** Go, Rust, Ruby and the JVM: one manifest each. */
function detectCompiled(src: FileSource, s: TechStack): void {
  if (src.exists('go.mod')) {
    add(s.languages, 'Go');
    add(s.tools, 'go');
    s.packageManager ??= 'go modules';
    s.testCommand ??= 'go test ./...';
    s.buildCommand ??= 'go build ./...';
    s.conventions.formatter ??= 'gofmt';
    s.conventions.testPattern ??= '*_test.go';
  }
  if (src.exists('Cargo.toml')) {
    add(s.languages, 'Rust');
    add(s.tools, 'cargo');
    s.packageManager ??= 'cargo';
    s.testCommand ??= 'cargo test';
    s.buildCommand ??= 'cargo build';
    s.conventions.formatter ??= 'rustfmt';
  }
  const gemfile = src.read('Gemfile');
  if (gemfile !== null) {
    add(s.languages, 'Ruby');
    add(s.tools, 'bundler');
    s.packageManager ??= 'bundler';
    if (/\brails\b/.test(gemfile)) add(s.frameworks, 'Rails');
    if (/\brspec\b/.test(gemfile)) {
      add(s.tools, 'rspec');
      s.testCommand ??= 'bundle exec rspec';
    }
    if (src.exists('.rubocop.yml') || /\brubocop\b/.test(gemfile)) s.conventions.linter ??= 'rubocop';
  }
  if (src.exists('pom.xml')) {
    add(s.languages, 'Java');
    add(s.tools, 'maven');
    s.packageManager ??= 'maven';
    s.testCommand ??= 'mvn test';
    s.buildCommand ??= 'mvn package';
  }
  if (src.exists('build.gradle') || src.exists('build.gradle.kts')) {
    add(s.languages, src.exists('build.gradle.kts') ? 'Kotlin' : 'Java');
    add(s.tools, 'gradle');
    s.packageManager ??= 'gradle';
    const g = src.exists('gradlew') ? './gradlew' : 'gradle';
    s.testCommand ??= `${g} test`;
    s.buildCommand ??= `${g} build`;
  }
}

/** Containers, make targets and CI. */
function detectBuildAndCi(src: FileSource, s: TechStack): void {
  if (src.exists('Dockerfile')) add(s.tools, 'Docker');
  if (src.exists('docker-compose.yml') || src.exists('docker-compose.yaml') || src.exists('compose.yaml'))
    add(s.tools, 'Docker Compose');
  const makefile = src.read('Makefile');
  if (makefile !== null) {
    add(s.tools, 'make');
    const targets = new Set([...makefile.matchAll(/^([A-Za-z][\w.-]*)\s*:(?!=)/gm)].map((m) => m[1]));
    if (targets.has('test')) s.testCommand ??= 'make test';
    if (targets.has('build')) s.buildCommand ??= 'make build';
    if (targets.has('lint')) s.lintCommand ??= 'make lint';
  }
  if (src.list('.github/workflows').some((f) => /\.ya?ml$/.test(f))) add(s.ci, 'GitHub Actions');
  if (src.exists('.gitlab-ci.yml')) add(s.ci, 'GitLab CI');
  if (src.exists('.circleci/config.yml')) add(s.ci, 'CircleCI');
  if (src.exists('Jenkinsfile')) add(s.ci, 'Jenkins');
  if (src.exists('.ci/run')) add(s.ci, '.ci/run');
}

/** The most common test file naming among the test folders' files (two levels). */
function testPattern(src: FileSource): string | null {
  const counts = new Map<string, number>();
  const note = (name: string) => {
    const p = /\.(test|spec)\.([cm]?[jt]sx?)$/.exec(name)
      ? name.replace(/^.*\.(test|spec)\.([cm]?[jt]sx?)$/, '*.$1.$2')
      : /^test_.*\.py$/.test(name)
        ? 'test_*.py'
        : /_test\.(go|py)$/.test(name)
          ? name.replace(/^.*_test\./, '*_test.')
          : /_spec\.rb$/.test(name)
            ? '*_spec.rb'
            : null;
    if (p) counts.set(p, (counts.get(p) ?? 0) + 1);
  };
  for (const dir of ['test', 'tests', 'spec', 'src', '__tests__']) {
    for (const entry of src.list(dir)) {
      note(entry);
      if (!entry.includes('.')) for (const inner of src.list(`${dir}/${entry}`).slice(0, 200)) note(inner);
    }
  }
  let best: string | null = null;
  for (const [p, n] of counts) if (!best || n > (counts.get(best) ?? 0)) best = p;
  return best;
}
