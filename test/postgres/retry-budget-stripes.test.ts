// Issue 28 item 1: the retry budget's hot row. 32 handles take from one budget on the shared
// PostgreSQL at once; with stripes they seldom meet on one row, so far fewer compare-and-swaps
// lose (counted at the driver, over the real server: behaviour, not timing).
import { afterAll, describe, expect, it } from 'vitest';
import { PgCalls } from '../../src/postgres/pg-calls.js';
import { pgDriver } from '../../src/postgres/pg-driver.js';
import type { StateDriver } from '../../src/state/engine/driver.js';
import { retryBudgetPort, retryBudgets } from '../../src/state/retry-budget/retry-budget-port.js';
import { dropSchemas, endPools, newPool, pgAvailable, uniqueSchema } from './pg-helpers.js';

const schemas: string[] = [];
afterAll(async () => {
  if (!pgAvailable) return;
  await dropSchemas(schemas);
  await endPools();
});

const T0 = 1_700_000_000_000;
const LIMITS = { ratio: 0.1, minPerSecond: 3, windowMs: 10_000 };
const HANDLES = 32;
const ROUNDS = 12;

/** The driver with its reads and lost compare-and-swaps counted (in a transition's session too). */
function counted() {
  const counts = { reads: 0, writes: 0, lost: 0 };
  const wrap = (d: StateDriver): StateDriver => ({
    ...d,
    read: (c, k) => {
      counts.reads++;
      return d.read(c, k);
    },
    scan: (c, o) => {
      counts.reads++;
      return d.scan(c, o);
    },
    insert: async (c, k, v, o) => {
      counts.writes++;
      const won = await d.insert(c, k, v, o);
      if (!won) counts.lost++;
      return won;
    },
    compareAndSwap: async (c, k, e, v, o) => {
      counts.writes++;
      const won = await d.compareAndSwap(c, k, e, v, o);
      if (!won) counts.lost++;
      return won;
    },
    ...(d.session === undefined
      ? {}
      : {
          session: <R>(
            c: Parameters<NonNullable<StateDriver['session']>>[0],
            k: string,
            work: (b: StateDriver) => Promise<R>,
          ) => d.session!(c, k, (bound) => work(wrap(bound))),
        }),
  });
  return { counts, wrap };
}

/** `HANDLES` ports (each its own stripe, as many store handles would have) take at once, `ROUNDS` times. */
async function race(calls: PgCalls, schema: string, name: string, stripes: number) {
  const { counts, wrap } = counted();
  const driver = wrap(pgDriver(calls, schema, { timeoutMs: () => 10_000 }));
  const handles = Array.from({ length: HANDLES }, () =>
    retryBudgetPort(driver, retryBudgets, { stripes }),
  );
  let granted = 0;
  let refused = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const answers = await Promise.allSettled(
      handles.map((h) =>
        h.retryBudgetTake(
          name,
          { requests: 5, returned: 0, returnedAt: 0, want: 1 },
          T0 + round,
          LIMITS,
        ),
      ),
    );
    for (const a of answers) {
      if (a.status === 'fulfilled') granted += a.value.granted;
      else refused++;
    }
  }
  return { ...counts, granted, refused, takes: HANDLES * ROUNDS };
}

describe.runIf(pgAvailable)('a PostgreSQL retry budget taken by 32 handles at once', () => {
  it('loses far fewer compare-and-swaps with stripes than on one row, and stays within its bound', async () => {
    const schema = uniqueSchema('stripes');
    schemas.push(schema);
    // 16 connections: up to 16 takes in flight at a time, as 16 worker processes would have.
    const calls = new PgCalls(newPool({ max: 16 }), schema);
    try {
      const one = await race(calls, schema, 'one-row', 0);
      const striped = await race(calls, schema, 'striped', 8);
      console.log(
        `[postgres] ${HANDLES} handles x ${ROUNDS} rounds: one row ${one.lost} lost CAS, ${(one.reads / one.takes).toFixed(2)} reads per take; 8 stripes ${striped.lost} lost CAS, ${(striped.reads / striped.takes).toFixed(2)} reads per take`,
      );
      expect(striped.refused).toBe(0);
      expect(one.lost).toBeGreaterThan(HANDLES); // the row is contended: the comparison means something
      expect(striped.lost * 3).toBeLessThan(one.lost);
      // Every take reports 5 requests and wants 1: the reported requests pay for a tenth of them,
      // plus the floor's 3. One row grants no more; stripes at most one grant more per other
      // record (8 stripes and the home) written in the same moment.
      const paid = (r: { takes: number; refused: number }) => 0.1 * 5 * (r.takes - r.refused) + 3;
      expect(one.granted).toBeLessThanOrEqual(paid(one));
      expect(striped.granted).toBeLessThanOrEqual(paid(striped) + 8);
      expect(striped.granted).toBeGreaterThan(paid(striped) / 2);
    } finally {
      await calls.close();
    }
  }, 120_000);
});
