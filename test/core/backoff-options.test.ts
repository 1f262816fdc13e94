import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BreakerRegistry,
  circuitBreaker,
  constant,
  exponential,
  retry,
  timeout,
  watch,
} from '../../src/index.js';

describe('backoff', () => {
  it('none: min(max, base·factor^(attempt-1))', () => {
    const b = exponential({ baseMs: 100, factor: 2, maxMs: 1_000, jitter: 'none' });
    expect([1, 2, 3, 4, 5, 6].map((a) => b.delay(a, 0, Math.random))).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
  });

  it('stays within its bounds for every jitter (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5_000 }),
        fc.double({ min: 1, max: 4, noNaN: true }),
        fc.integer({ min: 1, max: 200 }),
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        fc.double({ min: 0, max: 100_000, noNaN: true }),
        (baseMs, factor, attempt, r, previous) => {
          const maxMs = baseMs * 10 + 1;
          const cap = Math.min(maxMs, baseMs * factor ** (attempt - 1));
          const random = () => r;
          const full = exponential({ baseMs, factor, maxMs, jitter: 'full' }).delay(
            attempt,
            previous,
            random,
          );
          const equal = exponential({ baseMs, factor, maxMs, jitter: 'equal' }).delay(
            attempt,
            previous,
            random,
          );
          const dec = exponential({ baseMs, factor, maxMs, jitter: 'decorrelated' }).delay(
            attempt,
            previous,
            random,
          );
          expect(full).toBeGreaterThanOrEqual(0);
          expect(full).toBeLessThanOrEqual(cap + 1e-9);
          expect(equal).toBeGreaterThanOrEqual(cap / 2 - 1e-9);
          expect(equal).toBeLessThanOrEqual(cap + 1e-9);
          expect(dec).toBeGreaterThanOrEqual(Math.min(baseMs, maxMs) - 1e-9);
          expect(dec).toBeLessThanOrEqual(maxMs + 1e-9);
          expect(Number.isFinite(full) && Number.isFinite(equal) && Number.isFinite(dec)).toBe(
            true,
          );
        },
      ),
    );
  });

  it('decorrelated grows from the previous delay', () => {
    const b = exponential({ baseMs: 10, maxMs: 10_000, jitter: 'decorrelated' });
    expect(b.delay(1, 0, () => 0.999_999)).toBeCloseTo(30, 3);
    expect(b.delay(2, 30, () => 0.999_999)).toBeCloseTo(90, 3);
    expect(b.delay(2, 30, () => 0)).toBe(10);
  });

  it('constant', () => {
    expect(constant(250).delay(7, 0, Math.random)).toBe(250);
  });
});

describe('bad options throw RangeError/TypeError naming the option', () => {
  it.each([
    [() => retry({ maxAttempts: 0 }), RangeError, 'maxAttempts must be an integer >= 1, got 0'],
    [() => retry({ maxAttempts: 1.5 }), RangeError, /maxAttempts/],
    [() => retry({ maxAttempts: '3' as unknown as number }), TypeError, /maxAttempts/],
    [() => retry({ maxRetryAfterMs: -1 }), RangeError, /maxRetryAfterMs/],
    [() => retry({ backoff: {} as never }), TypeError, /backoff/],
    [() => timeout(Number.NaN), RangeError, /ms must be a number >= 0, got NaN/],
    [() => timeout(-5), RangeError, /ms/],
    [
      () => circuitBreaker({ cooldownMs: -1 }),
      RangeError,
      /cooldownMs must be a number >= 0, got -1/,
    ],
    [() => circuitBreaker({ failureThreshold: 0 }), RangeError, /failureThreshold/],
    [
      () => circuitBreaker({ window: { durationMs: 1_000, minimumCalls: 5, failureRate: 1.5 } }),
      RangeError,
      /window\.failureRate/,
    ],
    [() => new BreakerRegistry({ probeTimeoutMs: Number.NaN }), RangeError, /probeTimeoutMs/],
    [
      () => exponential({ jitter: 'random' as never }),
      RangeError,
      /jitter must be one of 'full', 'equal', 'decorrelated', 'none', got "random"/,
    ],
    [() => exponential({ baseMs: 100, maxMs: 10 }), RangeError, /maxMs/],
    [() => exponential({ factor: 0.5 }), RangeError, /factor/],
    [() => constant(Number.POSITIVE_INFINITY), RangeError, /ms/],
    [() => watch((async function* () {})(), { idleMs: -1 }), RangeError, /idleMs/],
  ] as const)('%#', (make, type, message) => {
    expect(make).toThrow(type);
    expect(make).toThrow(message);
  });
});
