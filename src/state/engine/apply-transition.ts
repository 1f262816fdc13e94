import type { Collection, StateDriver, Versioned, WriteOptions } from './driver.js';

/**
 * What a pure transition decided: the caller's answer and what to do with the record —
 * `'keep'`: write nothing; `undefined`: delete it; a record: write it (insert or swap).
 * `expiresAt` (epoch ms) goes with a write.
 *
 * @example
 * const decide = (current?: Lease): Decision<boolean, Lease> =>
 *   current ? { result: false, write: 'keep' } : { result: true, write: lease }
 */
export interface Decision<R, Write> {
  result: R;
  write: Write | undefined | 'keep';
  expiresAt?: number;
}

/** A pure transition: from the record as read (undefined when absent) to a {@link Decision}. */
export type Transition<Row, R, Write = Row> = (current: Row | undefined) => Decision<R, Write>;

/**
 * The four statements a transition needs on one record, bound to its key (and, for a SQL backend,
 * to one client). {@link applyTransition} builds it from a driver; a backend that keeps its own
 * typed statements (PostgreSQL's `row-cas.ts`) hands its own.
 */
export interface RecordSlot<Row, Write = Row> {
  read(): Promise<Versioned<Row> | undefined>;
  insert(write: Write, options?: WriteOptions): Promise<boolean>;
  swap(expected: number, write: Write, options?: WriteOptions): Promise<boolean>;
  remove(expected: number): Promise<boolean>;
}

/**
 * Applies one pure transition to one record as a compare-and-swap, each statement atomic on its
 * own. Why the whole is atomic: the transition decides on the record as read; its write is
 * conditional on the record still being that version, so it lands only if no other write came
 * between. A missing record is settled by the insert: of two inserts, one wins. Whoever lost reads
 * again and decides afresh, so every write is decided on the record it replaces, and of many
 * callers racing for one probe or one claim exactly one wins. A decision that writes nothing
 * answers from the record as read. Two round trips when uncontended, no lock held between them.
 *
 * @example
 * const granted = await applyToSlot(slot, (current) =>
 *   current ? { result: false, write: 'keep' } : { result: true, write: lease })
 */
export async function applyToSlot<Row, Write, R>(
  slot: RecordSlot<Row, Write>,
  transition: (current: Row | undefined) => Decision<R, Write>,
): Promise<R> {
  for (;;) {
    const current = await slot.read();
    const decision = transition(current?.value);
    const { result, write } = decision;
    if (write === 'keep') return result;
    if (write === undefined) {
      if (current === undefined || (await slot.remove(current.version))) return result;
      continue;
    }
    const options =
      decision.expiresAt === undefined ? undefined : { expiresAt: decision.expiresAt };
    if (
      current === undefined
        ? await slot.insert(write, options)
        : await slot.swap(current.version, write, options)
    )
      return result;
    // Another write came between our read and ours: decide again on the record as it is now.
  }
}

/**
 * The {@link RecordSlot} of `key` in `collection` on `driver`.
 *
 * @example
 * const slot = driverSlot(driver, leases, 'saga-1')
 */
export function driverSlot<Row>(
  driver: StateDriver,
  collection: Collection<Row>,
  key: string,
): RecordSlot<Row> {
  return {
    read: () => driver.read(collection, key),
    insert: (write, options) => driver.insert(collection, key, write, options),
    swap: (expected, write, options) =>
      driver.compareAndSwap(collection, key, expected, write, options),
    remove: (expected) => driver.remove(collection, key, expected),
  };
}

/**
 * Applies a pure transition to the record under `key` through any driver, retrying on a lost race
 * (see {@link applyToSlot} for why that is atomic). The capability ports call this; no backend
 * repeats a capability's rules.
 *
 * @example
 * const admitted = await applyTransition(driver, breakers, 'payments', (current) =>
 *   admitTransition(current, now, options))
 */
export function applyTransition<Row, R>(
  driver: StateDriver,
  collection: Collection<Row>,
  key: string,
  transition: Transition<Row, R>,
): Promise<R> {
  return applyToSlot(driverSlot(driver, collection, key), transition);
}
