import { describe, expect, it } from 'vitest';
import { circuitBreaker, exponential, pipeline, retry, timeout, watch } from '../../src/index.js';

describe('options are checked strictly and alike', () => {
  it('an unknown key names itself, a close known key and the known keys', () => {
    expect(() => retry({ maxAttemps: 3 } as never)).toThrow(TypeError);
    expect(() => retry({ maxAttemps: 3 } as never)).toThrow(
      /retry: unknown option "maxAttemps" \(did you mean "maxAttempts"\?\); known options: .*maxAttempts/,
    );
    expect(() => circuitBreaker({ cooldown: 5 } as never)).toThrow(
      /circuitBreaker: unknown option "cooldown" \(did you mean "cooldownMs"\?\)/,
    );
    expect(() => exponential({ jiter: 'full' } as never)).toThrow(/unknown option "jiter"/);
    expect(() => timeout(10, { zzzzzzzz: 1 } as never)).toThrow(
      /timeout: unknown option "zzzzzzzz"; known options: clock, name/,
    );
  });

  it('a clock, a backoff and a name are checked when the policy is built, with one message format', () => {
    expect(() => retry({ clock: {} as never })).toThrow(/^clock must be a Clock .*got \{\}$/);
    expect(() => circuitBreaker({ clock: {} as never })).toThrow(/clock must be a Clock/);
    expect(() => timeout(10, { clock: { now: () => 0 } as never })).toThrow(
      /clock must be a Clock/,
    );
    expect(() => retry({ backoff: 5 as never })).toThrow(/^backoff must be a Backoff .*got 5$/);
    for (const make of [
      () => retry({ name: '' }),
      () => circuitBreaker({ name: 3 as never }),
      () => timeout(1, { name: 'x'.repeat(201) }),
    ]) {
      expect(make).toThrow(/^name must be a non-empty string of at most 200 characters, got /);
    }
    expect(() => watch((async function* () {})(), { idleMs: 10, name: '' })).toThrow(
      /name must be a non-empty string/,
    );
  });

  it('pipeline() with no policy throws', () => {
    expect(() => pipeline()).toThrow(/pipeline\(\) needs at least one policy/);
  });
});
