import type { RetryBudgetLimits, RetryBudgetTake } from '../transitions/retry-budget.js';
import type { RetryBudgetStore } from './retry-budget-store.js';
import type { ConformanceTestApi } from './conformance.js';

const LIMITS: RetryBudgetLimits = { ratio: 0.1, minPerSecond: 3, windowMs: 10_000 };
// A wall-clock time with a fraction, at the start of a bucket (slots are windowMs / 10 = 1 s wide).
const T0 = 1_700_000_000_000.5;
const LONG_NAME = `budget/${'ключ🔑'.repeat(1000)}`;

const take = (requests: number, want: number, returned = 0, returnedAt = 0): RetryBudgetTake => ({
  requests,
  want,
  returned,
  returnedAt,
});

/**
 * @internal The `RetryBudgetStore` part of the store conformance suite: the floor bucket, credit by
 * ratio over the window, tokens given back, atomicity among concurrent takers of one handle (and,
 * within the striping bound of `retryBudgetPort`, of several handles), names kept apart, times
 * kept verbatim.
 */
export function retryBudgetConformance(
  api: ConformanceTestApi,
  store: () => RetryBudgetStore,
  another: (() => Promise<RetryBudgetStore>) | undefined,
): void {
  const { describe, it, expect } = api;
  describe('retry budget', () => {
    it('reads nothing for an unknown name, and a report creates the record', async () => {
      expect(await store().retryBudgetGet('never')).toBeUndefined();
      const grant = await store().retryBudgetTake('b', take(0, 0), T0, LIMITS);
      expect(grant).toEqual({ granted: 0, requests: 0, retries: 0, floorTokens: 3 });
      expect(await store().retryBudgetGet('b')).toEqual({
        buckets: [],
        floorTokens: 3,
        refilledAt: T0,
      });
    });

    it("starts with a full floor bucket of minPerSecond and refills it at that rate, never past one second's worth", async () => {
      expect(await store().retryBudgetTake('b', take(0, 5), T0, LIMITS)).toEqual({
        granted: 3,
        requests: 0,
        retries: 3,
        floorTokens: 0,
      });
      expect((await store().retryBudgetTake('b', take(0, 1), T0 + 333, LIMITS)).granted).toBe(0);
      expect((await store().retryBudgetTake('b', take(0, 1), T0 + 334, LIMITS)).granted).toBe(1);
      expect((await store().retryBudgetTake('b', take(0, 10), T0 + 60_000, LIMITS)).granted).toBe(
        3,
      );
    });

    it('grants up to ratio × requests over the window, then the floor', async () => {
      expect(await store().retryBudgetTake('b', take(200, 30), T0, LIMITS)).toEqual({
        granted: 23,
        requests: 200,
        retries: 23,
        floorTokens: 0,
      });
      expect((await store().retryBudgetTake('b', take(0, 1), T0, LIMITS)).granted).toBe(0);
      // Floor retries count as retries too: 40 more requests make room for one more.
      expect((await store().retryBudgetTake('b', take(30, 5), T0 + 1, LIMITS)).granted).toBe(0);
      expect((await store().retryBudgetTake('b', take(10, 5), T0 + 2, LIMITS)).granted).toBe(1);
      const stored = await store().retryBudgetGet('b');
      expect(stored?.buckets).toEqual([
        { slot: Math.floor(T0 / 1000), requests: 240, retries: 24 },
      ]);
    });

    it('lets credit age out with the window: old requests pay for no retries, old retries stop counting', async () => {
      const noFloor: RetryBudgetLimits = { ...LIMITS, minPerSecond: 0 };
      expect((await store().retryBudgetTake('b', take(1000, 100), T0, noFloor)).granted).toBe(100);
      expect((await store().retryBudgetTake('b', take(0, 1), T0 + 9_000, noFloor)).granted).toBe(0);
      expect((await store().retryBudgetTake('b', take(1, 1), T0 + 10_000, noFloor)).granted).toBe(
        0,
      );
      expect((await store().retryBudgetTake('b', take(20, 5), T0 + 10_000, noFloor)).granted).toBe(
        2,
      );
      const stored = await store().retryBudgetGet('b');
      expect(stored?.buckets.map((b) => b.slot)).toEqual([Math.floor((T0 + 10_000) / 1000)]);
    });

    it('takes unused tokens back into the bucket they came from, while it is in the window', async () => {
      const noFloor: RetryBudgetLimits = { ...LIMITS, minPerSecond: 0 };
      expect((await store().retryBudgetTake('b', take(100, 10), T0, noFloor)).granted).toBe(10);
      // Seven of ten given back two seconds later: they are granted again.
      expect(await store().retryBudgetTake('b', take(0, 7, 7, T0), T0 + 2_000, noFloor)).toEqual({
        granted: 7,
        requests: 100,
        retries: 10,
        floorTokens: 0,
      });
      // Tokens whose bucket left the window are simply dropped (their retries no longer count anyway).
      const later = await store().retryBudgetTake(
        'b',
        take(0, 0, 7, T0 + 2_000),
        T0 + 30_000,
        noFloor,
      );
      expect(later).toEqual({ granted: 0, requests: 0, retries: 0, floorTokens: 0 });
    });

    it('never grants more than the budget holds among 50 concurrent takers', async () => {
      await store().retryBudgetTake('b', take(200, 0), T0, LIMITS);
      const grants = await Promise.all(
        Array.from({ length: 50 }, () => store().retryBudgetTake('b', take(0, 1), T0 + 1, LIMITS)),
      );
      expect(grants.reduce((sum, g) => sum + g.granted, 0)).toBe(23);
      expect(grants.filter((g) => g.granted === 1).length).toBe(23);
    });

    it('keeps names apart, a name of 10 KB included, and times verbatim', async () => {
      await store().retryBudgetTake(LONG_NAME, take(50, 0), T0 + 0.25, LIMITS);
      expect(
        (await store().retryBudgetTake(`${LONG_NAME}x`, take(0, 10), T0, LIMITS)).granted,
      ).toBe(3);
      expect(await store().retryBudgetGet(LONG_NAME)).toEqual({
        buckets: [{ slot: Math.floor((T0 + 0.25) / 1000), requests: 50, retries: 0 }],
        floorTokens: 3,
        refilledAt: T0 + 0.25,
      });
      // A fractional refill is kept as it is: 0.1 s at 3/s is 0.3 of a token.
      await store().retryBudgetTake('frac', take(0, 3), T0, LIMITS);
      await store().retryBudgetTake('frac', take(0, 0), T0 + 100.5, LIMITS);
      const frac = await store().retryBudgetGet('frac');
      expect(frac?.refilledAt).toBe(T0 + 100.5);
      expect(frac?.floorTokens).toBe((100.5 * 3) / 1000);
    });

    it('returns copies: changing a read record changes nothing stored', async () => {
      await store().retryBudgetTake('b', take(10, 0), T0, LIMITS);
      const read = await store().retryBudgetGet('b');
      read?.buckets.splice(0);
      expect((await store().retryBudgetGet('b'))?.buckets.length).toBe(1);
    });

    if (another !== undefined) {
      it('shares one budget between handles racing', async () => {
        const handles = [store(), await another(), await another(), await another()];
        await handles[1]!.retryBudgetTake('b', take(100, 0), T0, LIMITS);
        const grants = await Promise.all(
          handles.flatMap((h) =>
            Array.from({ length: 5 }, () => h.retryBudgetTake('b', take(0, 1), T0 + 1, LIMITS)),
          ),
        );
        // 10 by ratio and the floor's 3. A store that stripes the budget (the ports over a driver,
        // `retryBudgetPort`) may grant one token more per other record written in the same moment
        // (four handles' stripes and the home: at most 4 here); one script per take grants exactly 13.
        const total = grants.reduce((sum, g) => sum + g.granted, 0);
        expect(total).toBeGreaterThan(12);
        expect(18).toBeGreaterThan(total);
        // Every token granted is counted as a retry, on whichever handle reads it.
        expect((await handles[3]!.retryBudgetGet('b'))?.buckets[0]?.retries).toBe(total);
      });
    }
  });
}
