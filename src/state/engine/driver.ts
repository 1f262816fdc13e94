import type { SqlLayout } from './sql-layout.js';

/**
 * The one contract every durable-state backend implements (ARCHITECTURE.md §state.drivers). A driver stores versioned records under string keys, grouped in
 * collections (one per capability record: breakers, ledger entries, leases, …). It knows nothing
 * of breakers or ledgers: a capability's rules are pure transitions, applied through any driver by
 * {@link applyTransition}. The reference memory driver implements it; the backends move onto it capability by capability.
 */

/** A record as read, with its version: a counter every write of that key increments (an insert writes version 0). */
export interface Versioned<Row> {
  value: Row;
  version: number;
}

/**
 * Names a collection of records and how its stored form is checked. `name` is the driver's table,
 * key prefix or map; `parse` turns what the driver stored back into a record, rejecting damage with
 * `StoreError` `corrupt_record` (see `parseStored`). Drivers that keep values as JSON text call
 * `parse(JSON value)`; drivers with typed columns map rows themselves and may skip it.
 *
 * @example
 * const breakers: Collection<BreakerRecord> = { name: 'breakers', parse: (v) => v as BreakerRecord }
 */
export interface Collection<Row> {
  readonly name: string;
  readonly parse: (stored: unknown, key: string) => Row;
  /** Where a SQL driver keeps these records in a table of their own; absent: a shared table of JSON records. */
  readonly sql?: SqlLayout;
}

/** Options of a write: `expiresAt` (epoch ms) makes the record read as absent from then on. Default: never expires. */
export interface WriteOptions {
  expiresAt?: number;
}

/** One record of a {@link StateDriver.scan}: its key and the record as read. */
export interface ScannedRecord<Row> {
  key: string;
  record: Versioned<Row>;
}

/** Which records a {@link StateDriver.scan} lists. Default: every record of the collection. */
export interface ScanOptions {
  /** Only keys that start with this text. */
  prefix?: string;
  /** Only these keys (each looked up by its index: a few known records in one call). */
  keys?: readonly string[];
}

/** Which records a {@link StateDriver.purge} deletes: those whose number `field` is at most `atMost` and whose fields equal `where`, at most `limit`. */
export interface PurgeOptions<Row> {
  field: keyof Row & string;
  atMost: number;
  where?: Partial<Row>;
  limit: number;
}

/** Stops a {@link StateDriver.watch}; idempotent. */
export type Unwatch = () => Promise<void>;

/**
 * A durable-state backend as one small contract. Every method is atomic on its own; none holds a
 * lock between calls, so a frozen caller never blocks a key. Compare-and-swap on the version is the
 * only concurrency primitive: whoever loses a race reads again and decides afresh
 * ({@link applyTransition}). A closed driver rejects every call with `StoreError` `closed`.
 *
 * @example
 * const driver: StateDriver = memoryDriver()
 * await driver.insert(breakers, 'payments', record)             // true: this call inserted it
 * const read = await driver.read(breakers, 'payments')           // { value: record, version: 0 }
 * await driver.compareAndSwap(breakers, 'payments', 0, changed)  // true: still version 0
 */
export interface StateDriver {
  /** The record under `key` and its version, or undefined when absent (or expired). */
  read<Row>(collection: Collection<Row>, key: string): Promise<Versioned<Row> | undefined>;
  /** Writes `value` at version 0 when `key` is absent (or expired): true when this call inserted it. */
  insert<Row>(
    collection: Collection<Row>,
    key: string,
    value: Row,
    options?: WriteOptions,
  ): Promise<boolean>;
  /** Replaces the record when it is still at version `expected`, incrementing the version: true when it was. */
  compareAndSwap<Row>(
    collection: Collection<Row>,
    key: string,
    expected: number,
    value: Row,
    options?: WriteOptions,
  ): Promise<boolean>;
  /** Deletes the record when it is still at version `expected`: true when it was. */
  remove<Row>(collection: Collection<Row>, key: string, expected: number): Promise<boolean>;
  /**
   * Optional: writes `value` whatever is stored (one upsert). For a record that is only ever
   * replaced whole (a checkpoint). Absent: callers apply a transition that ignores the record.
   */
  put?<Row>(
    collection: Collection<Row>,
    key: string,
    value: Row,
    options?: WriteOptions,
  ): Promise<void>;
  /**
   * Optional: one conditional statement on fields — when the record's fields equal `match`, sets
   * the fields in `set` (a field set to undefined is removed) or, when `set` is undefined, deletes
   * the record; true when it did. For a transition whose condition and change are a few fields (the
   * ledger's renew, complete and release: one round trip instead of two). Absent: callers read and swap.
   */
  update?<Row>(
    collection: Collection<Row>,
    key: string,
    match: Partial<Row>,
    set: { [K in keyof Row]?: Row[K] | undefined } | undefined,
  ): Promise<boolean>;
  /** Optional: deletes records past their time in one indexed statement (see {@link PurgeOptions}). Absent: callers scan and remove. */
  purge?<Row>(collection: Collection<Row>, options: PurgeOptions<Row>): Promise<void>;
  /** Every live record of `collection` (optionally under a key prefix), in no stated order. */
  scan<Row>(collection: Collection<Row>, options?: ScanOptions): Promise<ScannedRecord<Row>[]>;
  /**
   * Optional: calls `listener(key)` after any process changes a record of `collection` (PostgreSQL
   * LISTEN, Redis pub/sub, an in-process emitter). Absent: callers poll. Notifications may be
   * coalesced or arrive late; the listener reads the record again rather than trusting a payload.
   */
  watch?<Row>(collection: Collection<Row>, listener: (key: string) => void): Promise<Unwatch>;
  /**
   * True when the backend drops expired records itself (Redis `PX`). False or absent: the driver
   * still reads an expired record as absent and lets an insert replace it.
   */
  readonly nativeExpiry?: boolean;
  /**
   * True when every caller of the driver runs on this process's event loop (the memory driver):
   * a race is then lost only to a write that already landed, and `applyToSlot` re-reads after a
   * few turns of the microtask queue instead of sleeping on a timer (which virtual time in tests
   * would overtake). False or absent: a jittered sleep between lost races.
   */
  readonly inProcess?: boolean;
  /**
   * Optional: runs `work` with a driver whose calls share one connection and one time limit, so a
   * transition (a read, then a swap) is one call of the backend, not two. Absent: each call is its own.
   */
  session?<R>(
    collection: Collection<unknown>,
    key: string,
    work: (driver: StateDriver) => Promise<R>,
  ): Promise<R>;
  /** Releases the backend. Later calls reject with `StoreError` `closed`. Idempotent. */
  close(): Promise<void>;
}
