import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { retryBudget } from '../../src/guardrails/retry-budget.js';
import {
  constant,
  isRetriesExhaustedError,
  RetriesExhaustedError,
  retry,
} from '../../src/index.js';
import { seededRandom } from '../../src/random/seeded-random.js';
import { VirtualClock } from '../../src/testing/index.js';
import { httpError } from '../helpers/http-error.js';

describe('retryBudget', () => {
  it('validates its options, naming the option', () => {
    expect(() => retryBudget({ ratio: 1.5 })).toThrow(
      /ratio must be a number between 0 and 1, got 1.5/,
    );
    expect(() => retryBudget({ minPerSecond: -1 })).toThrow(
      /minPerSecond must be a number >= 0, got -1/,
    );
    expect(() => retryBudget({ minPerSecond: Number.POSITIVE_INFINITY })).toThrow(/minPerSecond/);
    expect(() => retryBudget({ windowMs: 0 })).toThrow(/windowMs/);
    expect(() => retry({ budget: {} as never })).toThrow(/budget must be a RetryBudget/);
  });

  it('starts with a full floor bucket of minPerSecond, refilled at that rate', async () => {
    const clock = new VirtualClock();
    const budget = retryBudget({ clock, minPerSecond: 3 });
    expect([budget.tryRetry(), budget.tryRetry(), budget.tryRetry(), budget.tryRetry()]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    await clock.advance(333);
    expect(budget.tryRetry()).toBe(false);
    await clock.advance(1);
    expect(budget.tryRetry()).toBe(true);
    // the bucket holds one second's worth, however long it was idle
    await clock.advance(60_000);
    expect([budget.tryRetry(), budget.tryRetry(), budget.tryRetry(), budget.tryRetry()]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(budget.stats().denied).toBe(3);
  });

  it('grants retries up to ratio × requests in the window, plus the floor', () => {
    const clock = new VirtualClock();
    const budget = retryBudget({ clock, ratio: 0.1, minPerSecond: 3 });
    for (let i = 0; i < 200; i++) budget.recordRequest();
    let granted = 0;
    while (budget.tryRetry()) granted++;
    expect(granted).toBe(20 + 3);
    expect(budget.stats()).toMatchObject({
      requests: 200,
      retries: 23,
      denied: 1,
      ratio: 0.1,
      minPerSecond: 3,
      windowMs: 10_000,
    });
  });

  it('credit does not pile up: requests older than the window no longer pay for retries', async () => {
    const clock = new VirtualClock();
    const budget = retryBudget({ clock, ratio: 0.1, minPerSecond: 0 });
    for (let i = 0; i < 1_000; i++) budget.recordRequest();
    await clock.advance(10_000);
    budget.recordRequest();
    expect(budget.tryRetry()).toBe(false);
    expect(budget.stats().requests).toBe(1);
    // and retries granted earlier stop counting against new requests as they age out too
    for (let i = 0; i < 20; i++) budget.recordRequest();
    expect(budget.tryRetry()).toBe(true);
    expect(budget.tryRetry()).toBe(true);
    expect(budget.tryRetry()).toBe(false);
  });

  it('property: granted retries never exceed ratio × requests + the floor (capacity + rate × elapsed)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 20, noNaN: true }),
        fc.array(
          fc.record({
            dt: fc.integer({ min: 0, max: 4_000 }),
            op: fc.constantFrom('request', 'retry', 'retry', 'retry'),
          }),
          { maxLength: 400 },
        ),
        (ratio, minPerSecond, ops) => {
          let now = 0;
          const clock = { now: () => now, sleep: () => Promise.resolve() };
          const budget = retryBudget({ clock, ratio, minPerSecond });
          let requests = 0;
          let granted = 0;
          for (const { dt, op } of ops) {
            now += dt;
            if (op === 'request') {
              budget.recordRequest();
              requests++;
            } else if (budget.tryRetry()) granted++;
          }
          const floor =
            (minPerSecond === 0 ? 0 : Math.max(1, minPerSecond)) + (minPerSecond * now) / 1000;
          expect(granted).toBeLessThanOrEqual(ratio * requests + floor + 1e-6);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('property: a 1 % failure rate at steady traffic is always fully retried', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        let now = 0;
        const clock = { now: () => now, sleep: () => Promise.resolve() };
        const budget = retryBudget({ clock });
        const random = seededRandom(seed);
        for (let i = 0; i < 3_000; i++) {
          now += 20; // 50 calls per second
          budget.recordRequest();
          // a failed attempt asks for a retry; the retry itself fails 1 % of the time too
          for (let attempt = 1; attempt < 3 && random() < 0.01; attempt++)
            expect(budget.tryRetry()).toBe(true);
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe('retry with a budget against a dead dependency', () => {
  async function deadDependency(
    arrivalEveryMs: number,
  ): Promise<{ calls: number; elapsedMs: number; budgetGiveups: number; giveupEvents: number }> {
    const clock = new VirtualClock();
    const budget = retryBudget({ clock, ratio: 0.1, minPerSecond: 3 });
    const policy = retry({ maxAttempts: 3, budget, clock, backoff: constant(100) });
    let giveupEvents = 0;
    policy.on('giveup', (e) => {
      if (e.reason === 'budget') giveupEvents++;
    });
    let calls = 0;
    const dead = (): never => {
      calls++;
      throw httpError(503, { message: 'service unavailable' });
    };
    const results: Array<Promise<unknown>> = [];
    for (let i = 0; i < 1_000; i++) {
      results.push(policy.execute(dead).catch((e: unknown) => e));
      if (arrivalEveryMs > 0) await clock.advance(arrivalEveryMs);
    }
    await clock.advance(1_000);
    const errors = await Promise.all(results);
    expect(errors.every(isRetriesExhaustedError)).toBe(true);
    const budgetGiveups = errors.filter(
      (e) => (e as RetriesExhaustedError).reason === 'budget',
    ).length;
    return { calls, elapsedMs: clock.now(), budgetGiveups, giveupEvents };
  }

  it('1,000 calls arriving at 100/s make at most 1.1 × 1,000 calls plus the floor (not 3,000)', async () => {
    const { calls, elapsedMs, budgetGiveups, giveupEvents } = await deadDependency(10);
    const floor = 3 + (3 * elapsedMs) / 1000;
    expect(calls).toBeLessThanOrEqual(1_100 + floor);
    expect(calls).toBeGreaterThanOrEqual(1_100); // the ratio is used in full
    expect(budgetGiveups).toBeGreaterThan(800);
    expect(giveupEvents).toBe(budgetGiveups);
  });

  it('1,000 concurrent calls make at most 1,100 calls plus the floor', async () => {
    const { calls, elapsedMs } = await deadDependency(0);
    expect(calls).toBeLessThanOrEqual(1_100 + 3 + (3 * elapsedMs) / 1000);
    expect(calls).toBeLessThan(1_110);
  });

  it('gives up at once with reason budget, and says so in the message', async () => {
    const clock = new VirtualClock();
    const budget = retryBudget({ clock, minPerSecond: 0 });
    let calls = 0;
    const error = await retry({ budget, clock, backoff: constant(10) })
      .execute(() => {
        calls++;
        throw httpError(529, { message: 'overloaded' });
      })
      .catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect((error as RetriesExhaustedError).reason).toBe('budget');
    expect((error as Error).message).toMatch(/retry budget is exhausted/);
  });

  it('a 1 % failure rate through retry is fully retried: every call succeeds', async () => {
    const clock = new VirtualClock();
    const budget = retryBudget({ clock });
    const policy = retry({ maxAttempts: 3, budget, clock, backoff: constant(50) });
    const random = seededRandom(7);
    let failures = 0;
    const results: Array<Promise<unknown>> = [];
    for (let i = 0; i < 1_000; i++) {
      const fails = random() < 0.01;
      let attempt = 0;
      results.push(
        policy.execute(() => {
          attempt++;
          if (fails && attempt === 1) {
            failures++;
            throw httpError(503);
          }
          return 'ok';
        }),
      );
      await clock.advance(10);
    }
    await clock.advance(1_000);
    expect(await Promise.all(results)).toEqual(Array(1_000).fill('ok'));
    expect(failures).toBeGreaterThan(3);
    expect(budget.stats().denied).toBe(0);
  });
});
