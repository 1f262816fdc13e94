// The striped retry budget of the ports (src/state/retry-budget/retry-budget-stripes.ts): the same
// grants as one record when takes do not overlap, a budget stored whole before stripes is read and
// kept, and the floor lives in one record.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryDriver } from '../../src/state/engine/memory-driver.js';
import { retryBudgetPort, retryBudgets } from '../../src/state/retry-budget/retry-budget-port.js';
import { stripeKey } from '../../src/state/retry-budget/retry-budget-stripes.js';
import {
  newRetryBudgetRecord,
  type RetryBudgetLimits,
  type RetryBudgetRecord,
  retryBudgetTakeTransition,
} from '../../src/state/retry-budget/retry-budget-transitions.js';

const T0 = 1_700_000_000_000.5;
const LIMITS: RetryBudgetLimits = { ratio: 0.1, minPerSecond: 3, windowMs: 10_000 };

describe('striped retry budget', () => {
  it('keys: the home is the name itself; a name that merely starts the same is not a stripe', async () => {
    expect(stripeKey('claude', 0)).toBe('claude');
    expect(stripeKey('claude', 5)).toBe('claude\u001f5');
    const driver = memoryDriver();
    const others = ['claude-opus', `${stripeKey('claude', 5)}x`, 'claude\u001f05'];
    for (const name of others)
      await retryBudgetPort(driver).retryBudgetTake(
        name,
        { requests: 50, returned: 0, returnedAt: 0, want: 0 },
        T0,
        LIMITS,
      );
    // None of them counts in 'claude'; its own stripe 5 does.
    expect(await retryBudgetPort(driver).retryBudgetGet('claude')).toBeUndefined();
    await driver.insert(retryBudgets, stripeKey('claude', 5), {
      buckets: [{ slot: Math.floor(T0 / 1000), requests: 7, retries: 0 }],
      floorTokens: 3,
      refilledAt: T0,
    });
    expect((await retryBudgetPort(driver).retryBudgetGet('claude'))?.buckets).toEqual([
      { slot: Math.floor(T0 / 1000), requests: 7, retries: 0 },
    ]);
  });

  it('takes that do not overlap get exactly what one record would give, from any mix of handles', async () => {
    const take = fc.record({
      handle: fc.integer({ min: 0, max: 11 }),
      dt: fc.integer({ min: 0, max: 1500 }).map((v) => v * 1.3),
      requests: fc.integer({ min: 0, max: 20 }),
      want: fc.integer({ min: 0, max: 6 }),
      giveBack: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(0, 0.5, 3),
        fc.array(take, { maxLength: 40 }),
        async (minPerSecond, takes) => {
          const limits = { ...LIMITS, minPerSecond };
          const driver = memoryDriver();
          const handles = Array.from({ length: 12 }, () => retryBudgetPort(driver));
          let one: RetryBudgetRecord | undefined;
          let now = T0;
          const last = new Map<number, { granted: number; at: number }>();
          for (const t of takes) {
            now += t.dt;
            const prev = last.get(t.handle);
            const returned = t.giveBack && prev !== undefined ? prev.granted : 0;
            const request = {
              requests: t.requests,
              returned,
              returnedAt: returned > 0 ? (prev?.at ?? 0) : 0,
              want: t.want,
            };
            one ??= newRetryBudgetRecord(now, limits);
            const expected = retryBudgetTakeTransition(one, request, now, limits);
            const got = await handles[t.handle]!.retryBudgetTake('b', request, now, limits);
            expect(got).toEqual(expected);
            last.set(t.handle, { granted: got.granted, at: now });
          }
          if (one === undefined) return;
          // What a read shows: the same buckets in the window as the one record (buckets that left
          // it may still be there, as the contract allows), and its floor.
          const stored = await handles[0]!.retryBudgetGet('b');
          const slot = Math.floor(now / 1000);
          const live = (b: { slot: number; requests: number; retries: number }) =>
            b.slot > slot - 10 && (b.requests !== 0 || b.retries !== 0);
          expect(stored?.buckets.filter(live)).toEqual(one.buckets.filter(live));
          expect(stored?.floorTokens).toBe(one.floorTokens);
          expect(stored?.refilledAt).toBe(one.refilledAt);
          // Bounded: a home and at most 8 stripes.
          expect((await driver.scan(retryBudgets)).length).toBeLessThanOrEqual(9);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a budget stored as one record before stripes is read as the home and kept', async () => {
    const driver = memoryDriver();
    const slot = Math.floor(T0 / 1000);
    await driver.insert(retryBudgets, 'claude', {
      buckets: [{ slot, requests: 100, retries: 4 }],
      floorTokens: 1,
      refilledAt: T0,
    });
    const port = retryBudgetPort(driver);
    const noFloor = { ...LIMITS, minPerSecond: 0 };
    // 100 requests of the old record pay for 10 retries, 4 of them already taken.
    expect(
      await port.retryBudgetTake(
        'claude',
        { requests: 0, returned: 0, returnedAt: 0, want: 10 },
        T0 + 1,
        noFloor,
      ),
    ).toEqual({
      granted: 6,
      requests: 100,
      retries: 10,
      floorTokens: 0,
    });
    expect((await driver.read(retryBudgets, 'claude'))?.value.buckets).toEqual([
      { slot, requests: 100, retries: 4 },
    ]);
    expect((await port.retryBudgetGet('claude'))?.buckets).toEqual([
      { slot, requests: 100, retries: 10 },
    ]);
  });

  it('stripes: 0 keeps one record per budget, as before', async () => {
    const driver = memoryDriver();
    const port = retryBudgetPort(driver, retryBudgets, { stripes: 0 });
    for (let i = 0; i < 5; i++)
      await port.retryBudgetTake(
        'b',
        { requests: 10, returned: 0, returnedAt: 0, want: 1 },
        T0 + i,
        LIMITS,
      );
    expect((await driver.scan(retryBudgets)).map((r) => r.key)).toEqual(['b']);
    expect(() => retryBudgetPort(driver, retryBudgets, { stripes: -1 })).toThrow(
      /stripes must be a whole number >= 0, got -1/,
    );
  });

  it('floor tokens are granted from the home only: many handles at once never take more than the floor', async () => {
    const driver = memoryDriver();
    const handles = Array.from({ length: 16 }, () => retryBudgetPort(driver));
    await handles[0]!.retryBudgetTake(
      'b',
      { requests: 0, returned: 0, returnedAt: 0, want: 0 },
      T0,
      LIMITS,
    );
    const grants = await Promise.all(
      handles.flatMap((h) =>
        Array.from({ length: 3 }, () =>
          h.retryBudgetTake(
            'b',
            { requests: 0, returned: 0, returnedAt: 0, want: 1 },
            T0 + 1,
            LIMITS,
          ),
        ),
      ),
    );
    // No requests: no ratio room, so every token is a floor token, and the floor holds 3.
    expect(grants.reduce((s, g) => s + g.granted, 0)).toBe(3);
  });
});
