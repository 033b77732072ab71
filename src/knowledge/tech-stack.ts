/**
 * The project summary a session starts with, read from the repository itself:
 * manifests and lockfiles (languages, frameworks, tools, package manager),
 * scripts and Makefile targets (test/build commands), and conventions that can
 * be read (test file pattern, module style, formatter, linter).
 *
 * Detection is a pure function of a small set of files; `techStack()` caches
 * the result in `.agentos/cache/tech-stack.json` keyed by those files' size and
 * mtime, so a session start re-reads nothing when nothing changed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { writeCache } from '../shared/fsutil/cache-file.js';
import { detectTechStack, type FileSource, type TechStack } from './tech-stack-detect.js';

export type { TechStack };

/** Files whose presence or content decides the summary (relative to the root). */
const SIGNAL_FILES = [
  'package.json',
  'package-lock.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lockb',
  'bun.lock',
  'tsconfig.json',
  'deno.json',
  'pyproject.toml',
  'requirements.txt',
  'setup.py',
  'Pipfile',
  'Pipfile.lock',
  'poetry.lock',
  'uv.lock',
  'go.mod',
  'Cargo.toml',
  'Gemfile',
  'Gemfile.lock',
  'pom.xml',
  'build.gradle',
  'build.gradle.kts',
  'gradlew',
  'Dockerfile',
  'docker-compose.yml',
  'docker-compose.yaml',
  'compose.yaml',
  'Makefile',
  '.gitlab-ci.yml',
  'Jenkinsfile',
  '.circleci/config.yml',
  '.ci/run',
  '.github/workflows',
  '.prettierrc',
  '.prettierrc.json',
  '.prettierrc.js',
  '.prettierrc.yaml',
  'prettier.config.js',
  '.editorconfig',
  'eslint.config.js',
  'eslint.config.mjs',
  '.eslintrc',
  '.eslintrc.json',
  '.eslintrc.js',
  'biome.json',
  'rustfmt.toml',
  '.rubocop.yml',
  'jest.config.js',
  'jest.config.ts',
  'vitest.config.ts',
  'vite.config.ts',
  'pytest.ini',
  'test',
  'tests',
  'src',
  'spec',
];

const MAX_READ = 512 * 1024;

export function diskSource(root: string): FileSource {
  const abs = (rel: string) => path.join(root, rel);
  return {
    exists: (rel) => existsSync(abs(rel)),
    read: (rel) => {
      try {
        const st = statSync(abs(rel));
        if (!st.isFile() || st.size > MAX_READ) return null;
        return readFileSync(abs(rel), 'utf8');
      } catch {
        return null;
      }
    },
    list: (rel) => {
      try {
        return readdirSync(abs(rel)).sort();
      } catch {
        return [];
      }
    },
  };
}

/** One line per aspect, for recall. */
export function summarizeTechStack(s: TechStack): string[] {
  const lines: string[] = [];
  const stack = [...s.languages, ...s.frameworks].join(', ');
  if (stack) lines.push(`Stack: ${stack}`);
  if (s.tools.length)
    lines.push(`Tools: ${s.tools.join(', ')}${s.packageManager ? ` (package manager: ${s.packageManager})` : ''}`);
  const cmds = [
    s.testCommand && `test \`${s.testCommand}\``,
    s.buildCommand && `build \`${s.buildCommand}\``,
    s.lintCommand && `lint \`${s.lintCommand}\``,
  ].filter(Boolean);
  if (cmds.length) lines.push(`Commands: ${cmds.join(', ')}`);
  const c = s.conventions;
  const conv = [
    c.testPattern && `tests ${c.testPattern}`,
    c.moduleStyle,
    c.formatter && `formatter ${c.formatter}`,
    c.linter && `linter ${c.linter}`,
  ].filter(Boolean);
  if (conv.length) lines.push(`Conventions: ${conv.join(', ')}`);
  if (s.ci.length) lines.push(`CI: ${s.ci.join(', ')}`);
  return lines;
}

const CACHE_VERSION = 1;

/** Size/mtime of every signal file (and of test folders' listings), the cache key. */
function signature(root: string): string {
  const parts: string[] = [];
  for (const rel of SIGNAL_FILES) {
    try {
      const st = statSync(path.join(root, rel));
      parts.push(`${rel}:${st.size}:${Math.round(st.mtimeMs)}`);
    } catch {
      /* absent */
    }
  }
  return parts.join('|');
}

/** The detected stack, from the cache when no signal file changed; recomputed (and cached) otherwise. */
export function techStack(root: string): { stack: TechStack; cached: boolean } {
  const file = path.join(root, '.agentos', 'cache', 'tech-stack.json');
  const sig = signature(root);
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as { version: number; signature: string; stack: TechStack };
    if (c.version === CACHE_VERSION && c.signature === sig) return { stack: c.stack, cached: true };
  } catch {
    /* no or unreadable cache: recompute */
  }
  const stack = detectTechStack(diskSource(root));
  writeCache(file, { version: CACHE_VERSION, signature: sig, stack });
  return { stack, cached: false };
}

export { writeCache };
