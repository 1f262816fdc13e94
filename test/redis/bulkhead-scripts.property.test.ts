// The bulkhead's Lua scripts against the pure transitions they port: random sequences of acquire,
// renew and release are applied both to a record in this process (bulkheadAcquireTransition and the
// others) and to the Redis store, and every answer and the slots the set holds must be the same.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { BulkheadStore } from '../../src/store/bulkhead-store.js';
import type { Store } from '../../src/store/store.js';
import {
  type BulkheadRecord,
  bulkheadAcquireTransition,
  bulkheadReleaseTransition,
  bulkheadRenewTransition,
} from '../../src/transitions/bulkhead.js';
import {
  deletePrefixes,
  newClient,
  redisAvailable,
  storeOnOwnClient,
  uniquePrefix,
} from './redis-helpers.js';

const T0 = 1_700_000_000_000.25;

describe.runIf(redisAvailable)('the bulkhead scripts do what the bulkhead transitions do', () => {
  const prefix = uniquePrefix('bulkhead-prop');
  afterAll(async () => {
    await deletePrefixes([prefix]);
  });

  it('acquire, renew and release', async () => {
    const slot = fc.constantFrom('a:0', 'a:1', 'b:0', 'c:0');
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('acquire' as const),
        slot,
        dt: fc.integer({ min: 0, max: 3_000 }),
        // The set's own expiry is on Redis's clock (leaseMs from now): at least 1 s, far more than a run takes.
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
    const store = (await storeOnOwnClient('ioredis', prefix, {
      storeTimeoutMs: 5000,
    })) as unknown as Store & BulkheadStore;
    const { client, end } = await newClient('ioredis');
    const raw = client as unknown as { call(...args: string[]): Promise<unknown> };
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
              // The set holds the same slots with the same lease ends (lapsed ones are dropped
              // alike: by the next acquire, never by a renewal or a release).
              const stored = (await raw.call(
                'ZRANGE',
                `${prefix}bulkhead:${name}`,
                '0',
                '-1',
                'WITHSCORES',
              )) as string[];
              const slots: Record<string, number> = {};
              for (let i = 0; i < stored.length; i += 2) slots[stored[i]!] = Number(stored[i + 1]);
              expect(slots).toEqual(local?.slots ?? {});
            }
          },
        ),
        { numRuns: 40 },
      );
    } finally {
      await store.close();
      await end();
    }
  }, 120_000);
});
