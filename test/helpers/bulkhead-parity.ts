// The parity property a bulkhead backend's own statements or scripts are held to (ARCHITECTURE.md
// §state.atomic): random sequences of acquire, renew and release are applied both to a record in
// this process (bulkheadAcquireTransition and the others) and to the store, and every answer and
// the slots the backend holds must be the same.
import fc from 'fast-check';
import { expect } from 'vitest';
import type { BulkheadStore } from '../../src/store/bulkhead-store.js';
import {
  type BulkheadRecord,
  bulkheadAcquireTransition,
  bulkheadReleaseTransition,
  bulkheadRenewTransition,
} from '../../src/transitions/bulkhead.js';

const T0 = 1_700_000_000_000.25;

/**
 * Runs the property on `store`; `storedSlots(name)` reads the slots (id → lease end) the backend
 * holds for bulkhead `name`, straight from its storage.
 */
export async function assertBulkheadParity(
  store: BulkheadStore,
  storedSlots: (name: string) => Promise<Record<string, number>>,
): Promise<void> {
  const slot = fc.constantFrom('a:0', 'a:1', 'b:0', 'c:0');
  const op = fc.oneof(
    fc.record({
      kind: fc.constant('acquire' as const),
      slot,
      dt: fc.integer({ min: 0, max: 3_000 }),
      // Redis's own expiry of the set is on its clock (leaseMs from now): at least 1 s, far more than a run takes.
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
  let n = 0;
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
            expect(await store.bulkheadAcquire(name, o.slot, max, now, o.leaseMs)).toBe(a.acquired);
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
          // The backend holds the same slots with the same lease ends (lapsed ones are dropped
          // alike: by the next acquire, never by a renewal or a release).
          expect(await storedSlots(name)).toEqual(local?.slots ?? {});
        }
      },
    ),
    { numRuns: 40 },
  );
}
