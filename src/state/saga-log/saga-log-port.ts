import { applyTransition } from '../engine/apply-transition.js';
import type { Collection, StateDriver } from '../engine/driver.js';
import { isObject, storedShape } from '../engine/parse-stored.js';
import { leasePort } from '../lease/lease-port.js';
import { leaseHeldBy, type LeaseRecord } from '../lease/lease-transitions.js';
import type { SagaLogEntry, SagaLogStore } from './saga-log-record.js';

/**
 * One saga as stored: its writer's lease and its log. They share one record so that a fenced
 * write (an append or a reset only while `owner` holds the lease) is one compare-and-swap.
 *
 * @example
 * const saga: SagaRecord = { lease: { owner: 'worker-a', leaseUntil: Date.now() + 30_000 }, entries: [] }
 */
export interface SagaRecord {
  lease?: LeaseRecord;
  entries: SagaLogEntry[];
}

/**
 * The sagas: one {@link SagaRecord} per saga id.
 *
 * @example
 * const saga = await driver.read(sagas, 'order-17')
 */
export const sagas: Collection<SagaRecord> = {
  name: 'sagas',
  parse: storedShape(
    'saga log',
    (v) => isObject(v) && Array.isArray((v as SagaRecord).entries),
    'a saga record',
  ),
};

/** The record with `lease` (or none); undefined when neither a lease nor a line is left. */
function withLease(
  r: SagaRecord | undefined,
  lease: LeaseRecord | undefined,
): SagaRecord | undefined {
  const entries = r?.entries ?? [];
  if (lease === undefined) return entries.length === 0 ? undefined : { entries };
  return { lease, entries };
}

/**
 * A `Saga`'s store methods over any {@link StateDriver} (ARCHITECTURE.md §state.drivers): the lease
 * through {@link leasePort}, appends and resets fenced by it in the same compare-and-swap, so a
 * process that lost its lease cannot write the log.
 *
 * @example
 * const port = sagaLogPort(memoryDriver())
 * if ((await port.sagaAcquire('order-17', owner, Date.now(), 30_000)).acquired)
 *   await port.sagaAppend('order-17', owner, { type: 'begin', step: -1, name: '', data: '["pay"]', at: Date.now() })
 */
export function sagaLogPort(
  driver: StateDriver,
  collection: Collection<SagaRecord> = sagas,
): SagaLogStore {
  const leases = leasePort(driver, collection, { get: (r) => r?.lease, set: withLease });
  const fenced = (sagaId: string, owner: string, change: (r: SagaRecord) => SagaRecord) =>
    applyTransition(driver, collection, sagaId, (current) =>
      current !== undefined && leaseHeldBy(current.lease, owner)
        ? { result: true, write: change(current) }
        : { result: false, write: 'keep' },
    );
  return {
    sagaAcquire: (sagaId, owner, now, leaseMs, replacing) =>
      leases.acquire(sagaId, owner, now, leaseMs, replacing),
    sagaRenew: (sagaId, owner, now, leaseMs) => leases.renew(sagaId, owner, now, leaseMs),
    sagaRelease: (sagaId, owner) => leases.release(sagaId, owner),
    sagaAppend: (sagaId, owner, entry) =>
      fenced(sagaId, owner, (r) => ({ ...r, entries: [...r.entries, { ...entry }] })),
    async sagaRead(sagaId) {
      return (await driver.read(collection, sagaId))?.value.entries ?? [];
    },
    sagaReset: (sagaId, owner) => fenced(sagaId, owner, (r) => ({ ...r, entries: [] })),
  };
}
