// PostgreSQL's one-statement bulkhead acquire and release (the acquire transition computed in SQL)
// against the pure transitions they mirror: random sequences of acquire, renew and release are
// applied both to a record in this process and to the store, and every answer and the slots the
// row holds must be the same (ARCHITECTURE.md §state.atomic: a port of the pure function is held to it by this property).
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresStore } from '../../src/postgres/postgres-store.js';
import {
  type BulkheadRecord,
  bulkheadAcquireTransition,
  bulkheadReleaseTransition,
  bulkheadRenewTransition,
} from '../../src/transitions/bulkhead.js';
import { dropSchemas, endPools, newPool, pgAvailable, uniqueSchema } from './pg-helpers.js';

const T0 = 1_700_000_000_000.25;

describe.runIf(pgAvailable)('the PostgreSQL bulkhead statements do what the transitions do', () => {
  const schema = uniqueSchema('bulkhead_prop');
  afterAll(async () => {
    await dropSchemas([schema]);
    await endPools();
  });

  it('acquire, renew and release', async () => {
    const slot = fc.constantFrom('a:0', 'a:1', 'b:0', 'c:0');
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('acquire' as const),
        slot,
        dt: fc.integer({ min: 0, max: 3_000 }),
        leaseMs: fc.integer({ min: 1_000, max: 5_000 }),
      }),
      fc.record({
        kind: fc.constant('renew' as const),
        slots: fc.uniqueArray(slot, { maxLength: 3 }),
        dt: fc.integer({ min: 0, max: 3_000 }),
        leaseMs: fc.integer({ min: 1_000, max: 5_000 }),
      }),
      fc.record({ kind: fc.constant('release' as const), slot }),
    );
    const pool = newPool();
    const store = postgresStore({ pool, schema, storeTimeoutMs: 5_000 });
    let n = 0;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 3 }),
          fc.array(op, { maxLength: 25 }),
          async (max, ops) => {
            const name = `b${n++}`;
            let local: BulkheadRecord | undefined;
            let now = T0;
            for (const o of ops) {
              if (o.kind === 'acquire') {
                now += o.dt;
                const a = bulkheadAcquireTransition(local, o.slot, max, now, o.leaseMs);
                if (a.write !== undefined) local = a.write;
                expect(await store.bulkheadAcquire(name, o.slot, max, now, o.leaseMs)).toBe(
                  a.acquired,
                );
              } else if (o.kind === 'renew') {
                now += o.dt;
                const r = bulkheadRenewTransition(local, o.slots, now, o.leaseMs);
                if (r.write !== undefined) local = r.write;
                expect(await store.bulkheadRenew(name, o.slots, now, o.leaseMs)).toEqual(r.held);
              } else {
                const r = bulkheadReleaseTransition(local, o.slot);
                if (r.write !== undefined) local = r.write;
                await store.bulkheadRelease(name, o.slot);
              }
              const { rows } = await pool.query<{ record: string }>(
                `SELECT record FROM "${schema}".bulkheads WHERE name = $1`,
                [name],
              );
              const stored = rows[0] === undefined ? {} : JSON.parse(rows[0].record).slots;
              expect(stored).toEqual(local?.slots ?? {});
            }
          },
        ),
        { numRuns: 40 },
      );
    } finally {
      await store.close();
    }
  }, 120_000);
});
