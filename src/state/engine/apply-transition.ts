import { exponential } from '../../backoff/exponential.js';
import { type Clock, systemClock } from '../../clock/clock.js';
import type { Collection, StateDriver, Versioned, WriteOptions } from './driver.js';
import { StoreError } from './store-error.js';

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
  /** The record's key, named by the `busy` error when the races are lost too often. */
  readonly key?: string;
  read(): Promise<Versioned<Row> | undefined>;
  insert(write: Write, options?: WriteOptions): Promise<boolean>;
  swap(expected: number, write: Write, options?: WriteOptions): Promise<boolean>;
  remove(expected: number): Promise<boolean>;
}

/**
 * How hard {@link applyToSlot} tries before giving up on a record other writers keep changing.
 * Defaults: `maxAttempts` 256 (reads and writes, the first included), `clock` `systemClock`,
 * `random` `Math.random`.
 *
 * @example
 * await applyToSlot(slot, transition, { maxAttempts: 8, clock: virtualClock })
 */
export interface ApplyOptions {
  /** Attempts (read, decide, write) before rejecting with `StoreError` `busy`; at least 1. Default 256. */
  maxAttempts?: number;
  /** Sleeps the backoff between lost races. Default `systemClock`. */
  clock?: Clock;
  /** Draws the jitter, in [0, 1). Default `Math.random`. */
  random?: () => number;
  /** The backoff is counted in turns of the microtask queue, not ms of `clock` (see `StateDriver.inProcess`). Default false. */
  inProcess?: boolean;
}

/** Waits `n` turns of the microtask queue (rounded up): a loser of an in-process race lets the others go first. */
async function turns(n: number): Promise<void> {
  for (let i = Math.ceil(n); i > 0; i--) await undefined;
}

/**
 * Attempts before a record that keeps changing is `busy`: the 255 backoffs between them sum to
 * 4.1 s at most, 2 s on average. When a statement takes longer than the backoff (a loaded server),
 * a loser meets the others again at once and the last of N writers at once needs about N tries:
 * 100 appends to one saga log at once need about 100, which a bound of 32 refused.
 */
const MAX_ATTEMPTS = 256;
// Full jitter spreads the losers of one race over the next few ms, so they do not meet again at once.
const LOSS_BACKOFF = exponential({ baseMs: 1, factor: 2, maxMs: 16, jitter: 'full' });

/**
 * Applies one pure transition to one record as a compare-and-swap, each statement atomic on its
 * own. Why the whole is atomic: the transition decides on the record as read; its write is
 * conditional on the record still being that version, so it lands only if no other write came
 * between. A missing record is settled by the insert: of two inserts, one wins. Whoever lost reads
 * again and decides afresh, so every write is decided on the record it replaces, and of many
 * callers racing for one probe or one claim exactly one wins. A decision that writes nothing
 * answers from the record as read. Two round trips when uncontended, no lock held between them.
 *
 * A loser waits a jittered moment (full jitter, 1 ms doubling to 16 ms) before reading again, and
 * after `maxAttempts` (default 256) lost races in a row rejects with `StoreError` `busy` naming the
 * key, rather than looping for as long as other writers keep winning: the caller's time limit, or
 * its outage road, then decides what happens (ARCHITECTURE.md §state.outage).
 *
 * @example
 * const granted = await applyToSlot(slot, (current) =>
 *   current ? { result: false, write: 'keep' } : { result: true, write: lease })
 */
export async function applyToSlot<Row, Write, R>(
  slot: RecordSlot<Row, Write>,
  transition: (current: Row | undefined) => Decision<R, Write>,
  options: ApplyOptions = {},
): Promise<R> {
  const maxAttempts = options.maxAttempts ?? MAX_ATTEMPTS;
  let previousMs = 0;
  for (let attempt = 1; ; attempt++) {
    const current = await slot.read();
    const decision = transition(current?.value);
    const { result, write } = decision;
    if (write === 'keep') return result;
    if (write === undefined) {
      if (current === undefined || (await slot.remove(current.version))) return result;
    } else {
      const writeOptions =
        decision.expiresAt === undefined ? undefined : { expiresAt: decision.expiresAt };
      if (
        current === undefined
          ? await slot.insert(write, writeOptions)
          : await slot.swap(current.version, write, writeOptions)
      )
        return result;
    }
    // Another write came between our read and ours: decide again on the record as it is now.
    if (attempt >= maxAttempts) {
      const key = slot.key;
      throw new StoreError(
        'busy',
        `compare-and-swap${key === undefined ? '' : ` of ${JSON.stringify(key)}`}: lost ${attempt} races in a row to other writers (maxAttempts ${maxAttempts})`,
        undefined,
        key === undefined ? undefined : { key },
      );
    }
    previousMs = LOSS_BACKOFF.delay(attempt, previousMs, options.random ?? Math.random);
    await (options.inProcess === true
      ? turns(previousMs)
      : (options.clock ?? systemClock).sleep(previousMs));
  }
}

/**
 * @internal The options of a transition through `driver` (its races lost in-process or not).
 *
 * @example
 * await applyToSlot(slot, transition, applyOptionsOf(driver))
 */
export function applyOptionsOf(driver: StateDriver): ApplyOptions | undefined {
  return driver.inProcess === true ? IN_PROCESS : undefined;
}
const IN_PROCESS: ApplyOptions = { inProcess: true };

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
    key,
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
  const options = applyOptionsOf(driver);
  if (driver.session === undefined)
    return applyToSlot(driverSlot(driver, collection, key), transition, options);
  return driver.session(collection as Collection<unknown>, key, (bound) =>
    applyToSlot(driverSlot(bound, collection, key), transition, options),
  );
}
