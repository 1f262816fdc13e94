// The Lua scripts against the pure transitions they port: random sequences of operations are applied
// both to a record in this process (recourse's own transition functions) and to the Redis store, and
// every answer and every stored record must be the same — fractions included.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  admitTransition,
  forceTransition,
  recordTransition,
} from '../../src/transitions/breaker-transitions.js';
import {
  type BreakerLimits,
  type BreakerRecord,
  newBreakerRecord,
} from '../../src/transitions/breaker-record.js';
import {
  type RetryBudgetLimits,
  type RetryBudgetRecord,
  retryBudgetTakeTransition,
  newRetryBudgetRecord,
} from '../../src/transitions/retry-budget.js';
import {
  ledgerClaimTransition,
  ledgerCompleteTransition,
  ledgerReleaseTransition,
  ledgerRenewTransition,
  type LedgerWrite,
} from '../../src/transitions/ledger.js';
import type { LedgerEntry } from '../../src/store/ledger-store.js';
import type { Store } from '../../src/store/store.js';
import { redisAvailable, scratchStores } from './redis-helpers.js';

const T0 = 1_700_000_000_000.25;
const RUNS = 25;

describe.runIf(redisAvailable)('the Redis scripts do what the pure transitions do', () => {
  const scratch = scratchStores();
  async function fresh(): Promise<Store> {
    return (await scratch.open('prop', { storeTimeoutMs: 5000 })).store;
  }

  it('breaker: admit, record and force', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('admit' as const), dt: fc.integer({ min: 0, max: 700 }) }),
      fc.record({
        kind: fc.constant('record' as const),
        dt: fc.integer({ min: 0, max: 300 }),
        stale: fc.boolean(),
        outcome: fc.constantFrom('success' as const, 'failure' as const, 'neutral' as const),
      }),
      fc.record({
        kind: fc.constant('force' as const),
        state: fc.constantFrom('closed' as const, 'isolated' as const),
      }),
    );
    const limits = fc.record({
      failureThreshold: fc.integer({ min: 1, max: 3 }),
      cooldownMs: fc.integer({ min: 1, max: 500 }),
      probeTimeoutMs: fc.integer({ min: 1, max: 400 }),
    });
    const store = await fresh();
    let n = 0;
    try {
      await fc.assert(
        fc.asyncProperty(limits, fc.array(op, { maxLength: 30 }), async (l: BreakerLimits, ops) => {
          const name = `b${n++}`;
          const local: BreakerRecord = newBreakerRecord();
          let now = T0;
          for (const o of ops) {
            if (o.kind === 'admit') {
              now += o.dt;
              const expected = admitTransition(local, now, l);
              expect(await store.breakerAdmit(name, now, l)).toEqual({
                admission: expected,
                record: { ...local },
              });
            } else if (o.kind === 'record') {
              now += o.dt;
              const epoch = o.stale ? local.epoch - 1 : local.epoch;
              recordTransition(local, epoch, o.outcome, now, l);
              expect(await store.breakerRecord(name, epoch, o.outcome, now, l)).toEqual({
                ...local,
              });
            } else {
              forceTransition(local, o.state);
              expect(await store.breakerForce(name, o.state)).toEqual({ ...local });
            }
          }
        }),
        { numRuns: RUNS },
      );
    } finally {
      await store.close();
    }
  }, 120_000);

  it('retry budget: take, refill, give back (doubles kept exactly)', async () => {
    const take = fc.record({
      // Fractional steps, mostly shorter than the floor's refill, and few requests: the floor bucket is drained and refilled.
      dt: fc.oneof(
        fc.integer({ min: 0, max: 400 }).map((v) => v * 1.37),
        fc.integer({ min: 0, max: 3000 }).map((v) => v * 1.01),
      ),
      requests: fc.integer({ min: 0, max: 8 }),
      want: fc.integer({ min: 0, max: 12 }),
      giveBack: fc.boolean(),
    });
    const limits = fc.record({
      ratio: fc.constantFrom(0.1, 0.2, 0.5),
      minPerSecond: fc.constantFrom(0, 0.5, 3, 7.3, 10),
      windowMs: fc.constantFrom(1000, 10_000),
    });
    const store = await fresh();
    let n = 0;
    try {
      await fc.assert(
        // Small times too: near 1.7e12 a double's step is 2^-12 ms, and sums there hide rounding differences.
        fc.asyncProperty(
          limits,
          fc.constantFrom(T0, 1000.3),
          fc.array(take, { maxLength: 25 }),
          async (l: RetryBudgetLimits, start, takes) => {
            const name = `budget${n++}`;
            let local: RetryBudgetRecord | undefined;
            let now = start;
            let last = { granted: 0, at: 0 };
            for (const t of takes) {
              now += t.dt;
              const returned = t.giveBack ? last.granted : 0;
              const request = {
                requests: t.requests,
                returned,
                returnedAt: returned > 0 ? last.at : 0,
                want: t.want,
              };
              local ??= newRetryBudgetRecord(now, l);
              const expected = retryBudgetTakeTransition(local, request, now, l);
              expect(await store.retryBudgetTake(name, request, now, l)).toEqual(expected);
              const stored = await store.retryBudgetGet(name);
              expect(stored).toEqual(local);
              last = { granted: expected.granted, at: now };
            }
          },
        ),
        { numRuns: RUNS },
      );
    } finally {
      await store.close();
    }
  }, 120_000);

  it('ledger: claim, renew, complete and release by several owners', async () => {
    const op = fc.record({
      kind: fc.constantFrom(
        'claim' as const,
        'renew' as const,
        'complete' as const,
        'release' as const,
      ),
      owner: fc.constantFrom('a', 'b'),
      // Steps that land on a lease's end exactly as often as around it.
      dt: fc.constantFrom(0, 0, 1, 499, 500, 501, 1000, 1500),
      leaseMs: fc.constantFrom(0, 500, 1000),
      result: fc.option(fc.constantFrom('"ok"', '{"n":1.5}'), { nil: undefined }),
    });
    const store = await fresh();
    let n = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 30 }), async (ops) => {
          const key = `k${n++}`;
          let local: LedgerEntry | undefined;
          const apply = (w: LedgerWrite): void => {
            if (w !== 'keep') local = w;
          };
          let now = T0;
          for (const o of ops) {
            now += o.dt;
            if (o.kind === 'claim') {
              const { claim, write } = ledgerClaimTransition(local, key, o.owner, now, o.leaseMs);
              apply(write);
              expect(await store.ledgerClaim(key, o.owner, now, o.leaseMs)).toEqual(claim);
            } else if (o.kind === 'renew') {
              const { ok, write } = ledgerRenewTransition(local, o.owner, now, o.leaseMs);
              apply(write);
              expect(await store.ledgerRenew(key, o.owner, now, o.leaseMs)).toBe(ok);
            } else if (o.kind === 'complete') {
              // Results are kept a minute (real time) here, so only the logical expiry (expiresAt <= now) plays.
              const { ok, write } = ledgerCompleteTransition(
                local,
                o.owner,
                o.result,
                now,
                now + 60_000,
              );
              apply(write);
              expect(await store.ledgerComplete(key, o.owner, o.result, now, now + 60_000)).toBe(
                ok,
              );
            } else {
              apply(ledgerReleaseTransition(local, o.owner).write);
              await store.ledgerRelease(key, o.owner);
            }
            expect(await store.ledgerGet(key)).toEqual(local);
          }
        }),
        { numRuns: RUNS },
      );
    } finally {
      await store.close();
    }
  }, 120_000);
});
