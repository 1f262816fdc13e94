import { applyTransition } from '../engine/apply-transition.js';
import type { Collection, StateDriver } from '../engine/driver.js';
import {
  leaseAcquireTransition,
  type LeaseAcquisition,
  type LeaseRecord,
  leaseReleaseTransition,
  leaseRenewTransition,
} from './lease-transitions.js';

/**
 * Where a lease sits in a record: `get` finds it (undefined: none), `set` returns the record with
 * the lease replaced (undefined: the lease given up), or undefined when nothing is left to keep.
 *
 * @example
 * const whole: LeaseLens<LeaseRecord> = { get: (r) => r, set: (_r, lease) => lease }
 */
export interface LeaseLens<Row> {
  get(row: Row | undefined): LeaseRecord | undefined;
  set(row: Row | undefined, lease: LeaseRecord | undefined): Row | undefined;
}

/** What {@link leasePort} offers: the three lease transitions on the record under a key. */
export interface LeasePort {
  acquire(
    key: string,
    owner: string,
    now: number,
    leaseMs: number,
    replacing?: string,
  ): Promise<Omit<LeaseAcquisition, 'write' | 'previousOwner'>>;
  renew(key: string, owner: string, now: number, leaseMs: number): Promise<boolean>;
  release(key: string, owner: string): Promise<void>;
}

/**
 * A lease (one holder at a time, taken over once lapsed) over any {@link StateDriver}
 * (ARCHITECTURE.md §state.drivers): the pure lease transitions applied through the engine to the
 * lease `lens` finds in the record of `collection`, so a record may carry more than its lease (a
 * saga's log sits beside its writer's lease, and both change in one compare-and-swap).
 *
 * @example
 * const leases = leasePort(memoryDriver(), sagas, { get: (r) => r?.lease, set: (r, lease) => ({ ...r, lease }) })
 * const { acquired } = await leases.acquire('order-17', 'worker-a', Date.now(), 30_000)
 */
export function leasePort<Row>(
  driver: StateDriver,
  collection: Collection<Row>,
  lens: LeaseLens<Row>,
): LeasePort {
  return {
    acquire: (key, owner, now, leaseMs, replacing) =>
      applyTransition(driver, collection, key, (current) => {
        const { acquired, leaseUntil, holder, write } = leaseAcquireTransition(
          lens.get(current),
          owner,
          now,
          leaseMs,
          replacing,
        );
        return {
          result: { acquired, leaseUntil, holder },
          write: write === undefined ? 'keep' : lens.set(current, write),
        };
      }),
    renew: (key, owner, now, leaseMs) =>
      applyTransition(driver, collection, key, (current) => {
        const { ok, write } = leaseRenewTransition(lens.get(current), owner, now, leaseMs);
        return { result: ok, write: write === undefined ? 'keep' : lens.set(current, write) };
      }),
    release: (key, owner) =>
      applyTransition(driver, collection, key, (current) => ({
        result: undefined,
        write: leaseReleaseTransition(lens.get(current), owner).release
          ? lens.set(current, undefined)
          : 'keep',
      })),
  };
}
