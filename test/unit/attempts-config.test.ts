/** The `attempts:` section of .agentos/config.yaml (the attempt memory; `retrieval:` before), validated like the rest. */
import { describe, expect, it } from '@jest/globals';
import { parseConfig } from '../../src/shared/config/parse.js';
import { DEFAULT_CONFIG } from '../../src/shared/config/schema.js';

describe('attempts config', () => {
  it('has the issue 9 / PRD defaults', () => {
    expect(parseConfig({}).config.attempts).toEqual({
      enabled: true,
      warnOnDuplicateFailure: true,
      failureLookbackDays: 7,
      archiveAfterDays: 30,
      repeatThreshold: 0.85,
      maxContextSize: 2000,
      autoInject: true,
      scope: 'repo',
    });
  });

  it('scope: repo or org, the words of store.scope (local, its first name, still read with a warning); anything else is an error naming the key', () => {
    expect(parseConfig({ attempts: { scope: 'org' } }).config.attempts.scope).toBe('org');
    expect(parseConfig({ attempts: { scope: 'repo' } }).config.attempts.scope).toBe('repo');
    const old = parseConfig({ attempts: { scope: 'local' } });
    expect([old.config.attempts.scope, old.errors]).toEqual(['repo', []]);
    expect(old.warnings.join('\n')).toMatch(/attempts\.scope: local is now called repo/);
    expect(parseConfig({ attempts: { scope: 'team' } }).errors.join('\n')).toMatch(
      /attempts\.scope: expected repo or org, got "team"/,
    );
    expect(parseConfig({ store: { scope: 'org' } }).config.store.scope).toBe('org');
    expect(parseConfig({ store: { scope: 'all' } }).errors.join('\n')).toMatch(/store\.scope: expected repo or org/);
  });

  it('reads every key in the snake_case of the rest of the file, and the camelCase issue 9 spelled (with one warning per key)', () => {
    const camel = parseConfig({
      attempts: {
        enabled: false,
        warnOnDuplicateFailure: false,
        failureLookbackDays: 3,
        archiveAfterDays: 10,
        repeatThreshold: 0.9,
        maxContextSize: 500,
        autoInject: false,
        scope: 'org',
      },
    });
    expect(camel.errors).toEqual([]);
    expect(camel.warnings).toHaveLength(6);
    expect(camel.warnings.join('\n')).toMatch(
      /attempts\.warnOnDuplicateFailure is now spelled warn_on_duplicate_failure/,
    );
    expect(camel.config.attempts).toEqual({
      enabled: false,
      warnOnDuplicateFailure: false,
      failureLookbackDays: 3,
      archiveAfterDays: 10,
      repeatThreshold: 0.9,
      maxContextSize: 500,
      autoInject: false,
      scope: 'org',
    });
    const snake = parseConfig({
      attempts: {
        warn_on_duplicate_failure: false,
        failure_lookback_days: 3,
        archive_after_days: 10,
        repeat_threshold: 0.9,
        max_context_size: 500,
        auto_inject: false,
        scope: 'org',
      },
    });
    expect(snake.errors).toEqual([]);
    expect(snake.warnings).toEqual([]);
    expect(snake.config.attempts).toEqual({ ...camel.config.attempts, enabled: true });
  });

  it.each([
    [{ enabled: 'yes' }, /attempts\.enabled: expected true or false/],
    [{ repeatThreshold: 1.5 }, /attempts\.repeatThreshold: must be between 0\.01 and 1/],
    [{ failureLookbackDays: 2.5 }, /attempts\.failureLookbackDays: expected an integer/],
    [{ failure_lookback_days: 40 }, /failure_lookback_days \(40\) must not exceed archive_after_days \(30\)/],
    [{ repeatThreshold: 0.9, repeat_threshold: 0.8 }, /attempts\.repeat_threshold: given twice/],
    [{ lookback: 3 }, /attempts\.lookback: unknown key/],
    [{ max_context_size: 'big' }, /attempts\.max_context_size: expected an integer/],
  ])('rejects %j naming the file and key', (attempts, message) => {
    const { errors, config } = parseConfig({ attempts }, '.agentos/config.yaml');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join('\n')).toMatch(message);
    expect(errors[0]).toMatch(/^\.agentos\/config\.yaml: attempts/);
    if (!('failureLookbackDays' in attempts) && !('failure_lookback_days' in attempts))
      expect(config.attempts.failureLookbackDays).toBe(DEFAULT_CONFIG.attempts.failureLookbackDays);
  });

  it('the old name retrieval: is still read, with one line saying to rename it; both names at once is an error', () => {
    const old = parseConfig({ retrieval: { repeatThreshold: 0.9 } });
    expect(old.errors).toEqual([]);
    expect(old.config.attempts.repeatThreshold).toBe(0.9);
    expect(old.warnings).toEqual([
      '.agentos/config.yaml: retrieval: is now called attempts: (still read; rename it)',
      '.agentos/config.yaml: retrieval.repeatThreshold is now spelled repeat_threshold (still read; rename it)',
    ]);
    expect(parseConfig({ retrieval: { repeatThreshold: 2 } }).errors[0]).toMatch(
      /: retrieval\.repeatThreshold: must be between/,
    );
    expect(parseConfig({ retrieval: {}, attempts: {} }).errors).toEqual([
      '.agentos/config.yaml: retrieval: given twice (also as attempts:); keep attempts:',
    ]);
  });

  it('a non-mapping attempts section is an error', () => {
    expect(parseConfig({ attempts: [1] }).errors).toEqual(['.agentos/config.yaml: attempts: expected a mapping']);
  });
});
