import { resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { checkMs, checkOptions, type OptionKeys, showValue } from '../options/validate-options.js';
import type { BreakerStore, StoredAdmission } from '../store/breaker-store.js';
import type { BulkheadStore } from '../store/bulkhead-store.js';
import {
  capabilityPorts,
  type PortedStore,
  READ_ONLY,
  wrapPorts,
} from '../store/capability-ports.js';
import { isBulkheadRecord, parseStored } from '../store/parse-stored.js';
import { storeClosed } from '../store/store-close-hooks.js';
import { StoreError } from '../store/store-error.js';
import type { Store } from '../store/store.js';
import type {
  BreakerLimits,
  BreakerOutcome,
  BreakerRecord,
  BreakerState,
} from '../transitions/breaker-record.js';
import { newBreakerRecord, sameBreakerRecord } from '../transitions/breaker-record.js';
import {
  admitTransition,
  forceTransition,
  recordTransition,
} from '../transitions/breaker-transitions.js';
import {
  type BulkheadRecord,
  bulkheadAcquireTransition,
  bulkheadReleaseTransition,
  bulkheadRenewTransition,
} from '../transitions/bulkhead.js';
import { driverError, type FileIdentity, fileIdentity, sameFile } from './driver-error.js';
import { openDatabase } from './open-database.js';
import { sqliteDriver } from './sqlite-driver.js';

/** Options of {@link sqliteStore}. */
export interface SqliteStoreOptions {
  /** The database file, created with recourse's tables when missing (its directory must exist). */
  path: string;
  /** How long a transition waits for another process's write lock before failing, ms. Default 5000. */
  busyTimeoutMs?: number;
}

const SQLITE_STORE_KEYS: OptionKeys<SqliteStoreOptions> = { path: true, busyTimeoutMs: true };

interface BreakerRow {
  state: BreakerState;
  epoch: number;
  failures: number;
  opened_at: number;
  probe_until: number;
}
function toBreaker(row: BreakerRow | undefined): BreakerRecord | undefined {
  if (row === undefined) return undefined;
  return {
    state: row.state,
    epoch: row.epoch,
    failures: row.failures,
    openedAt: row.opened_at,
    probeUntil: row.probe_until,
  };
}

// A breaker or bulkhead transition reads the row, applies the same pure function the memory store
// uses, and writes the result back inside one BEGIN IMMEDIATE transaction: the write lock is taken
// before the read, so concurrent processes are serialised and no two see the same "before". The
// other capabilities are the ports over the SQLite driver (see `ported`).
class SqliteStore implements BreakerStore, BulkheadStore {
  readonly #db: Database.Database;
  readonly #path: string;
  readonly #busyTimeoutMs: number;
  /** Absolute, so a later `process.chdir` cannot make the file look gone. */
  readonly #absolutePath: string;
  /** The file opened; undefined for `:memory:`. */
  readonly #identity: FileIdentity | undefined;
  #closed = false;
  /** Set once the file is found deleted or replaced: every later call fails with it. */
  #gone: StoreError | undefined;

  readonly #breakerAdmit;
  readonly #breakerRecord;
  readonly #breakerForce;
  readonly #breakerGet;
  readonly #bulkheadApply;

  constructor(db: Database.Database, path: string, busyTimeoutMs: number) {
    this.#db = db;
    this.#path = path;
    this.#busyTimeoutMs = busyTimeoutMs;
    this.#absolutePath = resolve(path);
    this.#identity = path === ':memory:' ? undefined : fileIdentity(this.#absolutePath);

    const getBreaker = db.prepare<[string], BreakerRow>(
      'SELECT state, epoch, failures, opened_at, probe_until FROM recourse_breakers WHERE name = ?',
    );
    const putBreaker = db.prepare<[string, string, number, number, number, number]>(
      `INSERT INTO recourse_breakers (name, state, epoch, failures, opened_at, probe_until) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET state = excluded.state, epoch = excluded.epoch, failures = excluded.failures,
         opened_at = excluded.opened_at, probe_until = excluded.probe_until`,
    );
    const withBreaker = <R>(name: string, apply: (r: BreakerRecord) => R): R => {
      const r = toBreaker(getBreaker.get(name)) ?? newBreakerRecord();
      const before = { ...r };
      const out = apply(r);
      if (!sameBreakerRecord(before, r))
        putBreaker.run(name, r.state, r.epoch, r.failures, r.openedAt, r.probeUntil);
      return out;
    };
    this.#breakerAdmit = db.transaction((name: string, now: number, limits: BreakerLimits) =>
      withBreaker(
        name,
        (r): StoredAdmission => ({ admission: admitTransition(r, now, limits), record: { ...r } }),
      ),
    );
    this.#breakerRecord = db.transaction(
      (name: string, epoch: number, outcome: BreakerOutcome, now: number, limits: BreakerLimits) =>
        withBreaker(name, (r) => {
          recordTransition(r, epoch, outcome, now, limits);
          return { ...r };
        }),
    );
    this.#breakerForce = db.transaction((name: string, state: 'closed' | 'isolated') =>
      withBreaker(name, (r) => {
        forceTransition(r, state);
        return { ...r };
      }),
    );
    this.#breakerGet = (name: string): BreakerRecord | undefined => toBreaker(getBreaker.get(name));

    // A bulkhead is one small JSON record; each transition reads and writes it in one transaction.
    const getBulkhead = db.prepare<[string], { record: string }>(
      'SELECT record FROM recourse_bulkheads WHERE name = ?',
    );
    const putBulkhead = db.prepare<[string, string]>(
      'INSERT INTO recourse_bulkheads (name, record) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET record = excluded.record',
    );
    const dropBulkhead = db.prepare<[string]>('DELETE FROM recourse_bulkheads WHERE name = ?');
    this.#bulkheadApply = db.transaction(
      (
        name: string,
        transition: (r: BulkheadRecord | undefined) => BulkheadRecord | undefined,
      ): void => {
        const row = getBulkhead.get(name);
        const write = transition(
          row === undefined
            ? undefined
            : parseStored<BulkheadRecord>(
                row.record,
                { what: 'sqliteStore: bulkhead', key: name, path },
                isBulkheadRecord,
                'a bulkhead record',
              ),
        );
        if (write === undefined) return;
        if (Object.keys(write.slots).length === 0) dropBulkhead.run(name);
        else putBulkhead.run(name, JSON.stringify(write));
      },
    );
  }

  bulkheadAcquire(
    name: string,
    slot: string,
    max: number,
    now: number,
    leaseMs: number,
  ): Promise<boolean> {
    return this.#use('bulkheadAcquire', () => {
      let acquired = false;
      this.#bulkheadApply.immediate(name, (r) => {
        const a = bulkheadAcquireTransition(r, slot, max, now, leaseMs);
        acquired = a.acquired;
        return a.write;
      });
      return acquired;
    });
  }

  bulkheadRenew(name: string, slots: string[], now: number, leaseMs: number): Promise<string[]> {
    return this.#use('bulkheadRenew', () => {
      let held: string[] = [];
      this.#bulkheadApply.immediate(name, (r) => {
        const renewed = bulkheadRenewTransition(r, slots, now, leaseMs);
        held = renewed.held;
        return renewed.write;
      });
      return held;
    });
  }

  bulkheadRelease(name: string, slot: string): Promise<void> {
    return this.#use('bulkheadRelease', () => {
      this.#bulkheadApply.immediate(name, (r) => bulkheadReleaseTransition(r, slot).write);
    });
  }

  /**
   * Runs one operation on the database: refuses when the store is closed or its file is gone, and
   * turns any driver error into a `StoreError` naming the operation and the path.
   */
  #use<R>(operation: string, run: () => R | Promise<R>): Promise<R> {
    const named = (error: unknown) =>
      driverError(error, operation, this.#path, this.#busyTimeoutMs);
    try {
      if (this.#closed)
        throw new StoreError(
          'closed',
          `sqliteStore: the store for ${JSON.stringify(this.#path)} is closed`,
          this.#path,
        );
      if (this.#gone !== undefined) throw this.#gone;
      if (this.#identity !== undefined) {
        this.#gone = sameFile(this.#absolutePath, this.#path, this.#identity);
        if (this.#gone !== undefined) throw this.#gone;
      }
      const out = run();
      if (!(out instanceof Promise)) return Promise.resolve(out);
      return out.catch((error: unknown) => Promise.reject(named(error)));
    } catch (error) {
      return Promise.reject(named(error));
    }
  }

  /**
   * The ported methods (ledger, checkpoints, sagas, escalations, budgets over the SQLite driver),
   * named in their errors. The transition is the driver's compare-and-swap, each write its own
   * transaction, so no lock is held across an await (two handles in one process would otherwise
   * wait on each other with the thread blocked). A write method that turned out to write nothing
   * takes the write lock once and gives it back (an empty `BEGIN IMMEDIATE`, nothing to sync), so a
   * database another connection holds past `busyTimeoutMs` is `busy` for every write, as when each
   * transition ran in one transaction.
   */
  ported(ports: PortedStore, driver: { readonly writes: number }): PortedStore {
    const begin = this.#db.prepare('BEGIN IMMEDIATE');
    const commit = this.#db.prepare('COMMIT');
    return wrapPorts(ports, (name, call) =>
      this.#use(name, async () => {
        const writes = driver.writes;
        const out = await call();
        if (!READ_ONLY.has(name) && driver.writes === writes) {
          begin.run();
          commit.run();
        }
        return out;
      }),
    );
  }

  breakerAdmit(name: string, now: number, limits: BreakerLimits): Promise<StoredAdmission> {
    return this.#use('breakerAdmit', () => this.#breakerAdmit.immediate(name, now, limits));
  }

  breakerRecord(
    name: string,
    epoch: number,
    outcome: BreakerOutcome,
    now: number,
    limits: BreakerLimits,
  ): Promise<BreakerRecord> {
    return this.#use('breakerRecord', () =>
      this.#breakerRecord.immediate(name, epoch, outcome, now, limits),
    );
  }

  breakerGet(name: string): Promise<BreakerRecord | undefined> {
    return this.#use('breakerGet', () => this.#breakerGet(name));
  }

  breakerForce(name: string, state: 'closed' | 'isolated'): Promise<BreakerRecord> {
    return this.#use('breakerForce', () => this.#breakerForce.immediate(name, state));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    storeClosed(this);
    this.#db.close();
  }
}

/**
 * A store in one SQLite file (better-sqlite3 12), shared by every process on this machine that
 * opens the same path. WAL journal, `busyTimeoutMs` wait for the write lock, and every transition
 * atomic and fsynced on commit (a breaker's in one `BEGIN IMMEDIATE` transaction; a ledger claim,
 * saga append, … a compare-and-swap through the SQLite driver, each statement its own
 * transaction): once a method resolves, its effect survives a crash of the process (or the machine).
 * The tables are created, or upgraded, on open. Opening throws `StoreError` (naming the path) when
 * the directory is missing, the file is not a SQLite database (it is left untouched), or it cannot
 * be written. Not for network file systems (SQLite's locking needs a local disk). better-sqlite3 is
 * synchronous: a transition that waits for another process's write lock holds this thread for up
 * to `busyTimeoutMs` (transitions are short, so waits are too). Defaults: busyTimeoutMs 5000.
 *
 * @example
 * import { sqliteStore } from 'agent-recourse/sqlite'
 * const store = sqliteStore({ path: '.agent/state.db' })
 * const ledger = new IdempotencyLedger(store)
 */
export function sqliteStore(options: SqliteStoreOptions): Store & BulkheadStore {
  const o = checkOptions('sqliteStore', options, SQLITE_STORE_KEYS);
  if (typeof o.path !== 'string' || o.path.trim() === '') {
    throw new TypeError(
      `path must be a non-empty string naming the database file, got ${showValue(o.path)}`,
    );
  }
  const busyTimeoutMs =
    o.busyTimeoutMs === undefined ? 5000 : checkMs('busyTimeoutMs', o.busyTimeoutMs);
  const db = openDatabase(o.path, busyTimeoutMs);
  const store = new SqliteStore(db, o.path, busyTimeoutMs);
  const driver = sqliteDriver(db);
  return Object.assign(store, store.ported(capabilityPorts(driver), driver));
}
