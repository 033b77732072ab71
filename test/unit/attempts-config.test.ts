/** The `retrieval:` section of .agentos/config.yaml (attempt memory), validated like the rest. */
import { describe, expect, it } from '@jest/globals';
import { parseConfig } from '../../src/config/parse.js';
import { DEFAULT_CONFIG } from '../../src/config/schema.js';

describe('retrieval config', () => {
  it('has the issue 9 / PRD defaults', () => {
    expect(parseConfig({}).config.retrieval).toEqual({
      enabled: true,
      warnOnDuplicateFailure: true,
      failureLookbackDays: 7,
      archiveAfterDays: 30,
      repeatThreshold: 0.85,
      maxContextSize: 2000,
      autoInject: true,
    });
  });

  it('reads every key as the issue spells it (camelCase) and in the snake_case of the rest of the file', () => {
    const camel = parseConfig({ retrieval: { enabled: false, warnOnDuplicateFailure: false, failureLookbackDays: 3, archiveAfterDays: 10, repeatThreshold: 0.9, maxContextSize: 500, autoInject: false } });
    expect(camel.errors).toEqual([]);
    expect(camel.config.retrieval).toEqual({ enabled: false, warnOnDuplicateFailure: false, failureLookbackDays: 3, archiveAfterDays: 10, repeatThreshold: 0.9, maxContextSize: 500, autoInject: false });
    const snake = parseConfig({ retrieval: { warn_on_duplicate_failure: false, failure_lookback_days: 3, archive_after_days: 10, repeat_threshold: 0.9, max_context_size: 500, auto_inject: false } });
    expect(snake.errors).toEqual([]);
    expect(snake.config.retrieval).toEqual({ ...camel.config.retrieval, enabled: true });
  });

  it.each([
    [{ enabled: 'yes' }, /retrieval\.enabled: expected true or false/],
    [{ repeatThreshold: 1.5 }, /retrieval\.repeatThreshold: must be between 0\.01 and 1/],
    [{ failureLookbackDays: 2.5 }, /retrieval\.failureLookbackDays: expected an integer/],
    [{ failureLookbackDays: 40 }, /failureLookbackDays \(40\) must not exceed archiveAfterDays \(30\)/],
    [{ repeatThreshold: 0.9, repeat_threshold: 0.8 }, /retrieval\.repeatThreshold: given twice/],
    [{ lookback: 3 }, /retrieval\.lookback: unknown key/],
    [{ max_context_size: 'big' }, /retrieval\.max_context_size: expected an integer/],
  ])('rejects %j naming the file and key', (retrieval, message) => {
    const { errors, config } = parseConfig({ retrieval }, '.agentos/config.yaml');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join('\n')).toMatch(message);
    expect(errors[0]).toMatch(/^\.agentos\/config\.yaml: retrieval/);
    if (!('failureLookbackDays' in retrieval)) expect(config.retrieval.failureLookbackDays).toBe(DEFAULT_CONFIG.retrieval.failureLookbackDays);
  });

  it('a non-mapping retrieval section is an error', () => {
    expect(parseConfig({ retrieval: [1] }).errors).toEqual(['.agentos/config.yaml: retrieval: expected a mapping']);
  });
});
