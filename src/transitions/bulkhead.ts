/**
 * A shared bulkhead as stored: the slots taken, each a lease (slot id → `leaseUntil`, on the time
 * scale every caller passes as `now`: one wall clock for every process sharing the store).
 */
export interface BulkheadRecord {
  slots: Record<string, number>;
}

/** What {@link bulkheadAcquireTransition} decided. */
export interface BulkheadAcquisition {
  acquired: boolean;
  /** Slots held after the transition (lapsed ones dropped), the caller's included when acquired. */
  active: number;
  /** The record to store (undefined: nothing changed). */
  write: BulkheadRecord | undefined;
}

/** Copies `record` without the slots whose lease ended by `now` (a dead holder's, freed). */
function live(record: BulkheadRecord | undefined, now: number): BulkheadRecord {
  const slots: Record<string, number> = {};
  if (record !== undefined)
    for (const [id, until] of Object.entries(record.slots)) if (until > now) slots[id] = until;
  return { slots };
}

/**
 * Takes slot `slot` until `now + leaseMs` when fewer than `max` live slots are held (or when the
 * caller already holds it: a renewal); lapsed slots are dropped on the way. Pure: a store applies
 * it inside one transaction or script and writes `write` back in the same step.
 *
 * @example
 * const { acquired, write } = bulkheadAcquireTransition(row, 'host:pid:7', 3, Date.now(), 30_000)
 */
export function bulkheadAcquireTransition(
  record: BulkheadRecord | undefined,
  slot: string,
  max: number,
  now: number,
  leaseMs: number,
): BulkheadAcquisition {
  const next = live(record, now);
  const held = Object.hasOwn(next.slots, slot);
  const count = Object.keys(next.slots).length;
  if (!held && count >= max) {
    const dropped = record !== undefined && count !== Object.keys(record.slots).length;
    return { acquired: false, active: count, write: dropped ? next : undefined };
  }
  next.slots[slot] = now + leaseMs;
  return { acquired: true, active: held ? count : count + 1, write: next };
}

/**
 * Extends the leases of `slots` that are still held to `now + leaseMs`; returns the ones still
 * held (a slot that lapsed and was taken by nobody still counts as held only while its lease is
 * stored: a lapsed slot is gone once any transition dropped it).
 *
 * @example
 * const { held, write } = bulkheadRenewTransition(row, ['host:pid:7'], Date.now(), 30_000)
 */
export function bulkheadRenewTransition(
  record: BulkheadRecord | undefined,
  slots: readonly string[],
  now: number,
  leaseMs: number,
): { held: string[]; write: BulkheadRecord | undefined } {
  if (record === undefined) return { held: [], write: undefined };
  const next: BulkheadRecord = { slots: { ...record.slots } };
  const held: string[] = [];
  for (const slot of slots) {
    if (!Object.hasOwn(next.slots, slot)) continue;
    next.slots[slot] = now + leaseMs;
    held.push(slot);
  }
  return { held, write: held.length === 0 ? undefined : next };
}

/**
 * Gives slot `slot` up. `write` is the record without it (undefined when it was not held).
 *
 * @example
 * const { write } = bulkheadReleaseTransition(row, 'host:pid:7')
 */
export function bulkheadReleaseTransition(
  record: BulkheadRecord | undefined,
  slot: string,
): { released: boolean; write: BulkheadRecord | undefined } {
  if (record === undefined || !Object.hasOwn(record.slots, slot))
    return { released: false, write: undefined };
  const slots = { ...record.slots };
  delete slots[slot];
  return { released: true, write: { slots } };
}
